/**
 * The texts a wallet signs to sign in, in the three formats of the contract:
 * - `plain`: "Sign this message to authenticate: <nonce>" (SPEC §5, unchanged);
 * - `siwe`: an EIP-4361 Sign-In with Ethereum message (https://eips.ethereum.org/EIPS/eip-4361);
 * - `siws`: the Sign-In With Solana text of the Wallet Standard (`solana:signIn`), the same
 *   lines saying "Solana account".
 * Both sign-in formats name the site (`domain`), which wallets show and check against the page
 * asking for the signature. No Node built-ins: the SDK uses `parseSignInMessage` in browsers to
 * refuse texts that name another site or nonce.
 */
import { buildAuthMessage } from './message.js';

export const SIGN_IN_FORMATS = ['plain', 'siwe', 'siws'] as const;

/** The statement line of SIWE/SIWS messages unless SIGN_IN_STATEMENT says otherwise. */
export const DEFAULT_SIGN_IN_STATEMENT =
  'Sign in to Signal. This request will not trigger a blockchain transaction or cost any fees.';
export type SignInFormat = (typeof SIGN_IN_FORMATS)[number];

export interface SignInFields {
  /** host[:port] of the site the user signs in to. */
  domain: string;
  /** The wallet: EIP-55 for siwe, base58 for siws. */
  address: string;
  /** One line, no newline. */
  statement: string;
  uri: string;
  /** siwe: the EIP-155 chain id in decimal; siws: a cluster name such as `mainnet`. */
  chainId: string;
  nonce: string;
  issuedAt: Date;
  expiresAt: Date;
}

const ACCOUNT = { siwe: 'Ethereum', siws: 'Solana' } as const;

/** The exact text to sign; for `plain` only the nonce counts. */
export function buildSignInMessage(format: SignInFormat, fields: SignInFields): string {
  if (format === 'plain') return buildAuthMessage(fields.nonce);
  return (
    `${fields.domain} wants you to sign in with your ${ACCOUNT[format]} account:\n` +
    `${fields.address}\n\n` +
    `${fields.statement}\n\n` +
    `URI: ${fields.uri}\n` +
    'Version: 1\n' +
    `Chain ID: ${fields.chainId}\n` +
    `Nonce: ${fields.nonce}\n` +
    `Issued At: ${fields.issuedAt.toISOString()}\n` +
    `Expiration Time: ${fields.expiresAt.toISOString()}`
  );
}

const LINE = '([^\\n]+)';
const TIME = '(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z)';
const SIGN_IN_TEXT = new RegExp(
  `^${LINE} wants you to sign in with your (Ethereum|Solana) account:\\n${LINE}\\n\\n${LINE}\\n\\n` +
    `URI: ${LINE}\\nVersion: 1\\nChain ID: ${LINE}\\nNonce: ([A-Za-z0-9]+)\\n` +
    `Issued At: ${TIME}\\nExpiration Time: ${TIME}$`,
);

/**
 * The fields of a text exactly as `buildSignInMessage` writes it (this service's layout: every
 * line present, nothing more), or null. Building from the result gives the same text back.
 */
export function parseSignInMessage(text: string): ({ format: 'siwe' | 'siws' } & SignInFields) | null {
  const match = SIGN_IN_TEXT.exec(text);
  if (!match) return null;
  const [, domain, account, address, statement, uri, chainId, nonce, issuedAt, expiresAt] =
    match as unknown as string[];
  const fields = {
    format: account === 'Ethereum' ? ('siwe' as const) : ('siws' as const),
    domain: domain as string,
    address: address as string,
    statement: statement as string,
    uri: uri as string,
    chainId: chainId as string,
    nonce: nonce as string,
    issuedAt: new Date(issuedAt as string),
    expiresAt: new Date(expiresAt as string),
  };
  if (Number.isNaN(fields.issuedAt.getTime()) || Number.isNaN(fields.expiresAt.getTime())) return null;
  return buildSignInMessage(fields.format, fields) === text ? fields : null;
}

/** host[:port]: a DNS name, IPv4 or bracketed IPv6, and an optional port. Nothing else. */
const DOMAIN =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

export function isSignInDomain(value: string): boolean {
  if (value.length > 253 || !DOMAIN.test(value)) return false;
  // A port is 1..65535: `:0` or `:99999` names no site a wallet could show.
  const port = /:([0-9]{1,5})$/.exec(value)?.[1];
  return port === undefined || (Number(port) >= 1 && Number(port) <= 65_535);
}

/** The URI a domain signs in to by default: https, or http for the local machine. */
export function defaultSignInUri(domain: string): string {
  const host = domain.replace(/:[0-9]+$/, '').toLowerCase();
  const local = host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127\./.test(host);
  return `${local ? 'http' : 'https'}://${domain}`;
}
