/**
 * Test harness: starts the real server on a free port against a private database (a scratch
 * PostgreSQL database or a PGlite directory), and gives tests real wallets that really sign.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { User } from '@signal/core';
import type { Backend, DatabaseHandle } from '@signal/db';
import { createDatabase } from '@signal/db';
import { createScratchDatabase, serviceDatabaseUrl } from '@signal/db/testing';
import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client';
import bs58 from 'bs58';
import type { Logger } from 'pino';
import nacl from 'tweetnacl';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type AppRouter, type Config, createServer, loadConfig } from '../src/index.js';

export interface TestApi {
  url: string;
  /** A direct handle on the same database, for checking what the service wrote. */
  db: DatabaseHandle;
  /** Moves the server's clock (nonce and token expiry) by this many milliseconds. */
  advanceClock(ms: number): void;
  /** The server's clock (real time plus every advance). */
  now(): Date;
  config: Config;
  /** Where METRICS_PORT serves /metrics, when set. */
  metricsUrl: string | undefined;
  stop(): Promise<void>;
  /** Stops the server only, keeping the database, so a restart can reuse it. */
  restart(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Reuse a data dir / database between starts. */
  dataDir?: string;
  databaseUrl?: string;
  /** The web build served at `/`; default apps/web/dist. */
  webDistDir?: string;
  /** The server's logger (a test that reads the log lines); default one built from LOG_LEVEL. */
  logger?: Logger;
}

export async function startApi(backend: Backend, options: StartOptions = {}): Promise<TestApi> {
  let offset = 0;
  const now = () => new Date(Date.now() + offset);
  const scratch = backend === 'postgres' && !options.databaseUrl ? await createScratchDatabase() : undefined;
  const databaseUrl = options.databaseUrl ?? scratch?.url;
  const ownDataDir = options.dataDir ? undefined : await mkdtemp(join(tmpdir(), 'signal-api-test-'));
  const dataDir = options.dataDir ?? (ownDataDir as string);
  const config = loadConfig({
    PORT: '0',
    LOG_LEVEL: 'silent',
    SEED_PROVIDERS: '0',
    AUTH_RATE_LIMIT_PER_MINUTE: '0',
    FOLLOW_RATE_LIMIT_PER_MINUTE: '0',
    READ_RATE_LIMIT_PER_MINUTE: '0',
    DATA_DIR: dataDir,
    ...(databaseUrl ? { DATABASE_URL: serviceDatabaseUrl(databaseUrl) } : {}),
    ...options.env,
  });
  let server = createServer({ config, now, webDistDir: options.webDistDir, logger: options.logger });
  let running = await server.start();
  // PGlite is single-process: the inspection handle is the server's own; PostgreSQL gets a
  // separate pool, as an outside observer would.
  const db = databaseUrl ? createDatabase({ url: databaseUrl, poolSize: 4 }) : running.services.database;
  const api: TestApi = {
    url: running.url,
    db,
    config,
    metricsUrl: running.metricsUrl,
    advanceClock(ms) {
      offset += ms;
    },
    now,
    async restart() {
      await server.stop();
      server = createServer({
        config: { ...config, port: running.port },
        now,
        webDistDir: options.webDistDir,
        logger: options.logger,
      });
      running = await server.start();
      if (!databaseUrl) api.db = running.services.database;
    },
    async stop() {
      await server.stop();
      if (databaseUrl) await db.close();
      await scratch?.drop();
      if (ownDataDir) await rm(ownDataDir, { recursive: true, force: true });
    },
  };
  return api;
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
  const res = await fetch(`${api.url}${path}`, {
    method,
    headers,
    body,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // Left as text: a test asserting JSON will say so.
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/** Runs the whole sign-in flow over REST and returns the verify response body. */
export async function signIn(
  api: { url: string },
  wallet: TestWallet,
  options: { headers?: Record<string, string> } = {},
) {
  const { headers } = options;
  const nonce = await call(api, 'GET', `/auth/nonce?wallet=${encodeURIComponent(wallet.address)}`, { headers });
  if (nonce.status !== 200) throw new Error(`nonce failed: ${JSON.stringify(nonce.body)}`);
  const signature = await wallet.sign(nonce.body.message);
  const verify = await call(api, 'POST', '/auth/verify', {
    body: { wallet: wallet.address, nonce: nonce.body.nonce, signature },
    headers,
  });
  if (verify.status !== 200) throw new Error(`verify failed: ${JSON.stringify(verify.body)}`);
  return verify.body as {
    token: string;
    user: User;
    isNewUser: boolean;
    expiresAt: string;
    sessionId: string;
  };
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
