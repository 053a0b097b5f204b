/**
 * Every procedure of the service's router through the fast path's `runProcedure` (what both
 * transports call) against tRPC's own `createCaller`, with the same inputs and contexts: the
 * same answer, or a failure with the same code and message. Inputs: each procedure's documented
 * example (its meta), and ones it refuses; contexts: anonymous, a signed-in user, the admin key.
 * Mutations that would change data run only where they fail (anonymous, or refused input), so
 * both sides meet the same state. run-procedure.test.ts holds the middleware edge cases.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { runProcedure } from '../../src/http/run-procedure.js';
import { type Context, contextFactory } from '../../src/procedures/context.js';
import { appRouter } from '../../src/procedures/routers/index.js';
import type { Meta } from '../../src/procedures/trpc.js';
import { feedNumbered } from '../events-support.js';
import { evmWallet, signIn } from '../harness.js';
import { outcome } from './outcome.js';
import { useService } from './started-service.js';

const ADMIN_KEY = 'sweep-admin-key-'.padEnd(40, 'x');
const api = useService({ ADMIN_KEY });
const tokens: Record<string, string | undefined> = { anonymous: undefined, admin: ADMIN_KEY };

beforeAll(async () => {
  tokens.user = (await signIn(api, evmWallet())).token;
  // The sign-in's events, numbered by the feed pump before the sweep: else the pump may number
  // them between the two sides' reads of events.feed, which then differ.
  await feedNumbered({ db: api.services.database });
});

/** A real (unconnected) node request and response, as the host hands to the context. */
function contextAs(who: string): Context {
  const req = new IncomingMessage(new Socket());
  req.method = 'POST';
  req.url = '/trpc';
  req.headers = tokens[who] ? { authorization: `Bearer ${tokens[who]}` } : {};
  return contextFactory(api.services)({ req, res: new ServerResponse(req) });
}

const procedures = Object.entries(
  appRouter._def.procedures as unknown as Record<string, { _def: { type: string; meta?: Meta } }>,
).filter(([, procedure]) => procedure._def.type !== 'subscription'); // events.stream: tRPC's own handler serves it.

const calls = procedures.flatMap(([path, { _def }]) => {
  const type = _def.type as 'query' | 'mutation';
  const example = _def.meta?.openapi?.example?.request ?? {};
  // A mutation signed in runs only with input no schema takes (a number): an object with unknown
  // keys is stripped and taken (auth.logout would sign the user out on the first side).
  const everyone = ['anonymous', 'user', 'admin'];
  const who = type === 'query' ? everyone : ['anonymous'];
  return [
    ...who.map((as) => ({ path, type, as, input: example as unknown })),
    ...who.map((as) => ({ path, type, as, input: { __unknown__: [1] } as unknown })),
    ...everyone.map((as) => ({ path, type, as, input: 42 as unknown })),
  ];
});

describe('runProcedure against createCaller, every procedure', () => {
  it('covers every query and mutation of the router', () => {
    expect(new Set(calls.map((c) => c.path)).size).toBe(procedures.length);
    expect(procedures.length).toBeGreaterThan(25);
  });

  it.each(calls)('$path ($type) as $as with $input', async ({ path, type, as, input }) => {
    const ours = await outcome(runProcedure(appRouter, path, type, input, contextAs(as)));
    const caller = appRouter.createCaller(contextAs(as)) as unknown as Record<string, unknown>;
    const procedure = path.split('.').reduce<unknown>((at, key) => (at as Record<string, unknown>)[key], caller);
    const theirs = await outcome((procedure as (input: unknown) => Promise<unknown>)(input));
    expect(ours).toEqual(theirs);
  });
});
