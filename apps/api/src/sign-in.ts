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
    domain: signInDomain(config, req, format),
    issuedAt,
  };
}

/**
 * The site the message names. With SIGN_IN_DOMAIN: the request's Host when it is one of the
 * listed sites (compared lower-cased), else the first of them. Without: the Host the request was
 * sent to, which anyone can set, so only while the server listens on loopback (a developer's
 * machine, where no phishing site can relay to it); beyond loopback such a message could name
 * any site, a phishing one included, so SIWE and SIWS are refused there until SIGN_IN_DOMAIN
 * is set (docs/security.md, "Sign-in domain"). A Host that is not host[:port] with a port of
 * 1..65535 is refused either way.
 */
function signInDomain(config: Config, req: IncomingMessage, format: SignInFormat): string {
  const host = (req.headers.host ?? '').toLowerCase();
  if (!isSignInDomain(host)) {
    throw invalid('Host', 'must be host[:port] with a port of 1..65535 to sign in with a SIWE or SIWS message');
  }
  const [first] = config.signInDomains;
  if (first !== undefined) return config.signInDomains.includes(host) ? host : first;
  if (!isLoopbackHost(config.host)) {
    throw invalid(
      'format',
      `${format} needs SIGN_IN_DOMAIN on this server: it listens beyond loopback, where a message naming the ` +
        "request's Host could name any site, a phishing one included. Use format=plain, or ask the operator to " +
        'set SIGN_IN_DOMAIN',
    );
  }
  return host;
}

/** True for a HOST that only this machine can reach. */
function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.[0-9]+\.[0-9]+\.[0-9]+$/.test(bare);
}

/** The warning to log at start when SIWE/SIWS are off for want of SIGN_IN_DOMAIN, if they are. */
export function signInDomainWarning(config: Config): string | undefined {
  if (config.signInDomains.length > 0 || isLoopbackHost(config.host)) return undefined;
  return (
    `SIGN_IN_DOMAIN is unset and HOST=${config.host} is not loopback: SIWE/SIWS nonces are refused (400), ` +
    "because a message naming the request's Host would let a phishing site obtain one for its own domain and " +
    'redeem what the victim signs. Set SIGN_IN_DOMAIN to the site(s) users sign in to (comma-separated host[:port])'
  );
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
