/**
 * The provider catalogue over REST: the page envelope and its defaults, the four Version 1 sorts
 * in both directions (the figure sorts: search.figures.test.ts, and cursor.test.ts walks all) checked against the rows in the database (ties broken by id), walking every
 * page, detail and stats consistent with the list and with the follow relation, and 404s for
 * unknown ids. The full set runs on PostgreSQL; the main checks run once more on PGlite.
 */
import { describe, expect, it } from 'vitest';
import { call, expectError, type TestApi, useApiWithUser } from '../harness.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DAY_MS = 86_400_000;
const SORTS = ['followerCount', 'createdAt', 'name', 'id'] as const;
const ORDERS = ['asc', 'desc'] as const;
type SortBy = (typeof SORTS)[number];
type Order = (typeof ORDERS)[number];

interface DbProvider {
  id: number;
  name: string;
  followerCount: number;
  /** created_at in UTC as fixed-width digits down to the microsecond: the database's own precision. */
  createdUs: string;
  follows: number;
}

/** Every provider as the database holds it, with the number of its follow rows. */
async function dbProviders(api: TestApi): Promise<DbProvider[]> {
  const rows = await api.db.db
    .selectFrom('providers as p')
    .select((eb) => [
      'p.id',
      'p.name',
      'p.follower_count',
      eb
        .fn<string>('to_char', [eb.fn('timezone', [eb.val('UTC'), 'p.created_at']), eb.val('YYYYMMDDHH24MISSUS')])
        .as('created_us'),
      eb
        .selectFrom('follows as f')
        .select((inner) => inner.fn.countAll<number>().as('n'))
        .whereRef('f.provider_id', '=', 'p.id')
        .as('follows'),
    ])
    .execute();
  return rows.map((row) => ({
    id: Number(row.id),
    name: row.name,
    followerCount: Number(row.follower_count),
    createdUs: row.created_us,
    follows: Number(row.follows),
  }));
}

/** The expected order of ids: the sort key in the requested direction, then id in the same one. */
function expectedOrder(rows: DbProvider[], sortBy: SortBy, order: Order): number[] {
  const key = (row: DbProvider): number | string =>
    sortBy === 'followerCount'
      ? row.followerCount
      : sortBy === 'createdAt'
        ? row.createdUs
        : sortBy === 'name'
          ? row.name // JS < compares UTF-16 code units: code point order for these ASCII names
          : row.id;
  const dir = order === 'asc' ? 1 : -1;
  return [...rows]
    .sort((a, b) => {
      const ka = key(a);
      const kb = key(b);
      if (ka < kb) return -dir;
      if (ka > kb) return dir;
      return (a.id - b.id) * dir;
    })
    .map((row) => row.id);
}

const providerShape = {
  id: expect.any(Number),
  name: expect.any(String),
  description: expect.toSatisfy((v: unknown) => v === null || typeof v === 'string'),
  avatarUrl: expect.toSatisfy((v: unknown) => v === null || typeof v === 'string'),
  followerCount: expect.any(Number),
  createdAt: expect.stringMatching(ISO),
  roi30dPct: expect.toSatisfy((v: unknown) => v === null || typeof v === 'number'),
  maxDrawdownPct: expect.any(Number),
  winRate: expect.any(Number),
  revealDelaySeconds: expect.any(Number),
};

async function countFollowsSince(api: TestApi, providerId: number, since: Date): Promise<number> {
  const row = await api.db.db
    .selectFrom('follows')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('provider_id', '=', providerId)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

// ── Checks shared by both backends ─────────────────────────────────────────

async function checkDefaults(api: TestApi, total: number) {
  const reply = await call(api, 'GET', '/providers');
  expect(reply.status).toBe(200);
  expect(Object.keys(reply.body).sort()).toEqual(['items', 'limit', 'nextCursor', 'page', 'total', 'totalPages']);
  expect(reply.body).toMatchObject({ page: 1, limit: 20, total, totalPages: Math.ceil(total / 20) });
  expect(reply.body.items).toHaveLength(Math.min(20, total));
  for (const item of reply.body.items) {
    expect(item).toEqual(providerShape);
    expect(Object.keys(item).sort()).toEqual([
      'avatarUrl',
      'createdAt',
      'description',
      'followerCount',
      'id',
      'maxDrawdownPct',
      'name',
      'revealDelaySeconds',
      'roi30dPct',
      'winRate',
    ]);
  }
  const rows = await dbProviders(api);
  const expected = expectedOrder(rows, 'followerCount', 'desc').slice(0, 20);
  expect(reply.body.items.map((p: { id: number }) => p.id)).toEqual(expected);
  const explicit = await call(api, 'GET', '/providers?page=1&limit=20&sortBy=followerCount&order=desc');
  expect(explicit.status).toBe(200);
  expect(explicit.body).toEqual(reply.body);
}

async function checkSorted(api: TestApi, sortBy: SortBy, order: Order) {
  const rows = await dbProviders(api);
  const reply = await call(api, 'GET', `/providers?limit=100&sortBy=${sortBy}&order=${order}`);
  expect(reply.status).toBe(200);
  expect(reply.body.total).toBe(rows.length);
  expect(reply.body.items.map((p: { id: number }) => p.id)).toEqual(expectedOrder(rows, sortBy, order));
}

/** Walks every page with limit 7: the concatenation is the whole catalogue in order, once each. */
async function checkWalk(api: TestApi, sortBy: SortBy, order: Order) {
  const rows = await dbProviders(api);
  const limit = 7;
  const totalPages = Math.ceil(rows.length / limit);
  const seen: number[] = [];
  for (let page = 1; page <= totalPages + 1; page += 1) {
    const reply = await call(api, 'GET', `/providers?page=${page}&limit=${limit}&sortBy=${sortBy}&order=${order}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ page, limit, total: rows.length, totalPages });
    const expectedSize = page <= totalPages ? Math.min(limit, rows.length - (page - 1) * limit) : 0;
    expect(reply.body.items).toHaveLength(expectedSize);
    seen.push(...reply.body.items.map((p: { id: number }) => p.id));
  }
  expect(new Set(seen).size).toBe(rows.length);
  expect(seen).toEqual(expectedOrder(rows, sortBy, order));
}

/** GET /providers/{id} equals the list item, which matches the row and its follow count. */
async function checkDetails(api: TestApi) {
  const list = await call(api, 'GET', '/providers?limit=100&sortBy=id&order=asc');
  expect(list.status).toBe(200);
  const rows = new Map((await dbProviders(api)).map((row) => [row.id, row]));
  for (const item of list.body.items) {
    const detail = await call(api, 'GET', `/providers/${item.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toEqual(item);
    const row = rows.get(item.id)!;
    expect(item.followerCount).toBe(row.followerCount);
    expect(item.followerCount).toBe(row.follows);
    // The wire carries milliseconds: the row's time truncated to them.
    expect(item.createdAt.replace(/[^0-9]/g, '')).toBe(row.createdUs.slice(0, 17));
  }
}

async function checkStats(api: TestApi, ids: number[]) {
  for (const id of ids) {
    const before = new Date();
    const reply = await call(api, 'GET', `/providers/${id}/stats`);
    const after = new Date();
    expect(reply.status).toBe(200);
    const stats = reply.body;
    expect(stats).toEqual({
      providerId: id,
      followerCount: expect.any(Number),
      followersGained7d: expect.any(Number),
      followersGained30d: expect.any(Number),
      totalSignals: expect.any(Number),
      winRate: expect.any(Number),
      avgReturnPct: expect.any(Number),
      totalReturnPct: expect.any(Number),
      maxDrawdownPct: expect.any(Number),
      lastSignalAt: stats.lastSignalAt === null ? null : expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
      roi7dPct: expect.toSatisfy((v: unknown) => v === null || typeof v === 'number'),
      roi30dPct: expect.toSatisfy((v: unknown) => v === null || typeof v === 'number'),
      roi90dPct: expect.toSatisfy((v: unknown) => v === null || typeof v === 'number'),
      roiAllPct: expect.toSatisfy((v: unknown) => v === null || typeof v === 'number'),
      tradingDays: expect.any(Number),
      asOf: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
    // The list row carries the same figures as the stats.
    const row30 = await call(api, 'GET', `/providers/${id}`);
    expect(row30.body).toMatchObject({
      roi30dPct: stats.roi30dPct,
      maxDrawdownPct: stats.maxDrawdownPct,
      winRate: stats.winRate,
    });
    expect(stats.totalReturnPct).toBe(stats.roiAllPct ?? 0);
    expect(stats.winRate).toBeGreaterThanOrEqual(0);
    expect(stats.winRate).toBeLessThanOrEqual(1);
    expect(Number.isInteger(stats.totalSignals) && stats.totalSignals >= 0).toBe(true);
    expect(stats.followersGained7d).toBeGreaterThanOrEqual(0);
    expect(stats.followersGained7d).toBeLessThanOrEqual(stats.followersGained30d);
    expect(stats.followersGained30d).toBeLessThanOrEqual(stats.followerCount);

    const [row] = (await dbProviders(api)).filter((p) => p.id === id);
    expect(stats.followerCount).toBe(row!.follows);
    const detail = await call(api, 'GET', `/providers/${id}`);
    expect(stats.followerCount).toBe(detail.body.followerCount);
    // The server's "now" lies between before and after, so the windows are bracketed by the
    // counts at both ends (equal unless a follow row sits in those few milliseconds).
    for (const [days, value] of [
      [7, stats.followersGained7d],
      [30, stats.followersGained30d],
    ] as const) {
      const most = await countFollowsSince(api, id, new Date(before.getTime() - days * DAY_MS));
      const least = await countFollowsSince(api, id, new Date(after.getTime() - days * DAY_MS));
      expect(value).toBeGreaterThanOrEqual(least);
      expect(value).toBeLessThanOrEqual(most);
    }
  }
}

/** Follow and unfollow move the count in the list, the detail and the stats together. */
async function checkFollowMovesCounts(api: TestApi, token: string, id: number) {
  const before = (await call(api, 'GET', `/providers/${id}`)).body.followerCount as number;
  const beforeStats = (await call(api, 'GET', `/providers/${id}/stats`)).body;
  const follow = await call(api, 'POST', `/providers/${id}/follow`, { token });
  expect(follow.status).toBe(200);
  expect(follow.body).toEqual({ providerId: id, following: true, followerCount: before + 1 });
  const detail = await call(api, 'GET', `/providers/${id}`);
  expect(detail.body.followerCount).toBe(before + 1);
  const list = await call(api, 'GET', '/providers?limit=100&sortBy=id&order=asc');
  expect(list.body.items.find((p: { id: number }) => p.id === id).followerCount).toBe(before + 1);
  const stats = (await call(api, 'GET', `/providers/${id}/stats`)).body;
  expect(stats.followerCount).toBe(before + 1);
  expect(stats.followersGained7d).toBe(beforeStats.followersGained7d + 1);
  expect(stats.followersGained30d).toBe(beforeStats.followersGained30d + 1);
  const unfollow = await call(api, 'DELETE', `/providers/${id}/follow`, { token });
  expect(unfollow.status).toBe(200);
  expect(unfollow.body).toEqual({ providerId: id, following: false, followerCount: before });
  expect((await call(api, 'GET', `/providers/${id}`)).body.followerCount).toBe(before);
  expect((await dbProviders(api)).find((p) => p.id === id)!.follows).toBe(before);
}

/**
 * The seed made `n` providers, each follower count equal to its follow rows, and some of them
 * followed (so the follower checks are not vacuous); answers the rows.
 */
async function seededProviders(api: TestApi, n: number): Promise<DbProvider[]> {
  const rows = await dbProviders(api);
  expect(rows).toHaveLength(n);
  for (const row of rows) expect(row.followerCount).toBe(row.follows);
  expect(rows.some((row) => row.follows > 0)).toBe(true);
  return rows;
}

async function checkUnknownIds(api: TestApi, token: string) {
  for (const id of ['999999', '9007199254740991']) {
    expectError(await call(api, 'GET', `/providers/${id}`), 404, 'PROVIDER_NOT_FOUND');
    expectError(await call(api, 'GET', `/providers/${id}/stats`), 404, 'PROVIDER_NOT_FOUND');
    expectError(await call(api, 'POST', `/providers/${id}/follow`, { token }), 404, 'PROVIDER_NOT_FOUND');
    expectError(await call(api, 'DELETE', `/providers/${id}/follow`, { token }), 404, 'PROVIDER_NOT_FOUND');
  }
}

// ── PostgreSQL: the full set ───────────────────────────────────────────────

describe('provider catalogue on postgres', () => {
  const N = 57;
  const { api, user } = useApiWithUser('postgres', { env: { SEED_PROVIDERS: String(N) } });

  it('the seed made N providers whose follower counts are their follow rows', async () => {
    await seededProviders(api, N);
  });

  it('defaults to page 1, limit 20, followerCount desc, in the page envelope', async () => {
    await checkDefaults(api, N);
  });

  it('limit 1 and limit 100', async () => {
    const rows = await dbProviders(api);
    const order = expectedOrder(rows, 'followerCount', 'desc');
    const one = await call(api, 'GET', '/providers?limit=1');
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ page: 1, limit: 1, total: N, totalPages: N });
    expect(one.body.items.map((p: { id: number }) => p.id)).toEqual([order[0]]);
    const last = await call(api, 'GET', `/providers?limit=1&page=${N}`);
    expect(last.body.items.map((p: { id: number }) => p.id)).toEqual([order[N - 1]]);
    const hundred = await call(api, 'GET', '/providers?limit=100');
    expect(hundred.status).toBe(200);
    expect(hundred.body).toMatchObject({ page: 1, limit: 100, total: N, totalPages: 1 });
    expect(hundred.body.items.map((p: { id: number }) => p.id)).toEqual(order);
  });

  it('past the last page answers 200 with empty items and the right total', async () => {
    const last = await call(api, 'GET', '/providers?page=3&limit=20');
    expect(last.status).toBe(200);
    expect(last.body).toMatchObject({ page: 3, limit: 20, total: N, totalPages: 3 });
    expect(last.body.items).toHaveLength(N - 40);
    for (const page of [4, 1000, 9007199254740991]) {
      const past = await call(api, 'GET', `/providers?page=${page}&limit=20`);
      expect(past.status).toBe(200);
      expect(past.body).toEqual({ items: [], page, limit: 20, total: N, totalPages: 3, nextCursor: null });
    }
    const pastHundred = await call(api, 'GET', '/providers?page=2&limit=100');
    expect(pastHundred.body).toEqual({ items: [], page: 2, limit: 100, total: N, totalPages: 1, nextCursor: null });
  });

  describe.each(SORTS)('sortBy %s', (sortBy) => {
    it.each(ORDERS)('order %s: ordered by the key then by id in the same direction', async (order) => {
      await checkSorted(api, sortBy, order);
    });
    it.each(ORDERS)('order %s: walking every page with limit 7 yields each provider exactly once', async (order) => {
      await checkWalk(api, sortBy, order);
    });
  });

  it('the sorts have ties to break, so the tie-break is really exercised', async () => {
    const rows = await dbProviders(api);
    expect(new Set(rows.map((row) => row.followerCount)).size).toBeLessThan(rows.length);
  });

  it('the name sort is by code point and the tie-break holds with equal names', async () => {
    // Names that a linguistic collation would order differently: case, punctuation, accents.
    const names = ['zeta', 'Zeta', 'ZETA', '_zeta', 'zéta', 'Zeta'];
    const inserted = await api.db.db
      .insertInto('providers')
      .values(names.map((name) => ({ name, created_at: new Date('2020-01-01T00:00:00.000Z') })))
      .returning('id')
      .execute();
    try {
      await checkSorted(api, 'name', 'asc');
      await checkSorted(api, 'name', 'desc');
      // Six providers created at the same instant: the createdAt sort must break that tie by id.
      await checkSorted(api, 'createdAt', 'asc');
      await checkSorted(api, 'createdAt', 'desc');
      await checkWalk(api, 'name', 'asc');
      const ids = inserted.map((row) => Number(row.id));
      const reply = await call(api, 'GET', '/providers?limit=100&sortBy=name&order=asc');
      const ours = reply.body.items
        .filter((p: { id: number }) => ids.includes(p.id))
        .map((p: { name: string }) => p.name);
      expect(ours).toEqual(['ZETA', 'Zeta', 'Zeta', '_zeta', 'zeta', 'zéta']);
    } finally {
      await api.db.db
        .deleteFrom('providers')
        .where(
          'id',
          'in',
          inserted.map((row) => row.id),
        )
        .execute();
    }
    expect((await call(api, 'GET', '/providers')).body.total).toBe(N);
  });

  it('GET /providers/{id} equals the list item; counts equal the follow rows', async () => {
    await checkDetails(api);
  });

  it('stats: shape, ranges, follower figures from the follow relation', async () => {
    const rows = await dbProviders(api);
    await checkStats(
      api,
      rows.map((row) => row.id),
    );
    // At least one provider has followers gained in the last 30 days, so the window check bites.
    const gained = await Promise.all(rows.map((row) => call(api, 'GET', `/providers/${row.id}/stats`)));
    expect(gained.some((reply) => reply.body.followersGained30d > 0)).toBe(true);
  });

  it('following and unfollowing moves the list, detail and stats counts together', async () => {
    const rows = await dbProviders(api);
    await checkFollowMovesCounts(api, user.token, rows[0]!.id);
  });

  it('unknown provider ids answer 404 PROVIDER_NOT_FOUND on detail, stats, follow and unfollow', async () => {
    await checkUnknownIds(api, user.token);
  });
});

// ── PGlite: the main checks once more ──────────────────────────────────────

describe('provider catalogue on pglite', () => {
  const N = 23;
  const { api, user } = useApiWithUser('pglite', { env: { SEED_PROVIDERS: String(N) } });

  it('list defaults, envelope, the four Version 1 sorts and page walk, detail, stats, follow, 404s', async () => {
    const rows = await seededProviders(api, N);
    await checkDefaults(api, N);
    for (const sortBy of SORTS) {
      for (const order of ORDERS) {
        await checkSorted(api, sortBy, order);
        await checkWalk(api, sortBy, order);
      }
    }
    const past = await call(api, 'GET', '/providers?page=2&limit=100');
    expect(past.body).toEqual({ items: [], page: 2, limit: 100, total: N, totalPages: 1, nextCursor: null });
    await checkDetails(api);
    await checkStats(
      api,
      rows.map((row) => row.id),
    );
    await checkFollowMovesCounts(api, user.token, rows[0]!.id);
    await checkUnknownIds(api, user.token);
  });
});
