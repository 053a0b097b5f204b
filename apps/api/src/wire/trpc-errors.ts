/**
 * tRPC's error envelope, for every answer under /trpc: those of a call (trpc.ts; tRPC's own
 * errorFormatter gives the same shape) and those the host writes before any call runs (URL too long, batch
 * over the cap, body too large, malformed HTTP). A tRPC client reads only this shape; anything
 * else fails every call with "Unable to transform response from server".
 */
import type { ServerResponse } from 'node:http';
import { DomainError } from '@signal/core';
import type { WireError } from './errors.js';

/** Calls one batched /trpc request may carry (httpBatchLink: `maxItems: 10` in v11). */
export const MAX_BATCH_CALLS = 10;

/**
 * The JSON-RPC code of each HTTP status, as tRPC's own table has them, so a client reads a
 * 404 as NOT_FOUND and a 429 as TOO_MANY_REQUESTS rather than as an internal error. tRPC has
 * no code of its own for 503: it gives SERVICE_UNAVAILABLE -32603, like any 5xx.
 */
const JSON_RPC_CODE: Record<number, number> = {
  400: -32600,
  401: -32001,
  403: -32003,
  404: -32004,
  405: -32005,
  408: -32008,
  409: -32009,
  413: -32013,
  415: -32015,
  422: -32022,
  429: -32029,
};

export function jsonRpcCode(status: number): number {
  return JSON_RPC_CODE[status] ?? (status >= 500 ? -32603 : -32600);
}

export interface TrpcErrorShape {
  message: string;
  code: number;
  data: { code: string; httpStatus: number; path?: string; issues?: WireError['body']['issues'] };
}

/** The `error` of one call: the contract's code and status in `data`, no stack. */
export function trpcErrorShape(wire: WireError, path: string | undefined): TrpcErrorShape {
  return {
    message: wire.body.message,
    code: jsonRpcCode(wire.status),
    data: {
      code: wire.body.code,
      httpStatus: wire.status,
      ...(path === undefined ? {} : { path }),
      ...(wire.body.issues ? { issues: wire.body.issues } : {}),
    },
  };
}

const TRPC_TARGET = /^(?:https?:\/\/[^/?#]*)?\/trpc\/([^?#]*)(?:\?([^#]*))?/i;

/** Whether a raw request target is under /trpc. */
export function isTrpcTarget(url: string | undefined): boolean {
  return url !== undefined && TRPC_TARGET.test(url);
}

/**
 * The procedure paths a /trpc request target names: `a,b,c` with `?batch=1` is a batch of
 * three. Read from the raw target, so that it works on a URL too long or too broken to parse.
 */
export function trpcCalls(url: string): { batch: boolean; paths: string[] } {
  const match = TRPC_TARGET.exec(url);
  let pathPart = match?.[1] ?? '';
  try {
    pathPart = decodeURIComponent(pathPart);
  } catch {
    // Kept as sent: the names only label the errors.
  }
  // As tRPC v10's handler reads it: any non-empty `batch` value makes a batch.
  const batch = /(?:^|&)batch=[^&]/.test(match?.[2] ?? '');
  return { batch, paths: batch ? pathPart.split(',') : [pathPart] };
}

/** Refuses a batch of more than MAX_BATCH_CALLS calls, before anything of it runs. */
export function limitTrpcBatch(url: string | undefined): void {
  if (!isTrpcTarget(url)) return;
  const { batch, paths } = trpcCalls(url as string);
  if (batch && paths.length > MAX_BATCH_CALLS) {
    throw new DomainError(
      'VALIDATION_ERROR',
      `A tRPC batch may hold at most ${MAX_BATCH_CALLS} calls; this one has ${paths.length}`,
      { issues: [{ path: ['batch'], message: `must hold at most ${MAX_BATCH_CALLS} calls` }] },
    );
  }
}

/** The body of an error answer to a /trpc request: one envelope, or one per call of a batch. */
export function trpcErrorBody(url: string, wire: WireError): string {
  const { batch, paths } = trpcCalls(url);
  if (!batch) return JSON.stringify({ error: trpcErrorShape(wire, paths[0]) });
  return JSON.stringify(paths.map((path) => ({ error: trpcErrorShape(wire, path) })));
}

export function sendTrpcError(res: ServerResponse, url: string, wire: WireError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.statusCode = wire.status;
  for (const [name, value] of Object.entries(wire.headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(trpcErrorBody(url, wire));
}
