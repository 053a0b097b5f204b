/**
 * Test harness: starts the real server on a free port against a private database (a scratch
 * PostgreSQL database or a PGlite directory), and gives tests real wallets that really sign.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { User } from '@signal/core';
import { type Backend, createDatabase, type DatabaseHandle } from '@signal/db';
import {
  apiStarter,
  createScratchDatabase,
  type ScratchDatabase,
  type TestApi as StartedApi,
  type StartOptions,
} from '@signal/test-support';
import { startedForTests, startedPartsForTests } from '@signal/test-support/vitest';
import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import bs58 from 'bs58';
import type { Logger } from 'pino';
import nacl from 'tweetnacl';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeAll, expect } from 'vitest';
import { type AppRouter, type Config, createServer, loadConfig } from '../src/index.js';

export type TestApi = StartedApi<Config, DatabaseHandle>;

/** Starts the service from its sources (see @signal/test-support's apiStarter). */
export const startApi: (backend: Backend, options?: StartOptions<Logger>) => Promise<TestApi> = apiStarter({
  createServer,
  loadConfig,
  createDatabase,
});

/**
 * Waits for the next wall-clock minute when less than `roomMs` of this one is left: for a burst
 * against a per-minute limit on servers that keep the real clock (processes, or the statement
 * routes, whose skew check needs it), where a burst crossing a window's end would count from 0
 * again and its last request pass (a CI run saw 403 for the expected 429). Servers with a test
 * clock move it instead (`advanceClock`). May wait 15 s: give the test the time.
 */
export async function roomInRateWindow(roomMs = 15_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < roomMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

/** The file's (or describe block's) server: started before its first test, stopped after its last. */
export function useApi(backend: Backend, options?: StartOptions<Logger>): TestApi {
  return startedForTests(() => startApi(backend, options));
}

/**
 * Two servers on one PostgreSQL database and one DATA_DIR (so one signing key), as two replicas of
 * the service run, both with `env` set; on PGlite, which one process owns, the same server twice.
 */
export async function startServerPair(
  backend: Backend = 'postgres',
  env?: Record<string, string>,
): Promise<{
  a: TestApi;
  b: TestApi;
  stop(): Promise<void>;
}> {
  if (backend === 'pglite') {
    const only = await startApi('pglite', { env });
    return { a: only, b: only, stop: () => only.stop() };
  }
  const scratch = await createScratchDatabase();
  const dataDir = await mkdtemp(join(tmpdir(), 'signal-api-pair-'));
  const a = await startApi('postgres', { databaseUrl: scratch.url, dataDir, env });
  const b = await startApi('postgres', { databaseUrl: scratch.url, dataDir, env });
  return {
    a,
    b,
    async stop() {
      await a.stop();
      await b.stop();
      await scratch.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The block's server pair (startServerPair): `const { a, b } = useServerPair();`. */
export function useServerPair(backend: Backend = 'postgres', env?: Record<string, string>): { a: TestApi; b: TestApi } {
  return startedPartsForTests(() => startServerPair(backend, env), ['a', 'b']);
}

/**
 * The block's scratch PostgreSQL database, for servers the block starts its own way (a process,
 * behind a proxy), and `direct`, a pool of 2 on it for the tests' own reads and writes; both end
 * after the block's own afterAll hooks, which stop its servers first.
 */
export function useScratchDatabase(): { scratch: ScratchDatabase; direct: DatabaseHandle } {
  return startedPartsForTests(async () => {
    const scratch = await createScratchDatabase();
    const direct = createDatabase({ url: scratch.url, poolSize: 2 });
    const stop = async () => {
      await direct.close();
      await scratch.drop();
    };
    return { scratch, direct, stop };
  }, ['scratch', 'direct']);
}

/**
 * The block's server (useApi) and a user signed in on it with a fresh EVM wallet before the
 * block's first test: read `user.token` in the tests.
 */
export function useApiWithUser(
  backend: Backend,
  options?: StartOptions<Logger>,
): { api: TestApi; user: { token: string } } {
  const api = useApi(backend, options);
  const user = { token: '' };
  beforeAll(async () => {
    user.token = (await signIn(api, evmWallet())).token;
  });
  return { api, user };
}

export interface TestWallet {
  address: string;
  chain: 'evm' | 'solana';
  sign(message: string): Promise<string>;
}

export function evmWallet(): TestWallet {
  const account = privateKeyToAccount(generatePrivateKey());
  return { address: account.address, chain: 'evm', sign: (message) => account.signMessage({ message }) };
}

export function solanaWallet(): TestWallet {
  const pair = nacl.sign.keyPair();
  return {
    address: bs58.encode(pair.publicKey),
    chain: 'solana',
    sign: async (message) => bs58.encode(nacl.sign.detached(new TextEncoder().encode(message), pair.secretKey)),
  };
}

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/**
 * `send()`, and once more on a new socket when it met a reset and `safe` (a read): a pooled
 * keep-alive socket the server closed at its idle timeout just as this request went out on it
 * (the test process, starved of CPU on a loaded runner, is late to see the close). Browsers do
 * the same; a server that is really gone refuses the second try too.
 */
export async function resentOnReset(send: () => Promise<Response>, safe = true): Promise<Response> {
  try {
    return await send();
  } catch (error) {
    const reset = (error as { cause?: { code?: string } }).cause?.code === 'ECONNRESET';
    if (!reset || !safe) throw error;
    return send();
  }
}

export async function call<T = any>(
  api: { url: string },
  method: string,
  path: string,
  options: {
    body?: unknown;
    token?: string;
    headers?: Record<string, string>;
    rawBody?: string;
    signal?: AbortSignal;
  } = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const send = () =>
    fetch(`${api.url}${path}`, {
      method,
      headers,
      body,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  const res = await resentOnReset(send, method === 'GET' || method === 'HEAD');
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // Left as text: a test asserting JSON will say so.
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/** The first step of a sign-in: `GET /auth/nonce` for the address `wallet`, as it answers. */
export function requestNonce(api: { url: string }, wallet: string, headers?: Record<string, string>) {
  return call(api, 'GET', `/auth/nonce?wallet=${encodeURIComponent(wallet)}`, { headers });
}

/** requestNonce, which must answer 200: the nonce, the message to sign and the wallet it is for. */
export async function issuedNonce(api: { url: string }, wallet: string) {
  const reply = await requestNonce(api, wallet);
  expect(reply.status).toBe(200);
  return reply.body as { nonce: string; message: string; wallet: string };
}

/** The second step: `POST /auth/verify` with `wallet`'s own signature of the message issued with `nonce`. */
export async function verifySigned(
  api: { url: string },
  wallet: TestWallet,
  nonce: { nonce: string; message: string },
  headers?: Record<string, string>,
) {
  const signature = await wallet.sign(nonce.message);
  return call(api, 'POST', '/auth/verify', {
    body: { wallet: wallet.address, nonce: nonce.nonce, signature },
    headers,
  });
}

/** Runs the whole sign-in flow over REST and returns the verify response body. */
export async function signIn(
  api: { url: string },
  wallet: TestWallet,
  options: { headers?: Record<string, string> } = {},
) {
  const { headers } = options;
  const nonce = await requestNonce(api, wallet.address, headers);
  if (nonce.status !== 200) throw new Error(`nonce failed: ${JSON.stringify(nonce.body)}`);
  const verify = await verifySigned(api, wallet, nonce.body, headers);
  if (verify.status !== 200) throw new Error(`verify failed: ${JSON.stringify(verify.body)}`);
  return verify.body as {
    token: string;
    user: User;
    isNewUser: boolean;
    expiresAt: string;
    sessionId: string;
  };
}

/** Signs `wallet` in and asserts that it belongs to no one now: it makes a new user, not `formerUserId`. */
export async function walletSignsInAsNewUser(api: { url: string }, wallet: TestWallet, formerUserId: number) {
  const session = await signIn(api, wallet);
  expect(session.isNewUser).toBe(true);
  expect(session.user.id).not.toBe(formerUserId);
  return session;
}

/** The tokens of `count` new users, each signed in (one after another) with a fresh EVM wallet. */
export async function signInUsers(api: { url: string }, count: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < count; i += 1) tokens.push((await signIn(api, evmWallet())).token);
  return tokens;
}

/** Creates a service key named `name` with `scopes`, as `by` (ADMIN_KEY or a keys:manage key); its secret. */
export async function createServiceKey(api: { url: string }, by: string, name: string, scopes: string[]) {
  const reply = await call(api, 'POST', '/admin/keys', { token: by, body: { name, scopes } });
  if (reply.status !== 201) throw new Error(`creating key ${name}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.key as string;
}

/** Creates a provider named `name`, as `by` (ADMIN_KEY or a providers:write key); its id. */
export async function createProvider(api: { url: string }, by: string, name: string) {
  const reply = await call(api, 'POST', '/providers', { token: by, body: { name } });
  if (reply.status !== 201) throw new Error(`creating provider ${name}: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.id as number;
}

/** Asserts the contract's error shape and returns the body. */
export function expectError(reply: Reply, status: number, code: string) {
  const ok =
    reply.status === status &&
    reply.body &&
    reply.body.code === code &&
    typeof reply.body.message === 'string' &&
    reply.body.message.length > 0;
  if (!ok) throw new Error(`expected ${status} ${code}, got ${reply.status} ${JSON.stringify(reply.body)}`);
  const extra = Object.keys(reply.body).filter((k) => !['code', 'message', 'issues'].includes(k));
  if (extra.length > 0) throw new Error(`error body has extra keys ${extra.join(', ')}`);
  return reply.body as { code: string; message: string; issues?: { path: (string | number)[]; message: string }[] };
}

/** A tRPC client of the started server, as an internal TypeScript service would use it. */
export function trpcClient(api: { url: string }, token?: string) {
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: `${api.url}/trpc`,
        headers: () => (token ? { authorization: `Bearer ${token}` } : {}),
      }),
    ],
  });
}

/** Runs a tRPC call that must fail and returns its TRPCClientError. */
export async function trpcFailure(promise: Promise<unknown>): Promise<TRPCClientError<AppRouter>> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TRPCClientError) return error as TRPCClientError<AppRouter>;
    throw error;
  }
  throw new Error('expected the call to fail');
}
