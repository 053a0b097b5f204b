/**
 * Which message a nonce is signed with, decided at issue and rebuilt at verify. The format,
 * chain id, domain and issue time travel in the nonce under its MAC (see core's nonce codec),
 * so verify needs nothing stored and checks the signature over exactly the text it issued;
 * the statement and URI come from the configuration.
 */
import type { IncomingMessage } from 'node:http';
import {
  buildAuthMessage,
  buildLinkMessage,
  buildSignInMessage,
  type Chain,
  DomainError,
  defaultSignInUri,
  isDomainError,
  isSignInDomain,
  linkStatement,
  type SignInFormat,
  type VerifyBody,
} from '@signal/core';
import { ChainBusyError, ChainUnavailableError, type EvmChainVerifier } from '@signal/core/evm-chain';
import type { NonceBinding, NonceRecord } from '@signal/core/nonce';
import { verifyWalletSignature } from '@signal/core/verify';
import { type ParsedWallet, parseWallet } from '@signal/core/wallet';
import { isNonceUsed } from '@signal/db';
import type { Config } from '../config/config.js';
import type { Services } from './context.js';

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

/**
 * The exact text to sign for a nonce and what it carries. A link nonce's text names the account
 * it links to (plain: its own sentence; SIWE/SIWS: the statement), so it never reads as a sign-in
 * and a sign-in message never as a link (CONTRACT.md, Version 4; docs/wallets.md).
 */
export function signInMessage(config: Config, nonce: string, record: NonceRecord): string {
  const { format, chainId, domain, issuedAt } = record;
  const linkTo = record.purpose === 'link' ? record.userId : undefined;
  if (!format || chainId === undefined || domain === undefined || issuedAt === undefined) {
    return linkTo === undefined ? buildAuthMessage(nonce) : buildLinkMessage(nonce, linkTo);
  }
  return buildSignInMessage(format, {
    domain,
    address: record.wallet,
    statement: linkTo === undefined ? config.signInStatement : linkStatement(linkTo),
    uri: config.signInUri ?? defaultSignInUri(domain),
    chainId,
    nonce,
    issuedAt: new Date(issuedAt),
    expiresAt: new Date(record.expiresAt),
  });
}

export const invalidNonce = (message: string) => new DomainError('INVALID_NONCE', message);
export const NONCE_USED = 'nonce has already been used';

/**
 * The checks of a signed nonce, shared by sign-in (POST /auth/verify) and wallet linking
 * (POST /me/wallets), in the contract's order: wallet → nonce → signature. The nonce opens only
 * with the purpose and user it was issued for (`binding`). Nothing is written: recording the
 * nonce as used is the caller's, with the change it authorises. A used nonce still answers
 * INVALID_NONCE first; only a failed signature pays for that read.
 */
export async function checkSignedNonce(
  services: Pick<Services, 'config' | 'database' | 'nonces' | 'evmChain'>,
  input: VerifyBody,
  binding: Omit<NonceBinding, 'wallet'>,
  at: Date,
): Promise<{ wallet: ParsedWallet; record: NonceRecord }> {
  const wallet = parseWallet(input.wallet);
  // Shape, MAC (which covers wallet, purpose and user) and expiry, in memory: no database read.
  const opened = services.nonces.open(input.nonce, { ...binding, wallet: wallet.wallet }, at);
  if (!opened.ok) throw invalidNonce(opened.message);
  // Verified before the use is recorded: a failed attempt (or a chain node that cannot answer)
  // leaves the nonce usable.
  try {
    // Exactly the text issued with this nonce: plain, or the SIWE/SIWS message it carries.
    const message = signInMessage(services.config, input.nonce, opened.record);
    await verifySignature(services.evmChain, wallet, message, input.signature);
  } catch (error) {
    if (
      isDomainError(error) &&
      error.code === 'INVALID_SIGNATURE' &&
      (await isNonceUsed(services.database.db, input.nonce))
    ) {
      throw invalidNonce(NONCE_USED);
    }
    throw error;
  }
  return { wallet, record: opened.record };
}

/**
 * The local check first (EOA keys, Solana keys and envelopes), so ordinary wallets never wait
 * for a node; an EVM signature that does not recover to the wallet may still be a contract
 * account's (EIP-1271, or EIP-6492 before deployment), checked on chain when a node is set.
 */
async function verifySignature(
  evmChain: EvmChainVerifier | undefined,
  wallet: ParsedWallet,
  message: string,
  signature: string,
): Promise<void> {
  if (verifyWalletSignature(wallet, message, signature)) return;
  if (wallet.chain === 'evm' && evmChain) {
    try {
      if (await evmChain.verifyMessage(wallet.wallet, message, signature)) return;
    } catch (error) {
      if (error instanceof ChainBusyError) {
        throw new DomainError(
          'SERVICE_UNAVAILABLE',
          `Too many contract-wallet checks on the chain node (${error.message}); retry in ${error.retryAfterSeconds} s (the nonce is still valid)`,
          { cause: error, retryAfterSeconds: error.retryAfterSeconds },
        );
      }
      if (error instanceof ChainUnavailableError) {
        throw new DomainError(
          'SERVICE_UNAVAILABLE',
          'The chain node is unavailable; retry shortly (the nonce is still valid)',
          {
            cause: error,
            retryAfterSeconds: 1,
          },
        );
      }
      throw error;
    }
  }
  throw invalidSignature(wallet.chain);
}

/** The signature is malformed or not by this wallet (the nonce stays usable). */
export const invalidSignature = (chain: Chain) =>
  new DomainError('INVALID_SIGNATURE', `signature is not a valid ${chain} signature by this wallet`);
