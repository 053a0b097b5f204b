/**
 * DATABASE_READ_URL against a real streaming replica: a small primary cluster of this test's
 * own and its replica (pg_createcluster on free ports, pg_basebackup -R), created here and
 * dropped at the end even on failure; the machine's own cluster is not touched.
 *
 * The catalogue and follow tests' own checks run here on primary + replica: the four Version 1
 * sorts in both orders walked by page and by cursor (REST and tRPC, ties included) without a token equals the
 * primary's walk; follow/unfollow races from several users end with the exact counts, seen by
 * each follower at once and by public reads once the replica has caught up.
 *
 * What the replica serves is proven by pausing its replay (pg_wal_replay_pause): a follow
 * committed on the primary is then invisible to public reads (they come from the replica) and
 * visible at once to its user (a token reads the primary), on REST and tRPC; resumed, the
 * public reads catch up. Stopped, the replica costs a public read no more than 1 s and /ready
 * stays 200; started again, public reads go back to it. The lag shows in /metrics.
 */
import {
  type ReplicatedClusters,
  replicaToolsMissing,
  startReplicatedClusters,
  waitForDatabase,
} from '@signal/test-support';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, evmWallet, signIn, startApi, type TestApi, trpcClient } from '../harness.js';
import { addTies, ORDERS, type Page, type PageItem, SORTS, walkByCursor, walkByPage } from '../paging.js';

const missing = replicaToolsMissing();
if (missing && process.env.CI === 'true') throw new Error(`replica tests cannot run in CI: ${missing}`);
if (missing) console.warn(`replica tests skipped: ${missing}`);

const SEEDED = 12;
const TIES = 5;
/** The seeded catalogue plus providers that tie on every sort key but id. */
const PROVIDERS = SEEDED + TIES;

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function metric(api: TestApi, name: string): Promise<number | undefined> {
  const reply = await fetch(`${api.url}/metrics`);
  const line = (await reply.text()).split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

describe.skipIf(missing !== undefined)('public catalogue reads from a streaming replica', () => {
  let clusters: ReplicatedClusters;
  let api: TestApi;
  let replicaUrl: string;
  let token: string;

  const publicCount = async (id: number) => {
    const reply = await call(api, 'GET', `/providers/${id}`);
    expect(reply.status).toBe(200);
    return reply.body.followerCount as number;
  };
  /** A query on the replica, on a connection of its own (the replica is stopped and started). */
  const onReplica = async (text: string) => {
    const client = new pg.Client({ connectionString: replicaUrl });
    await client.connect();
    try {
      return (await client.query(text)).rows;
    } finally {
      await client.end();
    }
  };
  const pauseReplay = async () => {
    await onReplica('select pg_wal_replay_pause()');
    await waitUntil(
      async () => (await onReplica('select pg_get_wal_replay_pause_state() as s'))[0].s === 'paused',
      5_000,
      'replay paused',
    );
  };
  /**
   * The replica has replayed everything the primary wrote so far. The insert position, not
   * pg_current_wal_lsn (the write position): these clusters run with synchronous_commit off, so
   * a commit already answered 200 may still sit in the primary's WAL buffers, behind the write
   * position, and a check against that would pass with the last commits not yet replayed.
   */
  const caughtUp = async () => {
    const [primary] = (await api.db.db
      .selectNoFrom((eb) => eb.fn<string>('pg_current_wal_insert_lsn').as('lsn'))
      .execute()) as {
      lsn: string;
    }[];
    const [row] = await onReplica(`select pg_last_wal_replay_lsn() >= '${primary?.lsn}'::pg_lsn as done`);
    return row.done === true;
  };

  beforeAll(async () => {
    clusters = await startReplicatedClusters('api');
    const admin = new pg.Client({ connectionString: clusters.primaryUrl });
    await admin.connect();
    await admin.query('create database signal');
    await admin.end();
    const primaryUrl = clusters.primaryUrl.replace(/\/postgres$/, '/signal');
    replicaUrl = clusters.replicaUrl.replace(/\/postgres$/, '/signal');
    await waitForDatabase(replicaUrl);
    api = await startApi('postgres', {
      databaseUrl: primaryUrl,
      env: { DATABASE_READ_URL: replicaUrl, SEED_PROVIDERS: String(SEEDED), METRICS: 'true' },
    });
    await addTies(api, TIES);
    ({ token } = await signIn(api, evmWallet()));
    await waitUntil(caughtUp, 10_000, 'replica caught up after the seed');
  }, 120_000);
  afterAll(async () => {
    await api?.stop().catch(() => {});
    await clusters?.drop();
  });

  it('serves the same catalogue as the primary once caught up, on the four Version 1 sorts', async () => {
    for (const sortBy of ['followerCount', 'createdAt', 'name', 'id']) {
      for (const order of ['asc', 'desc']) {
        const path = `/providers?limit=5&page=2&sortBy=${sortBy}&order=${order}`;
        const fromReplica = await call(api, 'GET', path);
        const fromPrimary = await call(api, 'GET', path, { token });
        expect(fromReplica.status).toBe(200);
        expect(fromReplica.body).toEqual(fromPrimary.body);
        expect(fromReplica.body.total).toBe(PROVIDERS);
      }
    }
    expect(await metric(api, 'signal_db_replica_serving')).toBe(1);
  });

  it("the four Version 1 sorts in both orders, walked by page and by cursor on REST and tRPC, equal the primary's walk", async () => {
    await waitUntil(caughtUp, 10_000, 'caught up');
    const publicTrpc = trpcClient(api);
    const userTrpc = trpcClient(api, token);
    const limit = 5;
    for (const sortBy of SORTS) {
      for (const order of ORDERS) {
        const where = `${sortBy} ${order}`;
        const query = `sortBy=${sortBy}&order=${order}`;
        // The primary's walk (a token reads the primary), then the same walks without one.
        const primary = await walkByPage(api, query, limit, token);
        expect(primary, where).toHaveLength(PROVIDERS);
        expect(await walkByPage(api, query, limit), where).toEqual(primary);
        const restPath = (cursor: string | null) => `/providers?${cursor ? `cursor=${cursor}` : query}&limit=${limit}`;
        const byRest = await walkByCursor(async (cursor) => (await call(api, 'GET', restPath(cursor))).body);
        expect(byRest.flat(), where).toEqual(primary);
        const byTrpc = await walkByCursor(
          (cursor) =>
            publicTrpc.providers.list.query(cursor === null ? { sortBy, order, limit } : { cursor, limit }) as Promise<
              Page<PageItem>
            >,
        );
        expect(byTrpc.flat(), where).toEqual(primary);
        // A cursor is the same on both servers: a walk that alternates replica and primary pages.
        let onPrimary = false;
        const mixed = await walkByCursor(async (cursor) => {
          onPrimary = !onPrimary;
          const input = cursor === null ? { sortBy, order, limit } : { cursor, limit };
          return (onPrimary ? userTrpc : publicTrpc).providers.list.query(input) as Promise<Page<PageItem>>;
        });
        expect(mixed.flat(), where).toEqual(primary);
      }
    }
    // Served by the replica throughout.
    expect(await metric(api, 'signal_db_replica_serving')).toBe(1);
  });

  it('a follow shows at once to its user (token → primary) while public reads come from the replica', async () => {
    await waitUntil(caughtUp, 10_000, 'caught up');
    const id = 3;
    const before = await publicCount(id);
    await pauseReplay();
    try {
      const follow = await call(api, 'POST', `/providers/${id}/follow`, { token });
      expect(follow.body).toEqual({ providerId: id, following: true, followerCount: before + 1 });

      // The user, on both transports: the primary, their follow is there.
      expect((await call(api, 'GET', `/providers/${id}`, { token })).body.followerCount).toBe(before + 1);
      expect((await call(api, 'GET', `/providers/${id}/stats`, { token })).body.followerCount).toBe(before + 1);
      const following = await call(api, 'GET', '/me/following', { token });
      expect(following.body.items.map((p: { id: number }) => p.id)).toContain(id);
      expect((await trpcClient(api, token).providers.get.query({ id })).followerCount).toBe(before + 1);

      // Anyone without a token, on both transports: the replica, which has not replayed it.
      expect(await publicCount(id)).toBe(before);
      expect((await call(api, 'GET', `/providers/${id}/stats`)).body.followerCount).toBe(before);
      const page = await call(api, 'GET', `/providers?limit=100&sortBy=id&order=asc`);
      expect(page.body.items.find((p: { id: number }) => p.id === id).followerCount).toBe(before);
      expect((await trpcClient(api).providers.get.query({ id })).followerCount).toBe(before);

      // The lag is visible: the probe sees WAL received and not replayed.
      await waitUntil(async () => ((await metric(api, 'signal_db_replica_lag_seconds')) ?? 0) > 0, 5_000, 'lag > 0');
    } finally {
      await onReplica('select pg_wal_replay_resume()');
    }
    await waitUntil(async () => (await publicCount(id)) === before + 1, 5_000, 'public read caught up');
  });

  it('follow/unfollow races from several users: exact counts for each follower at once, for the public once caught up', async () => {
    const [a, b] = [7, 8];
    const users = await Promise.all(Array.from({ length: 8 }, () => signIn(api, evmWallet())));
    await waitUntil(caughtUp, 10_000, 'caught up');
    const [beforeA, beforeB] = [await publicCount(a), await publicCount(b)];
    // Every user ends following a when its index is even, b unless its index is a multiple of 3.
    const followsA = (i: number) => i % 2 === 0;
    const followsB = (i: number) => i % 3 !== 0;
    const expectedA = beforeA + users.filter((_, i) => followsA(i)).length;
    const expectedB = beforeB + users.filter((_, i) => followsB(i)).length;
    const act = async (userToken: string, method: 'POST' | 'DELETE', id: number) => {
      const reply = await call(api, method, `/providers/${id}/follow`, { token: userToken });
      expect(reply.status).toBe(200);
    };
    await pauseReplay();
    try {
      await Promise.all(
        users.map(async ({ token: userToken }, i) => {
          await Promise.all([act(userToken, 'POST', a), act(userToken, 'POST', b)]);
          await act(userToken, 'DELETE', a);
          await Promise.all([act(userToken, 'POST', a), act(userToken, 'DELETE', b)]);
          await act(userToken, 'POST', b);
          if (!followsA(i)) await act(userToken, 'DELETE', a);
          if (!followsB(i)) await act(userToken, 'DELETE', b);
        }),
      );
      // Each follower, at once: the exact counts and its own follows (the primary).
      for (const [i, { token: userToken }] of users.entries()) {
        expect((await call(api, 'GET', `/providers/${a}`, { token: userToken })).body.followerCount).toBe(expectedA);
        expect((await call(api, 'GET', `/providers/${b}/stats`, { token: userToken })).body.followerCount).toBe(
          expectedB,
        );
        const mine = (await call(api, 'GET', '/me/following', { token: userToken })).body.items.map(
          (p: { id: number }) => p.id,
        );
        expect(mine.includes(a), `user ${i} follows ${a}`).toBe(followsA(i));
        expect(mine.includes(b), `user ${i} follows ${b}`).toBe(followsB(i));
      }
      const viaTrpc = trpcClient(api, users[1]?.token);
      expect((await viaTrpc.providers.get.query({ id: b })).followerCount).toBe(expectedB);
      // The public meanwhile: the replica, which has replayed none of it.
      expect(await publicCount(a)).toBe(beforeA);
      expect(await publicCount(b)).toBe(beforeB);
    } finally {
      await onReplica('select pg_wal_replay_resume()');
    }
    await waitUntil(caughtUp, 10_000, 'caught up after the race');
    // Once caught up, every public read, on both transports, gives the exact counts.
    expect(await publicCount(a)).toBe(expectedA);
    expect((await call(api, 'GET', `/providers/${a}/stats`)).body.followerCount).toBe(expectedA);
    expect((await trpcClient(api).providers.get.query({ id: b })).followerCount).toBe(expectedB);
    const list = await call(api, 'GET', '/providers?limit=100&sortBy=id&order=asc');
    const counts = new Map(list.body.items.map((p: PageItem) => [p.id, p.followerCount]));
    expect([counts.get(a), counts.get(b)]).toEqual([expectedA, expectedB]);
    // The replica holds exactly the follow rows the counts say.
    const rows = await onReplica(
      `select provider_id::int, count(*)::int as n from follows where provider_id in (${a}, ${b}) group by provider_id order by provider_id`,
    );
    expect(rows).toEqual([
      { provider_id: a, n: expectedA },
      { provider_id: b, n: expectedB },
    ]);
    // And the public walk by follower count is the primary's.
    const query = 'sortBy=followerCount&order=desc';
    expect(await walkByPage(api, query, 5)).toEqual(await walkByPage(api, query, 5, token));
  });

  it('a stopped replica: public reads answer from the primary within 1 s, /ready 200; back when it returns', async () => {
    const id = 4;
    const follow = await call(api, 'POST', `/providers/${id}/follow`, { token });
    const count = follow.body.followerCount as number;
    await clusters.stopReplica();
    try {
      for (const [method, path] of [
        ['GET', `/providers/${id}`],
        ['GET', '/providers?limit=20'],
        ['GET', `/providers/${id}/stats`],
      ] as const) {
        const started = performance.now();
        const reply = await call(api, method, path);
        const ms = performance.now() - started;
        expect(reply.status, path).toBe(200);
        expect(ms, `${path} took ${Math.round(ms)} ms`).toBeLessThan(1_000);
      }
      expect(await publicCount(id)).toBe(count);
      const started = performance.now();
      expect((await trpcClient(api).providers.list.query({ limit: 5 })).total).toBe(PROVIDERS);
      expect(performance.now() - started).toBeLessThan(1_000);
      expect((await call(api, 'GET', '/ready')).status).toBe(200);
      expect(await metric(api, 'signal_db_replica_serving')).toBe(0);
      expect(await metric(api, 'signal_db_replica_lag_seconds')).toBe(-1);
    } finally {
      await clusters.startReplica();
    }
    // The probe finds it again; a paused replay shows public reads are its again.
    await waitUntil(async () => (await metric(api, 'signal_db_replica_serving')) === 1, 10_000, 'replica back');
    await waitUntil(caughtUp, 10_000, 'caught up after the restart');
    await pauseReplay();
    try {
      const again = await call(api, 'DELETE', `/providers/${id}/follow`, { token });
      expect(again.body.followerCount).toBe(count - 1);
      expect(await publicCount(id)).toBe(count);
    } finally {
      await onReplica('select pg_wal_replay_resume()');
    }
    await waitUntil(async () => (await publicCount(id)) === count - 1, 5_000, 'public read caught up');
  });
});
