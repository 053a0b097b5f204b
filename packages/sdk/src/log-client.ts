/**
 * `client.log`: the public log's reads (CONTRACT.md, "The log"). The proofs are tRPC queries like
 * every other call; the checkpoint and the key are text routes, read with fetch. These methods
 * return what the log serves, unchecked: checking (a few KiB of SHA-256 and Ed25519) lives in
 * `@signal/sdk/log`, so an app that never verifies does not load it.
 */
import { ERROR_STATUS } from '@signal/core';
import { SignalApiError } from './api-error.js';
import type { TransportClient } from './transport.js';
import type { ConsistencyProof, ContractCode, InclusionProof } from './wire.types.js';

export interface LogMethods {
  /** `GET /log/checkpoint`: the newest signed checkpoint, a C2SP signed note (check it with `openCheckpoint`). */
  checkpoint(): Promise<string>;
  /** `GET /log/key`: the log's verifier key, as the server states it (pin it; do not trust it from here). */
  key(): Promise<string>;
  /** `GET /log/proof/inclusion`: entry `index` in the tree of `size` entries (check with `checkInclusionAnswer`). */
  inclusionProof(index: number, size: number): Promise<InclusionProof>;
  /** `GET /log/proof/consistency`: the tree of `from` entries is a prefix of that of `to` (`checkConsistencyAnswer`). */
  consistencyProof(from: number, to: number): Promise<ConsistencyProof>;
}

async function readText(baseUrl: string, path: string, fetchImpl: typeof fetch): Promise<string> {
  let response: Response;
  try {
    response = await fetchImpl(`${baseUrl}${path}`);
  } catch (error) {
    throw new SignalApiError('NETWORK_ERROR', `Could not reach the API at ${baseUrl}: ${String(error)}`, {
      cause: error,
    });
  }
  const body = await response.text();
  if (response.ok) return body;
  // The contract's error body: { code, message }.
  let parsed: { code?: unknown; message?: unknown } = {};
  try {
    parsed = JSON.parse(body);
  } catch {}
  if (typeof parsed.code === 'string' && Object.hasOwn(ERROR_STATUS, parsed.code)) {
    const message = typeof parsed.message === 'string' && parsed.message ? parsed.message : parsed.code;
    throw new SignalApiError(parsed.code as ContractCode, message, { status: response.status });
  }
  throw new SignalApiError('NETWORK_ERROR', `Unexpected answer from ${baseUrl} (HTTP ${response.status})`, {
    status: response.status,
  });
}

/** @internal */
export function logMethods(baseUrl: string, trpc: TransportClient, fetchImpl?: typeof fetch): LogMethods {
  // Called bare, so a fetch passed in as a method (window.fetch) never gets another `this`.
  const fetchText: typeof fetch = (input, init) => (fetchImpl ?? globalThis.fetch)(input, init);
  return {
    checkpoint: () => readText(baseUrl, '/log/checkpoint', fetchText),
    key: () => readText(baseUrl, '/log/key', fetchText),
    inclusionProof: (index, size) => trpc.log.inclusion.query({ index, size }),
    consistencyProof: (from, to) => trpc.log.consistency.query({ from, to }),
  };
}
