/**
 * The one procedure call both transports make (http/rest.ts, http/trpc.ts): a procedure run as
 * tRPC 11's own `callTRPCProcedure` runs it, through its middleware chain (tRPC's error
 * formatting, our middlewares, the input check, the answer check, the resolver), with the same
 * options at every level, the same merging of `next({ ctx, input })`, and a throw turned into a
 * failed result by `getTRPCErrorFromUnknown` at the level that threw, as tRPC does.
 *
 * What differs is the cost. tRPC builds each level's options by copying the previous level's
 * twice (object spreads compiled to a helper, `_objectSpread2`), plus the procedure lookup's
 * own async step; here each level gets one object literal. tRPC's own call in its place, given
 * only the five options it needs, counted 692k instructions a detail request against 462k with
 * this one: +206k in V8's descriptor copying, zod's and tRPC's own code unchanged (BENCH.md,
 * "Where the service's CPU went"). It reads the procedure's `_def` (its middlewares,
 * type and meta; `ProcedureDef` below); tRPC is pinned to one version (the catalog in
 * pnpm-workspace.yaml, checked by test/trpc/trpc-internals.test.ts), and the whole API
 * test suite runs through this call. With this call, tRPC's `_objectSpread2` runs only while
 * the router is built, never per request, so the pnpm patch that once sped it up is gone
 * (LAB-NOTES.md, "Instructions per request").
 */
import { type AnyRouter, TRPCError } from '@trpc/server';
import { getTRPCErrorFromUnknown, middlewareMarker } from '@trpc/server/unstable-core-do-not-import';
import type { z } from 'zod';

interface Level {
  ctx: object;
  type: 'query' | 'mutation';
  path: string;
  input: unknown;
  getRawInput: () => Promise<unknown>;
}

interface NextOptions {
  ctx?: object;
  input?: unknown;
  getRawInput?: () => Promise<unknown>;
}

export type MiddlewareResult = { ok: true; data: unknown } | { ok: false; error: TRPCError };

export type Middleware = (
  opts: Level & {
    signal: undefined;
    batchIndex: number;
    meta: unknown;
    next: (opts?: NextOptions) => Promise<MiddlewareResult>;
  },
) => Promise<MiddlewareResult>;

/** What this service reads of a tRPC 11 procedure's `_def`. */
export interface ProcedureDef {
  type: string;
  meta?: unknown;
  /** The schema its `.output()` names, if any. */
  output?: z.ZodType;
  middlewares: Middleware[];
}

/** A throw at a level, as tRPC turns it into that level's result. */
const failed = (cause: unknown) =>
  ({ ok: false, error: getTRPCErrorFromUnknown(cause), marker: middlewareMarker }) as MiddlewareResult;

/**
 * One level of the chain. Not an async function: the middleware's own promise carries the
 * result, and a rejection becomes the failed result by one handler on it (no frame and no await
 * per level; the chain of a protected procedure is four or five levels deep on every request).
 */
function runLevel(def: ProcedureDef, index: number, level: Level): Promise<MiddlewareResult> {
  try {
    const middleware = def.middlewares[index] as Middleware;
    return Promise.resolve(
      middleware({
        ctx: level.ctx,
        type: level.type,
        path: level.path,
        input: level.input,
        getRawInput: level.getRawInput,
        signal: undefined,
        batchIndex: 0,
        meta: def.meta,
        next: (next) =>
          runLevel(def, index + 1, {
            ctx: next?.ctx ? { ...level.ctx, ...next.ctx } : level.ctx,
            type: level.type,
            path: level.path,
            input: next && 'input' in next ? next.input : level.input,
            getRawInput: next?.getRawInput ?? level.getRawInput,
          }),
      }),
    ).then(undefined, failed);
  } catch (cause) {
    return Promise.resolve(failed(cause));
  }
}

/** The router's procedure at `path`, if it has one of its own (never one of Object's). */
export function procedureAt(router: AnyRouter, path: string): { _def: ProcedureDef } | undefined {
  const procedures = router._def.procedures as Record<string, { _def: ProcedureDef } | undefined>;
  return Object.hasOwn(procedures, path) ? procedures[path] : undefined;
}

/** Runs the procedure at `path` with `input` (before its input check); failures are thrown as TRPCErrors. */
export async function runProcedure(
  router: AnyRouter,
  path: string,
  type: 'query' | 'mutation',
  input: unknown,
  ctx: object,
): Promise<unknown> {
  const procedure = procedureAt(router, path);
  if (!procedure || procedure._def.type !== type) {
    throw new TRPCError({ code: 'NOT_FOUND', message: `No "${type}"-procedure on path "${path}"` });
  }
  const result = await runLevel(procedure._def, 0, {
    ctx,
    type,
    path,
    input: undefined,
    getRawInput: () => Promise.resolve(input),
  });
  if (!result) {
    throw new TRPCError({
      code: 'INTERNAL_SERVER_ERROR',
      message: 'No result from middlewares - did you forget to `return next()`?',
    });
  }
  if (!result.ok) throw result.error;
  return result.data;
}
