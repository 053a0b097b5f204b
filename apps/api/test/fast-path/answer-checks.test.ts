/**
 * The compiled answer checks (answer-checks.ts) as tRPC callers see them: an answer the check
 * passes comes back as it is; any other answer gets zod's verdict through tRPC's own answer
 * check (stripped extra keys, or "Output validation failed"); and every procedure of the
 * service has its answers checked by compiled code.
 */
import { initTRPC, TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answersDecidedByZod, useCompiledAnswerChecks } from '../../src/fast-path/answer-checks.js';
import { answersCheckedByZodAlone, appRouter } from '../../src/procedures/routers/index.js';
import { call, evmWallet, signIn, solanaWallet, startApi } from '../harness.js';

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

describe('the real answers of every procedure', () => {
  it('all pass the compiled check: none had to go to zod', async () => {
    const api = await startApi('postgres', { env: { SEED_PROVIDERS: '3' } });
    try {
      const evm = await signIn(api, evmWallet());
      const other = await signIn(api, evmWallet());
      await signIn(api, solanaWallet());
      const token = evm.token;
      const replies = [
        await call(api, 'GET', `/auth/nonce?wallet=${evmWallet().address}`),
        await call(api, 'GET', '/providers'),
        await call(api, 'GET', '/providers?sortBy=createdAt&order=asc&limit=2'),
        await call(api, 'GET', '/providers/1'),
        await call(api, 'GET', '/providers/1/stats'),
        await call(api, 'POST', '/providers/1/follow', { token }),
        await call(api, 'GET', '/me', { token }),
        await call(api, 'GET', '/me/following', { token }),
        await call(api, 'DELETE', '/providers/1/follow', { token }),
        await call(api, 'GET', '/me/sessions', { token }),
        await call(api, 'DELETE', `/me/sessions/${evm.sessionId}`, { token: other.token }),
        await call(api, 'POST', '/auth/logout', { token: other.token, body: { scope: 'all' } }),
      ];
      // The DELETE of another user's session is a 404; everything else a 200.
      expect(replies.map((reply) => reply.status)).toEqual([
        200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 404, 200,
      ]);
      // (The routers made above share the record under their own procedure names.)
      const service = Object.keys(appRouter._def.procedures);
      const decided = [...answersDecidedByZod()].filter(([path]) => service.includes(path));
      expect(Object.fromEntries(decided)).toEqual({});
    } finally {
      await api.stop();
    }
  });
});
