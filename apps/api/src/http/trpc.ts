/**
 * The tRPC transport: `/trpc/<path>` as tRPC's `httpLink` and `httpBatchLink` (v10 and v11)
 * send it, answered as tRPC 11's `resolveResponse` answers it (plain JSON, no transformer): a
 * query by GET with its input in `?input=`, a mutation by POST with its input as the body, a
 * batch (`?batch=1`, paths joined by commas) with inputs keyed "0", "1", …; each call's
 * answer `{ "result": { "data" } }` or `{ "error": shape }`, a batch's in an array; the status
 * that of the error, or of all of a batch's errors when they agree, else 207 (200 when none).
 *
 * Each call runs as tRPC's own `callTRPCProcedure` runs it (run-procedure.ts), as on the REST side. What is
 * left out of tRPC's HTTP handler is a web `Request` and `Response` per request (headers copied
 * into a `Headers`, an AbortController, the body through a web stream into chunked writes),
 * which roughly doubled the CPU of a tRPC call against REST (BENCH.md), and only streaming
 * links need: the service has none (docs/api.md, "tRPC clients"). Answers go out in one write
 * with a Content-Length, so a HEAD carries the GET's headers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DomainError } from '@signal/core';
import { type AnyRouter, TRPCError } from '@trpc/server';
import { bodyLimitOf, MAX_BODY_BYTES, readJsonBody } from '../wire/body.js';
import { toWireError, type WireError } from '../wire/errors.js';
import { trpcCalls, trpcErrorShape } from '../wire/trpc-errors.js';
import { procedureAt, runProcedure } from './run-procedure.js';

type CallResult = { ok: true; data: unknown } | { ok: false; wire: WireError };

/** The input of each call: one value, or a batch's object keyed by index. */
async function readInputs(
  req: IncomingMessage,
  target: URL,
  batch: boolean,
  count: number,
  bodyLimit: number,
): Promise<unknown[]> {
  let raw: unknown;
  if (req.method === 'GET') {
    const input = target.searchParams.get('input');
    if (input !== null) {
      try {
        raw = JSON.parse(input);
      } catch {
        throw new TRPCError({ code: 'PARSE_ERROR', message: 'The input query parameter is not valid JSON' });
      }
    }
  } else {
    raw = await readJsonBody(req, bodyLimit);
  }
  if (!batch) return [raw];
  const keyed = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  return Array.from({ length: count }, (_, index) =>
    Object.hasOwn(keyed, String(index)) ? keyed[String(index)] : undefined,
  );
}

export interface TrpcHandlerOptions {
  router: AnyRouter;
  createContext: (req: IncomingMessage, res: ServerResponse) => object;
  /** Each failed call's error, as it was thrown, and its request (for the log). */
  onError: (error: unknown, wire: WireError, req: IncomingMessage) => void;
}

export function trpcHandler({ router, createContext, onError }: TrpcHandlerOptions) {
  /** One call; its failure is the contract's WireError, never a throw. */
  const call = async (path: string, input: unknown, req: IncomingMessage, ctx: object): Promise<CallResult> => {
    try {
      const procedure = procedureAt(router, path);
      if (!procedure) throw new TRPCError({ code: 'NOT_FOUND', message: `No procedure found on path "${path}"` });
      const type = procedure._def.type;
      if (type !== (req.method === 'GET' ? 'query' : 'mutation')) {
        throw new TRPCError({
          code: 'METHOD_NOT_SUPPORTED',
          message: `${path} is a ${type}: send it by ${type === 'mutation' ? 'POST' : 'GET'}`,
        });
      }
      return { ok: true, data: await runProcedure(router, path, type as 'query' | 'mutation', input, ctx) };
    } catch (error) {
      const wire = toWireError(error);
      onError(error, wire, req);
      return { ok: false, wire };
    }
  };

  return async (req: IncomingMessage, res: ServerResponse, target: URL): Promise<void> => {
    // tRPC takes queries by GET and mutations by POST; any other method is a route it lacks,
    // as on the REST side.
    if (req.method !== 'GET' && req.method !== 'POST') {
      throw new DomainError('NOT_FOUND', `${req.method} is not served on /trpc; it takes GET and POST`);
    }
    const { batch, paths } = trpcCalls(req.url ?? '/');
    // Failures of the request as a whole (body too large, not JSON) are thrown: the host
    // answers them in tRPC's envelope, one per call (trpc-errors.ts).
    // The body limit of the call's procedures (the largest, for a batch; never below the default).
    const bodyLimit = Math.max(MAX_BODY_BYTES, ...paths.map((path) => bodyLimitOf(procedureAt(router, path))));
    const inputs = await readInputs(req, target, batch, paths.length, bodyLimit);
    const ctx = createContext(req, res);
    const results = await Promise.all(paths.map((path, index) => call(path, inputs[index], req, ctx)));

    const envelopes = results.map((result, index) =>
      result.ok ? { result: { data: result.data } } : { error: trpcErrorShape(result.wire, paths[index]) },
    );
    const statuses = new Set(results.map((result) => (result.ok ? 200 : result.wire.status)));
    res.statusCode = statuses.size === 1 ? (statuses.values().next().value as number) : 207;
    for (const result of results) {
      if (!result.ok) for (const [name, value] of Object.entries(result.wire.headers)) res.setHeader(name, value);
    }
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(JSON.stringify(batch ? envelopes : envelopes[0]));
  };
}
