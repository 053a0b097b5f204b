/**
 * Which message a nonce is signed with, decided at issue and rebuilt at verify. The format,
 * chain id, domain and issue time travel in the nonce under its MAC (see core's nonce codec),
 * so verify needs nothing stored and checks the signature over exactly the text it issued;
 * the statement and URI come from the configuration.
 */
import type { IncomingMessage } from 'node:http';
import {
  buildAuthMessage,
  buildSignInMessage,
  type Chain,
  DomainError,
  defaultSignInUri,
  isSignInDomain,
  type SignInFormat,
} from '@signal/core';
import type { NonceRecord } from '@signal/core/nonce';
import type { Config } from './config.js';

const FAMILY_FORMAT = { evm: 'siwe', solana: 'siws' } as const;

const invalid = (field: string, message: string) =>
  new DomainError('VALIDATION_ERROR', `Invalid request: ${field}: ${message}`, {
    issues: [{ path: [field], message }],
  });

/** What a nonce of `format` for a `chain` wallet carries besides wallet and expiry. */
export function signInFields(
  config: Config,
  req: IncomingMessage,
  chain: Chain,
  format: SignInFormat,
  chainId: number | undefined,
  issuedAt: number,
): Pick<NonceRecord, 'format' | 'chainId' | 'domain' | 'issuedAt'> {
  if (format === 'plain') {
    if (chainId !== undefined) throw invalid('chainId', 'applies to format=siwe only');
    return {};
  }
  if (format !== FAMILY_FORMAT[chain]) {
    throw invalid(
      'format',
      `${format} is for ${format === 'siwe' ? 'EVM' : 'Solana'} wallets; use ${FAMILY_FORMAT[chain]} or plain`,
    );
  }
  if (format === 'siws' && chainId !== undefined) throw invalid('chainId', 'applies to format=siwe only');
  return {
    format,
    chainId: format === 'siwe' ? String(chainId ?? config.evmChainId) : config.siwsChain,
    domain: signInDomain(config, req),
    issuedAt,
  };
}

/**
 * The site the message names: SIGN_IN_DOMAIN, else the Host the request was sent to. Anyone
 * can send any Host, so only SIGN_IN_DOMAIN pins the site (docs/wallets.md: phishing protection).
 */
function signInDomain(config: Config, req: IncomingMessage): string {
  if (config.signInDomain) return config.signInDomain;
  const host = req.headers.host ?? '';
  if (!isSignInDomain(host))
    throw invalid('format', 'the request has no Host usable as the sign-in domain (set SIGN_IN_DOMAIN)');
  return host.toLowerCase();
}

/** The exact text to sign for a nonce and what it carries. */
export function signInMessage(config: Config, nonce: string, record: NonceRecord): string {
  const { format, chainId, domain, issuedAt } = record;
  if (!format || chainId === undefined || domain === undefined || issuedAt === undefined)
    return buildAuthMessage(nonce);
  return buildSignInMessage(format, {
    domain,
    address: record.wallet,
    statement: config.signInStatement,
    uri: config.signInUri ?? defaultSignInUri(domain),
    chainId,
    nonce,
    issuedAt: new Date(issuedAt),
    expiresAt: new Date(record.expiresAt),
  });
}
