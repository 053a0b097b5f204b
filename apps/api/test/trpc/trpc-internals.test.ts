/**
 * The tripwire: every part of tRPC that the own tRPC transport and procedure call (src/http/trpc.ts,
 * src/http/run-procedure.ts) and the host's tRPC
 * envelope (src/wire/trpc-errors.ts) rely on beyond tRPC's documented API, each named in one
 * test. A tRPC upgrade that moves any of them fails here, by name, before anything subtler
 * fails elsewhere (the differential tests beside this file then say what changed on the wire).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { initTRPC, TRPCError } from '@trpc/server';
import { nodeHTTPRequestHandler } from '@trpc/server/adapters/node-http';
import {
  getStatusCodeFromKey,
  getTRPCErrorFromUnknown,
  middlewareMarker,
  TRPC_ERROR_CODES_BY_KEY,
} from '@trpc/server/unstable-core-do-not-import';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ProcedureDef, procedureAt, runProcedure } from '../../src/http/run-procedure.js';
import { appRouter } from '../../src/procedures/routers/index.js';
import { jsonRpcCode } from '../../src/wire/trpc-errors.js';

const t = initTRPC.context<{ seen: string[][] }>().meta<{ tag: string }>().create();
const recorded = t.procedure.use((opts) => {
  opts.ctx.seen.push(Object.keys(opts).sort());
  return opts.next();
});
const router = t.router({
  nested: t.router({
    echo: recorded
      .meta({ tag: 'x' })
      .input(z.object({ n: z.number() }))
      .output(z.object({ n: z.number() }))
      .query(({ input }) => input),
  }),
  write: recorded.mutation(() => 1),
});

describe('the tRPC internals the fast path relies on', () => {
  it('@trpc/server is the version these tests were written against', () => {
    // pnpm-workspace.yaml pins it (catalog): move both together.
    const manifest = createRequire(import.meta.url).resolve('@trpc/server/package.json');
    expect(JSON.parse(readFileSync(manifest, 'utf8')).version).toBe('11.25.2');
  });

  it('unstable-core-do-not-import exports getTRPCErrorFromUnknown and middlewareMarker (run-procedure.ts, write-transaction.ts)', () => {
    expect(typeof getTRPCErrorFromUnknown).toBe('function');
    expect(getTRPCErrorFromUnknown(new Error('x'))).toBeInstanceOf(TRPCError);
    expect(middlewareMarker).toBeDefined();
  });

  it('router._def.procedures is one flat record by dotted path (procedureAt, rest.ts, trpc-stream.ts)', () => {
    expect(Object.keys(router._def.procedures).sort()).toEqual(['nested.echo', 'write']);
    expect(Object.keys(appRouter._def.procedures)).toContain('providers.list');
  });

  it("a procedure's _def has type, meta, inputs, output and middlewares (ProcedureDef)", () => {
    // Typed by tRPC as nested routers; at run time one flat record (the test above).
    const def = (procedureAt(router, 'nested.echo') as { _def: ProcedureDef & { inputs: unknown[] } } | undefined)
      ?._def;
    expect(def?.type).toBe('query');
    expect(def?.meta).toEqual({ tag: 'x' });
    expect(def?.inputs).toHaveLength(1);
    expect(def?.output).toBeDefined();
    expect(Array.isArray(def?.middlewares)).toBe(true);
    expect(def?.middlewares.every((m) => typeof m === 'function')).toBe(true);
  });

  it('a middleware is called with the options runProcedure passes, no more, no fewer', async () => {
    const viaTrpc: string[][] = [];
    await router.createCaller({ seen: viaTrpc }).nested.echo({ n: 1 });
    const viaFastPath: string[][] = [];
    await runProcedure(router, 'nested.echo', 'query', { n: 1 }, { seen: viaFastPath });
    expect(viaFastPath).toEqual(viaTrpc);
    expect(viaTrpc[0]).toEqual(
      ['batchIndex', 'ctx', 'getRawInput', 'input', 'meta', 'next', 'path', 'signal', 'type'].sort(),
    );
  });

  it("a middleware's result carries tRPC's marker (write-transaction.ts returns one of its own)", async () => {
    let result: unknown;
    const probe = t.procedure
      .use(async ({ next }) => {
        result = await next();
        return result as never;
      })
      .query(() => 1);
    await t.router({ probe }).createCaller({ seen: [] }).probe();
    expect(result).toMatchObject({ ok: true, data: 1, marker: middlewareMarker });
  });

  it("the JSON-RPC code of each status is tRPC's (wire/trpc-errors.ts keeps its own table)", () => {
    // The statuses the service answers (CONTRACT.md's error table); tRPC's others (402, 412, 428,
    // 499) no code of the contract answers. For 400, the one tRPC's table gives is BAD_REQUEST's.
    const statuses = [400, 401, 403, 404, 405, 408, 409, 413, 415, 422, 429];
    const differing = Object.entries(TRPC_ERROR_CODES_BY_KEY)
      .map(([key, code]) => ({ key, code, status: getStatusCodeFromKey(key as keyof typeof TRPC_ERROR_CODES_BY_KEY) }))
      .filter(({ key, status }) => statuses.includes(status) && key !== 'PARSE_ERROR')
      .filter(({ code, status }) => jsonRpcCode(status) !== code);
    expect(differing).toEqual([]);
  });

  it('adapters/node-http exports nodeHTTPRequestHandler (http/trpc-stream.ts serves subscriptions with it)', () => {
    expect(typeof nodeHTTPRequestHandler).toBe('function');
  });

  it("tRPC's answer check gives the parsed answer with the marker and refuses a wrong one (its line patched: patches/@trpc__server@11.25.2.patch)", async () => {
    const results: unknown[] = [];
    const outer = t.procedure.use(async ({ next }) => {
      const result = await next();
      results.push(result);
      return result;
    });
    const answer = z.object({ n: z.number() });
    const checked = t.router({
      strips: outer.output(answer).query(() => ({ n: 1, secret: 'x' }) as never),
      wrong: outer.output(answer).query(() => ({ n: 'one' }) as never),
    });
    const calls = [
      (path: 'strips' | 'wrong') => checked.createCaller({ seen: [] })[path](),
      (path: 'strips' | 'wrong') => runProcedure(checked, path, 'query', undefined, { seen: [] }),
    ];
    for (const call of calls) {
      await expect(call('strips')).resolves.toStrictEqual({ n: 1 });
      await expect(call('wrong')).rejects.toMatchObject({
        code: 'INTERNAL_SERVER_ERROR',
        message: 'Output validation failed',
      });
    }
    // The result around the check: the parsed answer in `data`, the rest of the resolver's result kept.
    expect(results[0]).toMatchObject({ ok: true, marker: middlewareMarker });
    expect((results[0] as { data: unknown }).data).toStrictEqual({ n: 1 });
    expect(results[2]).toStrictEqual(results[0]);
  });

  it('a procedure missing at a path throws NOT_FOUND from runProcedure as from createCaller', async () => {
    await expect(runProcedure(router, 'nested', 'query', undefined, { seen: [] })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});
