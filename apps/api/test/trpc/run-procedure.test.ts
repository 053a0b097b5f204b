/**
 * run-procedure.ts against tRPC's own `callTRPCProcedure`, on one router whose middlewares do
 * what middlewares may: add to the context, replace the input or the raw input, read the meta,
 * throw before or after `next()`, return a failed result. Each call must give both the same
 * answer, or fail with the same TRPCError (code, message, cause).
 */
import { callTRPCProcedure, initTRPC, TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runProcedure } from '../../src/http/run-procedure.js';
import { outcome } from './outcome.js';

const t = initTRPC
  .context<{ user?: string; trace: string[] }>()
  .meta<{ tag?: string }>()
  .create({ errorFormatter: ({ shape }) => ({ ...shape, formatted: true }) });

const traced = t.procedure.use(async ({ ctx, path, type, meta, next }) => {
  ctx.trace.push(`${type} ${path} ${meta?.tag ?? '-'}`);
  return next({ ctx: { user: 'alice' } });
});

const router = t.router({
  echo: traced
    .meta({ tag: 'echo' })
    .input(z.object({ n: z.coerce.number().int() }))
    .output(z.object({ n: z.number(), user: z.string() }))
    .query(({ input, ctx }) => ({ n: input.n, user: ctx.user ?? 'nobody' })),
  doubled: traced
    .use(async ({ getRawInput, next }) => {
      const raw = (await getRawInput()) as { n: number };
      return next({ getRawInput: async () => ({ n: raw.n * 2 }) });
    })
    .input(z.object({ n: z.number() }))
    .use(({ input, next }) => next({ input: { n: input.n + 1 } }))
    .query(({ input }) => input.n),
  refusedBefore: traced
    .use(() => {
      throw new TRPCError({ code: 'FORBIDDEN', message: 'no' });
    })
    .query(() => 1),
  failsAfter: traced
    .use(async ({ next }) => {
      const result = await next();
      if (result.ok) throw new Error('plain error after next');
      return result;
    })
    .mutation(() => 1),
  badAnswer: traced.output(z.string()).query(() => 5 as unknown as string),
  throwsInResolver: traced.query(() => {
    throw new Error('resolver broke');
  }),
});

const calls: [string, 'query' | 'mutation', unknown][] = [
  ['echo', 'query', { n: '41' }],
  ['echo', 'query', { n: 'x' }],
  ['doubled', 'query', { n: 20 }],
  ['refusedBefore', 'query', undefined],
  ['failsAfter', 'mutation', undefined],
  ['badAnswer', 'query', undefined],
  ['throwsInResolver', 'query', undefined],
  ['echo', 'mutation', { n: 1 }],
  ['nowhere', 'query', undefined],
  ['__proto__', 'query', undefined],
];

describe('runProcedure', () => {
  it.each(calls)('%s as a %s gives what callTRPCProcedure gives', async (path, type, input) => {
    const theirs = { trace: [] as string[] };
    const ours = { trace: [] as string[] };
    const expected = await outcome(
      callTRPCProcedure({
        router,
        path,
        type,
        ctx: theirs,
        getRawInput: async () => input,
        signal: undefined,
        batchIndex: 0,
      }),
    );
    const actual = await outcome(runProcedure(router, path, type, input, ours));
    expect(actual).toEqual(expected);
    expect(ours.trace).toEqual(theirs.trace);
  });

  it('answers as expected where it should (the comparison is not of two failures)', async () => {
    expect(await runProcedure(router, 'echo', 'query', { n: '41' }, { trace: [] })).toEqual({ n: 41, user: 'alice' });
    expect(await runProcedure(router, 'doubled', 'query', { n: 20 }, { trace: [] })).toBe(41);
  });
});
