/**
 * The answer cache (ANSWER_CACHE_MB, http/answer-cache.ts): built public answers reused while
 * their data's version is unchanged, and never once it changed.
 *
 * On PostgreSQL, two servers with the cache share one database, the second through a
 * transaction-mode PgBouncer (direct, and said so, where PgBouncer is not installed outside
 * CI), and a third server with the cache off answers every read as the truth to compare with.
 * After each kind of write on server A (a follow, an unfollow, a rename, a publication, an
 * archive, a restore), every cached route read on server B, without If-None-Match, with the
 * ETag B gave before the write, and with a token, answers what the uncached server answers,
 * while /metrics shows that unchanged reads were answered from kept answers. The byte budget
 * holds under a scan of 10,000 distinct pages; the stats' time bound (followers gained in 7 / 30
 * days move with the clock) is crossed by moving B's clock. The same on PGlite with one server.
 */
import { randomBytes } from 'node:crypto';
import { createPooledScratchDatabase, type PooledScratchDatabase } from '@signal/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, evmWallet, signIn, startApi, type TestApi } from '../harness.js';
import { signingKeyPem } from '../process.js';
import { parsePrometheusText, sampleValue } from '../prometheus-text.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
const PROVIDERS = 12;
/** The provider every write of a round touches. */
const P = 5;

/** Every cached route, with the sorts and filters a write can change. */
const PATHS = [
  '/providers',
  '/providers?limit=5&sortBy=followerCount&order=desc',
  '/providers?limit=5&page=2&sortBy=name&order=asc',
  '/providers?minFollowers=1&limit=50',
  '/providers?q=renamed&limit=50',
  '/providers?minRoi30dPct=0&limit=50&sortBy=roi30d',
  `/providers/${P}`,
  `/providers/${P}/stats`,
  `/providers/${P}/performance`,
  `/providers/${P}/performance?window=7d`,
  '/providers/2',
];

async function metric(api: TestApi, name: string): Promise<number> {
  const text = (await call(api, 'GET', '/metrics')).body as string;
  return sampleValue(parsePrometheusText(text), name);
}

const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/** The writes of one round, made on `a`. */
function writes(a: TestApi, token: () => string) {
  return [
    ['follow', () => call(a, 'POST', `/providers/${P}/follow`, { token: token() })],
    ['unfollow', () => call(a, 'DELETE', `/providers/${P}/follow`, { token: token() })],
    ['follow again', () => call(a, 'POST', `/providers/${P}/follow`, { token: token() })],
    ['rename', () => call(a, 'PATCH', `/providers/${P}`, { token: ADMIN_KEY, body: { name: 'Renamed provider' } })],
    [
      'publish',
      () =>
        call(a, 'POST', `/providers/${P}/performance`, {
          token: ADMIN_KEY,
          body: {
            points: [
              { date: day(-40), nav: 100 },
              { date: day(-20), nav: 104 },
              { date: day(-3), nav: 111 },
              { date: day(-1), nav: 112.5 },
            ],
            signals: { total: 9, winning: 6, avgReturnPct: 1.25, lastSignalAt: new Date().toISOString() },
          },
        }),
    ],
    ['archive', () => call(a, 'DELETE', `/providers/${P}`, { token: ADMIN_KEY })],
    ['restore', () => call(a, 'PATCH', `/providers/${P}`, { token: ADMIN_KEY, body: { archived: false } })],
  ] as const;
}

/** B's answer equals the truth's: status and body, as JSON. */
async function sameAnswer(b: TestApi, truth: TestApi, path: string, options: Parameters<typeof call>[3], why: string) {
  const [seen, expected] = [await call(b, 'GET', path, options), await call(truth, 'GET', path)];
  expect(seen.status, `${why}: ${path}`).toBe(expected.status);
  expect(seen.body, `${why}: ${path}`).toEqual(expected.body);
  return seen;
}

describe('the answer cache on two servers sharing PostgreSQL, one through PgBouncer', () => {
  let scratch: PooledScratchDatabase;
  let a: TestApi;
  let b: TestApi;
  let truth: TestApi;
  let token: string;

  beforeAll(async () => {
    scratch = await createPooledScratchDatabase('server B connects');
    // One signing key: page cursors are sealed with it, so all three give the same bytes.
    const env = { ADMIN_KEY, SEED_PROVIDERS: String(PROVIDERS), METRICS: 'true', JWT_PRIVATE_KEY: signingKeyPem() };
    a = await startApi('postgres', { databaseUrl: scratch.url, env });
    b = await startApi('postgres', { databaseUrl: scratch.pooledUrl, env });
    truth = await startApi('postgres', { databaseUrl: scratch.url, env: { ...env, ANSWER_CACHE_MB: '0' } });
    token = (await signIn(a, evmWallet())).token;
  }, 60_000);
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await truth?.stop();
    await scratch?.drop();
  });

  it('a write on A is seen by the next read on B, with and without If-None-Match and with a token', async () => {
    for (const [what, write] of writes(a, () => token)) {
      // B keeps every answer (read twice: the second is a kept one) and gives its tags.
      const tags = new Map<string, string | null>();
      for (const path of PATHS) {
        await call(b, 'GET', path);
        tags.set(path, (await call(b, 'GET', path)).headers.get('etag'));
      }
      const hits = await metric(b, 'signal_answer_cache_hits_total');
      // Unchanged data: every read on B is answered from a kept answer (and agrees with the truth).
      for (const path of PATHS) await sameAnswer(b, truth, path, {}, `${what}, before`);
      const unchanged = (await metric(b, 'signal_answer_cache_hits_total')) - hits;
      // Paths of an archived provider are 404s, built every time.
      expect(unchanged, what).toBeGreaterThanOrEqual(what === 'restore' ? PATHS.length - 4 : PATHS.length);

      const reply = await write();
      expect(reply.status, `${what}: ${JSON.stringify(reply.body)}`).toBe(200);

      for (const path of PATHS) {
        await sameAnswer(b, truth, path, {}, `${what}, after`);
        const tag = tags.get(path);
        if (tag) {
          const revalidated = await call(b, 'GET', path, { headers: { 'if-none-match': tag } });
          const expected = await call(truth, 'GET', path);
          if (revalidated.status === 304) {
            // Only when nothing this route answers changed.
            expect(revalidated.headers.get('etag'), `${what}: ${path}`).toBe(tag);
            expect(expected.headers.get('etag'), `${what}: ${path}`).toBe(tag);
          } else {
            expect(revalidated.status, `${what}: ${path}`).toBe(expected.status);
            expect(revalidated.body, `${what}: ${path}`).toEqual(expected.body);
          }
        }
        const authed = await sameAnswer(b, truth, path, { token }, `${what}, with a token`);
        expect(authed.headers.get('etag'), path).toBeNull();
        expect(authed.headers.get('cache-control'), path).toBe('no-store');
      }
    }
  });

  it('an archived provider is never answered from a kept answer; a changed filter result never either', async () => {
    const filtered = '/providers?minFollowers=1&limit=50&sortBy=id&order=asc';
    const ids = (body: { items: { id: number }[] }) => body.items.map((p) => p.id);
    // A provider nobody follows yet, so outside the filter: a new one (the seed may have given
    // every seeded provider a follower), created on A and listed on B, with the highest id.
    const created = await call(a, 'POST', '/providers', { token: ADMIN_KEY, body: { name: 'Nobody Follows Yet' } });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    expect(ids((await call(b, 'GET', '/providers?limit=50&sortBy=createdAt')).body)).toContain(id);
    expect(ids((await call(b, 'GET', filtered)).body)).not.toContain(id);
    const paths = [`/providers/${id}`, `/providers/${id}/stats`, `/providers/${id}/performance`];
    for (const path of [...paths, filtered]) {
      expect((await call(b, 'GET', path)).status, path).toBe(200);
      expect((await call(b, 'GET', path, { token })).status, path).toBe(200);
    }
    // Followed on A: it now passes the filter on B at once.
    expect((await call(a, 'POST', `/providers/${id}/follow`, { token })).status).toBe(200);
    expect(ids((await call(b, 'GET', filtered)).body)).toContain(id);
    expect(ids((await call(b, 'GET', filtered, { token })).body)).toContain(id);

    expect((await call(a, 'DELETE', `/providers/${id}`, { token: ADMIN_KEY })).status).toBe(200);
    for (const path of paths) {
      expect((await call(b, 'GET', path)).status, path).toBe(404);
      expect((await call(b, 'GET', path, { token })).status, path).toBe(404);
      expect((await call(b, 'GET', path, { headers: { 'if-none-match': '*' } })).status, path).toBe(404);
    }
    expect(ids((await call(b, 'GET', filtered)).body)).not.toContain(id);
    expect(ids((await call(b, 'GET', '/providers?limit=50')).body)).not.toContain(id);
  });

  it('stats are not reused past the moment a follow leaves its 7-day window', async () => {
    // A provider still listed: an earlier test archives one it picks from the list.
    const listed = (await call(truth, 'GET', '/providers?limit=50')).body.items as { id: number }[];
    const id = listed.map((p) => p.id).find((candidate) => candidate !== P) as number;
    expect(id).toBeDefined();
    // Not followed by this user yet, whatever the earlier tests did.
    expect([200, 204]).toContain((await call(a, 'DELETE', `/providers/${id}/follow`, { token })).status);
    const path = `/providers/${id}/stats`;
    const gained = (await call(truth, 'GET', path)).body.followersGained7d as number;
    expect((await call(a, 'POST', `/providers/${id}/follow`, { token })).status).toBe(200);
    expect((await call(b, 'GET', path)).body.followersGained7d).toBe(gained + 1);
    const hits = await metric(b, 'signal_answer_cache_hits_total');
    expect((await call(b, 'GET', path)).body.followersGained7d).toBe(gained + 1);
    expect(await metric(b, 'signal_answer_cache_hits_total')).toBe(hits + 1);
    // Eight days later on B's clock (and the truth's), with no write in between.
    b.advanceClock(8 * 86_400_000);
    truth.advanceClock(8 * 86_400_000);
    try {
      const later = await sameAnswer(b, truth, path, {}, 'eight days later');
      expect(later.body.followersGained7d).toBeLessThan(gained + 1);
    } finally {
      b.advanceClock(-8 * 86_400_000);
      truth.advanceClock(-8 * 86_400_000);
    }
  });
});

describe('the byte budget', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi('postgres', { env: { SEED_PROVIDERS: '30', METRICS: 'true', ANSWER_CACHE_MB: '1' } });
  }, 60_000);
  afterAll(async () => {
    await api?.stop();
  });

  it('a scan of 10,000 distinct pages stays within ANSWER_CACHE_MB, least recently used out first', async () => {
    const budget = 1024 * 1024;
    const pages = 10_000;
    let next = 1;
    let largest = 0;
    const worker = async () => {
      while (next <= pages) {
        const page = next++;
        // Distinct answers: page numbers past the end are empty pages of their own.
        const reply = await call(api, 'GET', `/providers?limit=3&page=${page}&sortBy=id&order=asc`);
        expect(reply.status).toBe(200);
        if (page % 500 === 0) largest = Math.max(largest, await metric(api, 'signal_answer_cache_bytes'));
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    const bytes = await metric(api, 'signal_answer_cache_bytes');
    expect(bytes).toBeGreaterThan(budget / 2);
    expect(Math.max(largest, bytes)).toBeLessThanOrEqual(budget);
    const entries = await metric(api, 'signal_answer_cache_entries');
    const evictions = await metric(api, 'signal_answer_cache_evictions_total');
    expect(entries).toBeLessThan(pages);
    expect(entries + evictions).toBe(pages);
    // The newest page is kept (a hit), the first was evicted (a miss), both answered right.
    const hits = await metric(api, 'signal_answer_cache_hits_total');
    const last = await call(api, 'GET', `/providers?limit=3&page=${pages}&sortBy=id&order=asc`);
    expect(await metric(api, 'signal_answer_cache_hits_total')).toBe(hits + 1);
    expect(last.body.items).toEqual([]);
    const first = await call(api, 'GET', '/providers?limit=3&page=1&sortBy=id&order=asc');
    expect(await metric(api, 'signal_answer_cache_hits_total')).toBe(hits + 1);
    expect(first.body.items.map((p: { id: number }) => p.id)).toEqual([1, 2, 3]);
  }, 300_000);
});

describe('the answer cache on PGlite', () => {
  let api: TestApi;
  let token: string;
  beforeAll(async () => {
    api = await startApi('pglite', { env: { ADMIN_KEY, SEED_PROVIDERS: String(PROVIDERS), METRICS: 'true' } });
    token = (await signIn(api, evmWallet())).token;
  }, 60_000);
  afterAll(async () => {
    await api?.stop();
  });

  it('kept answers while nothing changes; every write seen at the next read', async () => {
    const read = async (path: string) => (await call(api, 'GET', path)).body;
    const count = () => metric(api, 'signal_answer_cache_hits_total');
    const before = { detail: await read(`/providers/${P}`), list: await read('/providers?minFollowers=1&limit=50') };
    const hits = await count();
    expect(await read(`/providers/${P}`)).toEqual(before.detail);
    expect(await read('/providers?minFollowers=1&limit=50')).toEqual(before.list);
    // Another spelling of the same query is the same answer.
    expect(await read('/providers?limit=50&minFollowers=1&page=1')).toEqual(before.list);
    expect(await count()).toBe(hits + 3);

    const following = before.detail.followerCount as number;
    expect((await call(api, 'POST', `/providers/${P}/follow`, { token })).status).toBe(200);
    expect((await read(`/providers/${P}`)).followerCount).toBe(following + 1);
    expect((await read(`/providers/${P}/stats`)).followersGained7d).toBeGreaterThanOrEqual(1);
    expect((await read('/providers?minFollowers=1&limit=50')).items.map((p: { id: number }) => p.id)).toContain(P);

    expect((await call(api, 'DELETE', `/providers/${P}`, { token: ADMIN_KEY })).status).toBe(200);
    expect((await call(api, 'GET', `/providers/${P}`)).status).toBe(404);
    expect((await call(api, 'GET', `/providers/${P}/stats`, { token })).status).toBe(404);
    expect((await read('/providers?minFollowers=1&limit=50')).items.map((p: { id: number }) => p.id)).not.toContain(P);
  });
});
