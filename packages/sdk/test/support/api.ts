/**
 * The real API (the built @signal/api, as a user of the SDK meets it) started by the shared test
 * support: on a free port against a scratch PostgreSQL database (or PGlite), with a clock the
 * test can move to reach token expiry, and a demo catalogue of SEEDED_PROVIDERS.
 */
import { type Config, createServer, loadConfig } from '@signal/api';
import { createDatabase, type DatabaseHandle } from '@signal/db';
import { isSignalApiError, SignalApiError } from '@signal/sdk';
import { apiStarter, type Backend, type TestApi as StartedApi, type StartOptions } from '@signal/test-support';
import { startedForTests } from '@signal/test-support/vitest';
import { expect } from 'vitest';

export const DAY_MS = 24 * 60 * 60 * 1000;
/** Token lifetime of the contract. */
export const TOKEN_LIFETIME_MS = 30 * DAY_MS;
export const SEEDED_PROVIDERS = 30;

export type TestApi = StartedApi<Config, DatabaseHandle>;

const startApi: (backend: Backend, options?: StartOptions<never>) => Promise<TestApi> = apiStarter(
  { createServer, loadConfig, createDatabase },
  { SEED_PROVIDERS: String(SEEDED_PROVIDERS) },
);

/**
 * The file's (or describe block's) API: started before its first test, stopped after its last;
 * on PostgreSQL by default. `options.env`: more configuration, e.g. `{ ADMIN_KEY }`.
 */
export function useApi(backend: Backend = 'postgres', options: StartOptions<never> = {}): TestApi {
  return startedForTests(() => startApi(backend, options));
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
