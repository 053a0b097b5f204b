/**
 * The compiled answer checks (answer-checks.ts) as tRPC callers see them: an answer the check
 * passes comes back as it is; any other answer gets zod's verdict through tRPC's own answer
 * check (stripped extra keys, or "Output validation failed"); and every procedure of the
 * service has its answers checked by compiled code.
 */
import { initTRPC, TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { useCompiledAnswerChecks } from '../src/answer-checks.js';
import { answersCheckedByZodAlone, appRouter } from '../src/routers/index.js';

const t = initTRPC.create();

describe('compiled answer checks', () => {
  it('cover every procedure of the service that declares an answer', () => {
    const withOutput = Object.entries(appRouter._def.procedures).filter(
      ([, procedure]) => (procedure as unknown as { _def: { output?: unknown } })._def.output,
    );
    expect(withOutput.length).toBeGreaterThanOrEqual(12);
    expect(answersCheckedByZodAlone).toEqual([]);
  });

  it('pass a valid answer through unchanged, and leave anything else to zod', async () => {
    // Whatever the test sets: the answers are typed loosely on purpose.
    // biome-ignore lint/suspicious/noExplicitAny: answers of every shape, valid or not
    let answer: any;
    const router = t.router({
      item: t.procedure.output(z.object({ id: z.number().int(), at: z.iso.datetime() })).query(() => answer),
      either: t.procedure.output(z.union([z.string(), z.number()])).query(() => answer),
    });
    expect(useCompiledAnswerChecks(router)).toEqual(['either']);
    // Once is enough: a second call finds its own check and changes nothing.
    expect(useCompiledAnswerChecks(router)).toEqual(['either']);
    const caller = t.createCallerFactory(router)({});

    answer = { id: 1, at: '2026-11-26T08:00:00.000Z' };
    expect(await caller.item()).toBe(answer);

    // An extra key: zod strips it, as it always did.
    answer = { id: 1, at: '2026-11-26T08:00:00.000Z', secret: 'x' };
    expect(await caller.item()).toEqual({ id: 1, at: '2026-11-26T08:00:00.000Z' });

    answer = { id: 1.5, at: '2026-11-26T08:00:00.000Z' };
    const failure = await caller.item().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TRPCError);
    expect(failure).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', message: 'Output validation failed' });

    answer = 7;
    expect(await caller.either()).toBe(7);
  });
});
