/**
 * Starts the real API (the built @signal/api) on a free port against a scratch PostgreSQL
 * database (or PGlite), with a clock the test can move to reach token expiry.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, loadConfig } from '@signal/api';
import { createScratchDatabase } from '@signal/db/testing';
import { isSignalApiError, SignalApiError } from '@signal/sdk';
import { expect } from 'vitest';

export const DAY_MS = 24 * 60 * 60 * 1000;
/** Token lifetime of the contract. */
export const TOKEN_LIFETIME_MS = 30 * DAY_MS;
export const SEEDED_PROVIDERS = 30;

export interface TestApi {
  url: string;
  /** Moves the server's clock (nonce and token expiry) by this many milliseconds. */
  advanceClock(ms: number): void;
  stop(): Promise<void>;
}

/**
 * On PostgreSQL (a scratch database) by default, or on an embedded PGlite in DATA_DIR; `env`: more
 * configuration, e.g. `{ ADMIN_KEY }` for the service client's tests.
 */
export async function startApi(
  backend: 'postgres' | 'pglite' = 'postgres',
  env: Record<string, string> = {},
): Promise<TestApi> {
  let offset = 0;
  const scratch = backend === 'postgres' ? await createScratchDatabase() : undefined;
  const dataDir = await mkdtemp(join(tmpdir(), 'signal-sdk-test-'));
  const config = loadConfig({
    PORT: '0',
    LOG_LEVEL: 'silent',
    SEED_PROVIDERS: String(SEEDED_PROVIDERS),
    AUTH_RATE_LIMIT_PER_MINUTE: '0',
    // Every test signs in fresh wallets from one address: the new-account limit would refuse them.
    NEW_USER_RATE_LIMIT_PER_HOUR: '0',
    NEW_USER_RATE_LIMIT_PER_HOUR_PER_56: '0',
    FOLLOW_RATE_LIMIT_PER_MINUTE: '0',
    READ_RATE_LIMIT_PER_MINUTE: '0',
    DATA_DIR: dataDir,
    ...(scratch ? { DATABASE_URL: scratch.url } : {}),
    ...env,
  });
  const server = createServer({ config, now: () => new Date(Date.now() + offset) });
  const running = await server.start();
  return {
    url: running.url,
    advanceClock(ms) {
      offset += ms;
    },
    async stop() {
      await server.stop();
      await scratch?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The global fetch, recording which tRPC procedure each request called. Passed to the client as
 * its `fetch` option: the requests are real, the test only counts them.
 */
export function recordingFetch() {
  const procedures: string[] = [];
  const fetchAndRecord: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    procedures.push(url.pathname.replace(/^.*\/trpc\//, ''));
    return fetch(input, init);
  };
  return {
    fetch: fetchAndRecord,
    procedures,
    count: (procedure: string) => procedures.filter((name) => name === procedure).length,
  };
}

/** Awaits a call that must fail with a SignalApiError and returns it. */
export async function failure(promise: Promise<unknown>): Promise<SignalApiError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(SignalApiError);
  expect(isSignalApiError(error)).toBe(true);
  return error as SignalApiError;
}
