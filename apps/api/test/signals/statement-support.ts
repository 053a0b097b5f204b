/**
 * Signed statements as a publisher writes them, built and signed here independently of the code
 * under test: canonical JSON by sorting keys (the statements hold strings, integers, arrays and
 * objects only), EVM `personal_sign` by viem, Ed25519 by node:crypto and tweetnacl; and the served
 * log's entries read back from its entry bundles (big-endian uint16 length, then the bytes).
 */
import { createHash, createPublicKey, generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto';
import type { Backend } from '@signal/db';
import bs58 from 'bs58';
import { beforeAll, expect } from 'vitest';
import {
  call,
  createServiceKey,
  evmWallet,
  type Reply,
  roomInRateWindow,
  solanaWallet,
  type TestWallet,
  useServerPair,
} from '../harness.js';
import { fetchCheckpoint, fetchVerifierKey, get } from '../log/log-support.js';
import { httpCall } from '../raw-http.js';

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

/** Wide enough that a statement signed just before its request survives a loaded runner (2 s did not, once). */
export const SKEW_SECONDS = 4;

/**
 * What the statement route tests start: two servers on `backend` (an admin key of their own, the
 * log's `origin`, the skew window above, `rateLimit` statements per signer and minute), an EVM
 * and a Solana wallet, and (before the block's own beforeAll) a `providers:write` and an
 * `events:read` key and the log's verifier key. The tests reach the servers with those keys only,
 * so the admin key stays in here. With them, the checks every statement route makes the same
 * way against these servers and this configuration:
 * - `waitPastSkewWindow()`: until a statement signed now is outside the skew window, so that a
 *   copy of it is accepted only as a retry;
 * - `postCopiesAtOnce(path, body)`: the same statement six times at once, alternating between the
 *   two servers; exactly one is accepted (201), the other five answered as its retries (200);
 * - `expectStatementLimits(path, build, publisher)`: the two budgets, attacked inside one rate
 *   window: statements naming `publisher` (allowed to sign) but signed by another wallet, from
 *   another client address, are refused 401 until the one past `rateLimit`, refused 429; then
 *   `rateLimit` + 2 of the publisher's own, sent at once from that same address to both
 *   servers: exactly `rateLimit` accepted, two refused 429 by its own budget. `build` makes a fresh statement signed by the signer it is given.
 */
export function useStatementServers(backend: Backend, origin: string, rateLimit: number) {
  const adminKey = `admin-${randomBytes(24).toString('base64url')}`;
  const servers = useServerPair(backend, {
    ADMIN_KEY: adminKey,
    LOG_ORIGIN: origin,
    SIGNAL_MAX_SKEW_SECONDS: String(SKEW_SECONDS),
    SIGNAL_RATE_LIMIT_PER_MINUTE: String(rateLimit),
  });
  const evm = evmWallet();
  const sol = solanaWallet();
  const keys = { writer: '', events: '', verifierKey: '' };
  beforeAll(async () => {
    keys.writer = await createServiceKey(servers.a, adminKey, 'writer', ['providers:write']);
    keys.events = await createServiceKey(servers.a, adminKey, 'events', ['events:read']);
    keys.verifierKey = await fetchVerifierKey(servers.a.url);
  });
  const waitPastSkewWindow = () => new Promise((resolve) => setTimeout(resolve, (SKEW_SECONDS + 0.2) * 1000));
  const postCopiesAtOnce = async (path: string, body: Body) => {
    const { a, b } = servers;
    const replies = await Promise.all([a, b, a, b, a, b].map((server) => post(server, path, body)));
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    return replies;
  };
  const expectStatementLimits = async (
    path: string,
    build: (by: StatementSigner) => Promise<Body>,
    publisher: StatementSigner,
  ) => {
    const all = (status: number) => Array.from({ length: rateLimit }, () => status);
    await roomInRateWindow(30_000);
    // The attack: statements naming the publisher, signed by another wallet, from another address.
    const forgery = { signer: publisher.signer, sign: walletSigner(evmWallet()).sign };
    const forged: number[] = [];
    for (let i = 0; i < rateLimit; i++)
      forged.push((await postFrom(servers.a, path, await build(forgery), '127.0.0.2')).status);
    expect(forged).toEqual(all(401));
    const refused = await postFrom(servers.a, path, await build(forgery), '127.0.0.2');
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(/from this address whose signature did not hold/);
    // It fails: the publisher it named, even from the forger's address, keeps its whole budget,
    // on both servers; sent all at once, exactly that many are accepted.
    const bodies = await Promise.all(Array.from({ length: rateLimit + 2 }, () => build(publisher)));
    const own = await Promise.all(
      bodies.map((body, i) => postFrom(i % 2 ? servers.b : servers.a, path, body, '127.0.0.2')),
    );
    expect(own.map((reply) => reply.status).sort()).toEqual([...all(201), 429, 429]);
    expect(own.find((reply) => reply.status === 429)!.body.message).toContain(
      `statements a minute by ${publisher.signer}`,
    );
  };
  return {
    ...servers,
    keys,
    evm,
    sol,
    wallet: walletSigner(evm),
    solana: walletSigner(sol),
    waitPastSkewWindow,
    postCopiesAtOnce,
    expectStatementLimits,
  };
}

/** A `key.delegate` statement's fields: `key` for 30 days (override any). */
export const delegationFields = (
  origin: string,
  providerId: number,
  key: string,
  extra: Record<string, unknown> = {},
) => ({
  expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
  issuedAt: new Date().toISOString(),
  key,
  log: origin,
  provider: providerId,
  type: 'key.delegate',
  v: 1,
  ...extra,
});

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

/** POSTs a statement body from another client address (`from`: any 127/8 address is loopback). */
export async function postFrom(api: { url: string }, path: string, body: Body, from: string) {
  const reply = await httpCall(api.url, {
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    localAddress: from,
  });
  return { status: reply.status, body: JSON.parse(reply.text) };
}

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

const sha256 = (...parts: Uint8Array[]) => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
};

/**
 * A receipt checked by node:crypto alone: the checkpoint's Ed25519 note signature under the
 * verifier key (`<name>+<hex hash>+<base64(0x01 ‖ key)>`), its size above the index, and the
 * RFC 9162 inclusion proof of SHA-256(0x00 ‖ entry) against its root. Throws on any failure.
 */
export function checkReceipt(
  receipt: { logIndex: number; checkpoint: string; proof: string[] },
  entry: string,
  verifierKey: string,
): { size: number } {
  // The base64 may hold '+' too: the name and the hash are the first two parts.
  const [name, , ...rest] = verifierKey.trim().split('+');
  const rawKey = Buffer.from(rest.join('+'), 'base64').subarray(1);
  const publicKey = createPublicKey({
    key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), rawKey]),
    format: 'der',
    type: 'spki',
  });
  const split = receipt.checkpoint.indexOf('\n\n');
  const text = receipt.checkpoint.slice(0, split + 1);
  const signatures = receipt.checkpoint
    .slice(split + 2)
    .trim()
    .split('\n');
  const keyHash = createHash('sha256')
    .update(Buffer.concat([Buffer.from(`${name}\n`), Buffer.from([0x01]), rawKey]))
    .digest()
    .subarray(0, 4);
  const good = signatures.some((line) => {
    const [, signer, blob] = line.split(' ');
    if (signer !== name) return false;
    const bytes = Buffer.from(blob!, 'base64');
    return bytes.subarray(0, 4).equals(keyHash) && verify(null, Buffer.from(text), publicKey, bytes.subarray(4));
  });
  if (!good) throw new Error('the checkpoint is not signed by the verifier key');
  const [, sizeLine, rootLine] = text.split('\n');
  const size = Number(sizeLine);
  if (!(size > receipt.logIndex)) throw new Error(`checkpoint size ${size} does not hold ${receipt.logIndex}`);
  // RFC 9162 §2.1.3.2
  let fn = receipt.logIndex;
  let sn = size - 1;
  let r = sha256(Uint8Array.of(0), Buffer.from(entry, 'utf8'));
  for (const p of receipt.proof.map((h) => Buffer.from(h, 'base64'))) {
    if (sn === 0) throw new Error('proof too long');
    if (fn % 2 === 1 || fn === sn) {
      r = sha256(Uint8Array.of(1), p, r);
      if (fn % 2 === 0) while (fn % 2 === 0 && fn !== 0) [fn, sn] = [fn >> 1, sn >> 1];
    } else {
      r = sha256(Uint8Array.of(1), r, p);
    }
    [fn, sn] = [fn >> 1, sn >> 1];
  }
  if (sn !== 0 || Buffer.from(r).toString('base64') !== rootLine) throw new Error('the inclusion proof fails');
  return { size };
}

/** The hex SHA-256 of a statement's UTF-8 bytes, by node:crypto. */
export const commitmentOf = (statement: string) => createHash('sha256').update(statement, 'utf8').digest('hex');
