/**
 * Signed statements as a publisher writes them, built and signed here independently of the code
 * under test: canonical JSON by sorting keys (the statements hold strings, integers, arrays and
 * objects only), EVM `personal_sign` by viem, Ed25519 by node:crypto and tweetnacl; and the served
 * log's entries read back from its entry bundles (big-endian uint16 length, then the bytes).
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import bs58 from 'bs58';
import { call, type Reply, type TestWallet } from '../harness.js';
import { fetchCheckpoint, get } from '../log/log-support.js';

/** RFC 8785 for the values statements hold: keys sorted at every level, no white space. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Something that signs a statement's text: a wallet, or a delegated key. */
export interface StatementSigner {
  signer: string;
  sign(text: string): Promise<string>;
}

export const walletSigner = (wallet: TestWallet): StatementSigner => ({ signer: wallet.address, sign: wallet.sign });

/** A fresh Ed25519 key made by node:crypto, named `ed25519:<base58>`. */
export function delegatedKey(): StatementSigner & { key: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
  const key = `ed25519:${bs58.encode(raw)}`;
  return { key, signer: key, sign: async (text) => bs58.encode(sign(null, Buffer.from(text, 'utf8'), privateKey)) };
}

export const salt = () => randomBytes(16).toString('base64url');

export interface Body {
  statement: string;
  signer: string;
  signature: string;
}

export async function signed(fields: Record<string, unknown>, by: StatementSigner): Promise<Body> {
  const statement = canonical(fields);
  return { statement, signer: by.signer, signature: await by.sign(statement) };
}

/** POSTs a statement body (with an Authorization header when given: it must be ignored). */
export const post = (api: { url: string }, path: string, body: Body, token?: string): Promise<Reply> =>
  call(api, 'POST', path, { body, ...(token ? { token } : {}) });

/** The log's entry at `index` as text, read from the served entry bundle of the current checkpoint. */
export async function servedEntry(url: string, verifierKey: string, index: number): Promise<string> {
  const { size } = await fetchCheckpoint(url, verifierKey);
  if (index >= size) throw new Error(`entry ${index} is not in the checkpoint of size ${size}`);
  const tile = Math.floor(index / 256);
  const width = Math.min(256, size - tile * 256);
  const res = await get(url, `/log/tile/entries/${tileNumber(tile)}${width === 256 ? '' : `.p/${width}`}`);
  if (res.status !== 200) throw new Error(`entry bundle ${tile}: ${res.status}`);
  const entries: string[] = [];
  for (let at = 0; at < res.body.length; ) {
    const length = (res.body[at]! << 8) | res.body[at + 1]!;
    entries.push(Buffer.from(res.body.subarray(at + 2, at + 2 + length)).toString('utf8'));
    at += 2 + length;
  }
  return entries[index - tile * 256]!;
}

/** C2SP's path encoding of a tile number: groups of three digits, all but the last with `x`. */
function tileNumber(n: number): string {
  const digits = String(n).padStart(3 * Math.ceil(String(n).length / 3), '0');
  const groups = digits.match(/.{3}/g)!;
  return groups.map((group, i) => (i < groups.length - 1 ? `x${group}` : group)).join('/');
}
