/**
 * Abuse limits beyond sign-in: follows and unfollows per user, public catalogue reads per client
 * address, and the RateLimit fields every 429 carries (readable by an allowed browser origin).
 */
import type { Backend } from '@signal/db';
import { describe, expect, it } from 'vitest';
import { call, evmWallet, expectError, type Reply, signIn, type TestApi, useApi } from '../harness.js';
import { httpCall } from '../raw-http.js';

const FOLLOW_LIMIT = 4;
const READ_LIMIT = 5;
const AUTH_LIMIT = 3;
const MINUTE = 60_000;
const ORIGIN = 'https://app.example';

function toWindowStart(api: TestApi) {
  api.advanceClock(MINUTE - (api.now().getTime() % MINUTE) + 50);
}

/** A 429 of the named limit: Retry-After, and the IETF RateLimit fields that agree with it. */
function expectLimited(reply: Reply, policy: string, quota: number) {
  expectError(reply, 429, 'RATE_LIMITED');
  const retryAfter = reply.headers.get('retry-after');
  expect(retryAfter).toMatch(/^[1-9][0-9]*$/);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
  expect(reply.headers.get('ratelimit-policy')).toBe(`"${policy}";q=${quota};w=60`);
  expect(reply.headers.get('ratelimit')).toBe(`"${policy}";r=0;t=${retryAfter}`);
}

const trpcQuery = (path: string, input: unknown) => `/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`;

function limitTests(backend: Backend) {
  describe(`rate limits on ${backend}`, () => {
    const api = useApi(backend, {
      env: {
        SEED_PROVIDERS: '3',
        FOLLOW_RATE_LIMIT_PER_MINUTE: String(FOLLOW_LIMIT),
        READ_RATE_LIMIT_PER_MINUTE: String(READ_LIMIT),
        AUTH_RATE_LIMIT_PER_MINUTE: String(AUTH_LIMIT),
        CORS_ORIGINS: ORIGIN,
      },
    });

    it(`follows and unfollows: ${FOLLOW_LIMIT} a minute per user over REST and tRPC together, then 429`, async () => {
      toWindowStart(api);
      const { token } = await signIn(api, evmWallet());
      const other = await signIn(api, evmWallet());
      const remaining: (string | null)[] = [];
      for (const [method, path] of [
        ['POST', '/providers/1/follow'],
        ['DELETE', '/providers/1/follow'],
        ['POST', '/providers/2/follow'],
      ] as const) {
        const reply = await call(api, method, path, { token });
        expect(reply.status).toBe(200);
        remaining.push(reply.headers.get('ratelimit'));
      }
      expect(remaining.map((r) => r?.replace(/;t=\d+$/, ''))).toEqual(['"follow";r=3', '"follow";r=2', '"follow";r=1']);
      const overTrpc = await call(api, 'POST', '/trpc/providers.follow', { token, body: { id: 3 } });
      expect(overTrpc.status).toBe(200);
      const refused = await call(api, 'POST', '/providers/3/follow', { token, headers: { origin: ORIGIN } });
      expectLimited(refused, 'follow', FOLLOW_LIMIT);
      // An allowed page can read them.
      expect(refused.headers.get('access-control-expose-headers')).toMatch(/RateLimit, RateLimit-Policy/);
      const refusedTrpc = await call(api, 'POST', '/trpc/providers.unfollow', { token, body: { id: 3 } });
      expect(refusedTrpc.status).toBe(429);
      expect(refusedTrpc.body.error).toMatchObject({ code: -32029, data: { code: 'RATE_LIMITED', httpStatus: 429 } });
      expect(refusedTrpc.headers.get('ratelimit-policy')).toBe(`"follow";q=${FOLLOW_LIMIT};w=60`);
      // Nothing changed: the refused follow did not happen.
      const following = await call(api, 'GET', '/me/following', { token });
      expect(following.body.items.map((p: { id: number }) => p.id).sort()).toEqual([2, 3]);

      // Per user: another user is not affected; the next window starts from zero.
      expect((await call(api, 'POST', '/providers/1/follow', { token: other.token })).status).toBe(200);
      api.advanceClock(MINUTE);
      expect((await call(api, 'DELETE', '/providers/3/follow', { token })).status).toBe(200);
    });

    it(`public reads: ${READ_LIMIT} a minute per client address across list, detail and stats, then 429`, async () => {
      toWindowStart(api);
      const reads = [
        () => call(api, 'GET', '/providers'),
        () => call(api, 'GET', '/providers/1'),
        () => call(api, 'GET', '/providers/1/stats'),
        () => call(api, 'GET', trpcQuery('providers.get', { id: 2 })),
        () => call(api, 'GET', '/providers/999'),
      ];
      const statuses = [];
      for (const read of reads) statuses.push((await read()).status);
      expect(statuses).toEqual([200, 200, 200, 200, 404]);
      const refused = await call(api, 'GET', '/providers?limit=5');
      expectLimited(refused, 'read', READ_LIMIT);
      const refusedTrpc = await call(api, 'GET', trpcQuery('providers.stats', { id: 1 }));
      expect(refusedTrpc.body.error.data).toMatchObject({ code: 'RATE_LIMITED', httpStatus: 429 });

      // Another client address still reads; signed-in reads of one's own data are not catalogue reads.
      const elsewhere = await httpCall(api.url, { method: 'GET', path: '/providers/1', localAddress: '127.0.0.2' });
      expect(elsewhere.status).toBe(200);
      // A successful read carries no RateLimit field: shared caches may keep it for other clients.
      expect(elsewhere.headers.ratelimit).toBeUndefined();
      api.advanceClock(MINUTE);
      expect((await call(api, 'GET', '/providers/1')).status).toBe(200);
    });

    it('sign-in limit: the 429 names its endpoint in the RateLimit fields', async () => {
      toWindowStart(api);
      const nonce = () => call(api, 'GET', `/auth/nonce?wallet=${evmWallet().address}`);
      for (let i = 0; i < AUTH_LIMIT; i++) {
        const reply = await nonce();
        expect(reply.status).toBe(200);
        expect(reply.headers.get('ratelimit')).toMatch(new RegExp(`^"auth.nonce";r=${AUTH_LIMIT - 1 - i};t=\\d+$`));
      }
      expectLimited(await nonce(), 'auth.nonce', AUTH_LIMIT);
    });
  });
}

limitTests('postgres');
limitTests('pglite');
