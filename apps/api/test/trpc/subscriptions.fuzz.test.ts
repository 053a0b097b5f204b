/**
 * Property-based fuzzing of the two subscriptions (`events.stream`, `signals.live`), which the
 * other fuzz properties leave out because a stream they open stays open. Here each case opens
 * one, reads its head (and, when it streams, its first message), then leaves. Inputs start from
 * valid ones (real event ids and log indexes, real providers) and are mutated; the resume point
 * also comes as `Last-Event-ID` or in the query; every kind of credential; odd methods and
 * `Accept` headers. Properties: below 500; a refusal is the contract's status with tRPC's JSON
 * error before any stream (never a 200 with an error event, CONTRACT.md Version 4); a 200 is
 * `text/event-stream` whose first message is `connected`. After the run, no stream slot leaked:
 * each credential opens STREAMS_PER_CREDENTIAL streams at once again. SUBSCRIPTION_FUZZ_RUNS sets
 * the number of cases (default 300).
 */
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { until } from '../events-support.js';
import { checkReply, type Json, mutate, mutation, pct } from '../fuzz-support.js';
import { call, createServiceKey, evmWallet, signIn, useApi } from '../harness.js';
import type { RawReply } from '../raw-http.js';
import { rawLive } from '../signals/live-support.js';

const RUNS = Number(process.env.SUBSCRIPTION_FUZZ_RUNS ?? 300);
/** STREAMS_PER_CREDENTIAL: low, so that a leaked slot shows. */
const CAP = 3;

interface StreamReply extends RawReply {
  /** The first server-sent message of a 200 (or '' when none came in time). */
  first: string;
}

/**
 * One request to a subscription: resolves with its status, head and body when the server ends
 * the answer (a refusal), or with its first message when it streams, then leaves (the socket is
 * destroyed, as a client that goes away).
 */
function openOnce(
  url: string,
  request: { method: string; path: string; headers: Record<string, string> },
): Promise<StreamReply> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port: Number(port), ...request }, (res) => {
      const headers = Object.fromEntries(
        Object.entries(res.headers).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join(', ') : (value ?? ''),
        ]),
      );
      let text = '';
      const done = () => {
        clearTimeout(timer);
        req.destroy();
        const first = res.statusCode === 200 ? (text.split('\n\n')[0] ?? '') : '';
        resolve({ status: res.statusCode ?? 0, headers, text, first });
      };
      // A stream that sends nothing within the bound is judged by what it sent: nothing.
      const timer = setTimeout(done, 3_000);
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        if (res.statusCode === 200 && text.includes('\n\n')) done();
      });
      res.on('end', done);
      res.on('error', done);
    });
    req.on('error', reject);
    // A server that never answers fails the case (rather than hanging the run).
    const headTimer = setTimeout(() => {
      req.destroy();
      reject(
        new Error(`no answer's head within 5 s: ${request.method} ${request.path} ${JSON.stringify(request.headers)}`),
      );
    }, 5_000);
    req.on('response', () => clearTimeout(headTimer));
    req.end();
  });
}

describe('fuzzing the subscriptions', () => {
  const adminKey = `admin-${'s'.repeat(40)}`;
  const api = useApi('postgres', {
    env: { SEED_PROVIDERS: '5', SEED_SIGNAL_PROVIDERS: '3', ADMIN_KEY: adminKey, STREAMS_PER_CREDENTIAL: `${CAP}` },
  });
  /** None, a live user (following two providers), a signed-out session, the admin key, keys with and without the scopes, an unknown key, garbage. */
  const tokens = {
    user: '',
    revoked: '',
    admin: adminKey,
    reader: '',
    otherScope: '',
    unknownKey: `sgk_${'A'.repeat(43)}`,
    garbage: 'a.b.c',
  };
  const known = { providers: [] as number[], logIndexes: [] as string[], eventIds: [] as string[] };

  beforeAll(async () => {
    ({ token: tokens.revoked } = await signIn(api, evmWallet()));
    expect((await call(api, 'POST', '/auth/logout', { token: tokens.revoked })).status).toBe(200);
    ({ token: tokens.user } = await signIn(api, evmWallet()));
    tokens.reader = await createServiceKey(api, adminKey, 'fuzz reader', ['signals:read', 'events:read']);
    tokens.otherScope = await createServiceKey(api, adminKey, 'fuzz other', ['providers:write']);
    const page = await call(api, 'GET', '/providers?limit=100');
    known.providers = page.body.items.map((provider: { id: number }) => provider.id);
    for (const id of known.providers.slice(0, 2)) {
      expect((await call(api, 'POST', `/providers/${id}/follow`, { token: tokens.user })).status).toBe(200);
    }
    const checkpoint = await call(api, 'GET', '/log/checkpoint');
    const size = Number(String(checkpoint.body).split('\n')[1]);
    expect(size).toBeGreaterThan(0);
    known.logIndexes = ['0', String(size - 1), String(size), String(size + 1)];
    const events = await call(api, 'GET', '/events?limit=5', { token: tokens.reader });
    expect(events.status).toBe(200);
    known.eventIds = events.body.items.map((event: { id: string }) => event.id);
    expect(known.eventIds.length).toBeGreaterThan(0);
  });

  /** `value` in one case of `every`, else null. */
  const sometimes = <T>(value: fc.Arbitrary<T>, every: number) =>
    fc.oneof({ weight: every - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: value });
  const subscription = fc.constantFrom('signals.live', 'events.stream');
  const resumePoint = () =>
    fc.oneof(
      fc.constantFrom(...known.logIndexes, ...known.eventIds),
      fc.constantFrom('', '-1', '01', '1e3', 'x1', '99999999999999999999', ' 1', 'null', '\u00e9'),
      fc.string({ maxLength: 80 }),
    );
  /** A valid input of either subscription, then mutated like the other fuzz properties' bodies. */
  const input = () =>
    fc.oneof(
      { weight: 1, arbitrary: fc.constant(undefined) },
      {
        weight: 4,
        arbitrary: fc
          .record(
            {
              lastEventId: fc.oneof(
                { weight: 3, arbitrary: fc.constantFrom(...known.logIndexes.slice(0, 2)) },
                resumePoint(),
              ),
              providerIds: fc.array(fc.constantFrom(...known.providers, 999_999), { maxLength: 4 }),
              types: fc.subarray(['signal.opened', 'follow.created', 'provider.created', 'nope'], { minLength: 1 }),
            },
            { requiredKeys: [] },
          )
          .chain((valid) =>
            fc.oneof(
              { weight: 3, arbitrary: fc.constant(valid as Json) },
              {
                weight: 2,
                arbitrary: fc
                  .array(mutation, { minLength: 1, maxLength: 3 })
                  .map((steps) => steps.reduce(mutate, valid as Json)),
              },
            ),
          ),
      },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    );
  const request = () =>
    fc.record({
      subscription,
      method: fc.oneof(
        { weight: 8, arbitrary: fc.constant('GET') },
        fc.constantFrom('POST', 'HEAD', 'OPTIONS', 'DELETE'),
      ),
      input: input(),
      /** Raw text instead of JSON in `?input=`. */
      rawInput: sometimes(fc.constantFrom('{', 'undefined', '%', '{"lastEventId":', '[]'), 8),
      lastEventIdHeader: sometimes(resumePoint(), 4),
      lastEventIdQuery: sometimes(resumePoint(), 6),
      credential: fc.constantFrom<keyof typeof tokens | undefined>(
        undefined,
        'user',
        'user',
        'revoked',
        'admin',
        'reader',
        'reader',
        'otherScope',
        'unknownKey',
        'garbage',
      ),
      accept: fc.constantFrom(undefined, 'text/event-stream', 'application/json', '*/*'),
    });

  it(`${RUNS} subscription requests: below 500, refusals before any stream, streams that start`, async () => {
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(request(), async (r) => {
        const query: string[] = [];
        if (r.rawInput !== null) query.push(`input=${pct(r.rawInput)}`);
        else if (r.input !== undefined) query.push(`input=${pct(JSON.stringify(r.input))}`);
        if (r.lastEventIdQuery !== null) query.push(`lastEventId=${pct(r.lastEventIdQuery)}`);
        const headers: Record<string, string> = {};
        if (r.credential) headers.authorization = `Bearer ${tokens[r.credential]}`;
        if (r.accept) headers.accept = r.accept;
        // A header value node:http will send (the fuzz's text may hold any character).
        if (r.lastEventIdHeader !== null) headers['last-event-id'] = pct(r.lastEventIdHeader);
        const req = {
          method: r.method,
          path: `/trpc/${r.subscription}${query.length ? `?${query.join('&')}` : ''}`,
          headers,
        };
        const reply = await openOnce(api.url, req);
        const where = `${req.method} ${req.path} ${JSON.stringify(headers)} → ${reply.status} ${reply.text.slice(0, 300)}`;
        seen.set(String(reply.status), (seen.get(String(reply.status)) ?? 0) + 1);
        if (reply.status === 200) {
          expect(reply.headers['content-type'], where).toMatch(/^text\/event-stream/);
          // A HEAD gets the stream's head and no stream (and gives its slot back at once).
          if (r.method === 'HEAD') {
            expect(reply.text, where).toBe('');
            return;
          }
          // The first message says the stream started; a refusal never comes as an event.
          expect(reply.first, where).toMatch(/^event: connected$/m);
          expect(reply.text, where).not.toMatch(/^event: serialized-error$/m);
          return;
        }
        checkReply(req, reply);
        expect(reply.headers['content-type'] ?? '', where).not.toMatch(/event-stream/);
      }),
      { numRuns: RUNS, interruptAfterTimeLimit: 90_000 },
    );
    console.log(`fuzz: subscriptions answered ${JSON.stringify(Object.fromEntries(seen))}`);
    expect(seen.get('200') ?? 0).toBeGreaterThan(RUNS / 20);
    expect([...seen.keys()].filter((status) => status !== '200').length).toBeGreaterThanOrEqual(3);
    expect((await call(api, 'GET', '/ready')).status).toBe(200);
  }, 120_000);

  const openShare = async (token: string, count: number) => {
    const opened = Array.from({ length: count }, () => rawLive(api.url, token));
    await Promise.all(opened.map((stream) => stream.answered));
    for (const stream of opened) stream.close();
    return opened.map((stream) => stream.status);
  };

  it('gave every stream slot back: each credential opens its full share of streams again', async () => {
    for (const credential of ['user', 'reader', 'admin'] as const) {
      // The last cases' slots come back as the server sees their sockets close; a leaked one never does.
      const allOpen = async () => (await openShare(tokens[credential], CAP)).every((status) => status === 200);
      await until(allOpen, `${credential}'s ${CAP} streams at once`, 40);
      // One more than the share is refused: the cap still holds.
      expect((await openShare(tokens[credential], CAP + 1)).filter((s) => s === 429)).toHaveLength(1);
    }
  });
});
