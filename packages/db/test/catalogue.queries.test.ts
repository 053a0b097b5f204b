import { PROVIDER_SORT_FIELDS, type ProviderSortField } from '@signal/core';
import { describeBackends } from '@signal/test-support/vitest';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import {
  catalogueState,
  findProvider,
  followProvider,
  listFollowing,
  listProviders,
  seedDemoCatalogue,
  unfollowProvider,
} from '../src/index.js';
import { type TestDatabase, useTestDatabase } from './support.js';

/** Providers whose stored follower_count differs from their follow rows: must always be none. */
async function countMismatches(t: TestDatabase): Promise<number> {
  const result = await sql<{ n: number }>`
    select count(*) as n from providers p
    where p.follower_count <> (select count(*) from follows f where f.provider_id = p.id)`.execute(t.db);
  return result.rows[0]?.n ?? -1;
}

/** Each sort's column, written here rather than read from the query code under test. */
const SORT_COLUMNS: Record<ProviderSortField, string> = {
  followerCount: 'follower_count',
  createdAt: 'created_at',
  name: 'name',
  id: 'id',
  roi7d: 'roi_7d_pct',
  roi30d: 'roi_30d_pct',
  roi90d: 'roi_90d_pct',
  roiAll: 'roi_all_pct',
  maxDrawdown: 'max_drawdown_pct',
  winRate: 'win_rate',
  tradingDays: 'trading_days',
};

/** Numbers and instants by value, names by code unit (the names are ASCII, under COLLATE "C"). */
function compareKeys(a: unknown, b: unknown): number {
  const value = (k: unknown) =>
    k instanceof Date ? k.getTime() : typeof k === 'string' && !Number.isNaN(Number(k)) ? Number(k) : k;
  const [x, y] = [value(a), value(b)] as [number | string, number | string];
  return x < y ? -1 : x > y ? 1 : 0;
}

async function createUsers(t: TestDatabase, count: number): Promise<number[]> {
  const rows = await t.db
    .insertInto('users')
    .values(
      Array.from({ length: count }, () => ({
        wallet: `0x${crypto.getRandomValues(new Uint8Array(20)).reduce((s, b) => s + b.toString(16).padStart(2, '0'), '')}`,
        chain: 'evm' as const,
      })),
    )
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

describeBackends('catalogue queries on %s', (backend) => {
  const t = useTestDatabase(backend);

  it('seeds an empty catalogue once, with counts made of real follow rows', async () => {
    const seeded = await seedDemoCatalogue(t.db, { providers: 40 });
    expect(seeded?.providers).toBe(40);
    expect(seeded?.follows).toBeGreaterThan(0);
    expect(await seedDemoCatalogue(t.db, { providers: 40 })).toBeNull();
    expect((await catalogueState(t.db)).total).toBe(40);
    expect(await countMismatches(t)).toBe(0);
    // Every provider published a series (at least its first day).
    const published = await t.db
      .selectFrom('providers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('trading_days', '>', 0)
      .executeTakeFirst();
    expect(Number(published?.n)).toBe(40);
    const counts = await t.db.selectFrom('providers').select('follower_count').execute();
    // A spread, not one figure.
    expect(new Set(counts.map((c) => c.follower_count)).size).toBeGreaterThan(5);
  });

  it('lists by every sort with the id tie-break, and the total comes from the counter', async () => {
    expect(Object.keys(SORT_COLUMNS)).toEqual([...PROVIDER_SORT_FIELDS]);
    for (const sortBy of PROVIDER_SORT_FIELDS) {
      const rows = (
        await sql<{ id: number; k: unknown }>`select id, ${sql.ref(SORT_COLUMNS[sortBy])} as k from providers`.execute(
          t.db,
        )
      ).rows;
      for (const order of ['asc', 'desc'] as const) {
        const page = await listProviders(t.db, { page: 1, limit: 100, sortBy, order });
        const sign = order === 'asc' ? 1 : -1;
        // Nulls (a figure not published) last in both orders; ties broken by id in the sort's order.
        const expected = [...rows]
          .sort((a, b) =>
            a.k === null || b.k === null
              ? Number(a.k === null) - Number(b.k === null) || sign * (Number(a.id) - Number(b.id))
              : sign * (compareKeys(a.k, b.k) || Number(a.id) - Number(b.id)),
          )
          .map((r) => Number(r.id));
        expect(
          page.items.map((p) => p.id),
          `${sortBy} ${order}`,
        ).toEqual(expected);
        expect(page.total).toBe(40);
        expect(page.totalPages).toBe(1);
      }
    }
    const beyond = await listProviders(t.db, { page: 3, limit: 20, sortBy: 'id', order: 'asc' });
    expect(beyond).toMatchObject({ items: [], total: 40, totalPages: 2 });
  });

  it('follows and unfollows idempotently, counting only real changes', async () => {
    const [user] = await createUsers(t, 1);
    const provider = (await listProviders(t.db, { page: 1, limit: 1, sortBy: 'id', order: 'asc' })).items[0]!;
    const before = provider.followerCount;
    const now = new Date();
    const a = await followProvider(t.db, { userId: user!, providerId: provider.id, now });
    const b = await followProvider(t.db, { userId: user!, providerId: provider.id, now });
    expect(a).toEqual({ providerId: provider.id, following: true, followerCount: before + 1 });
    expect(b).toEqual(a);
    const c = await unfollowProvider(t.db, { userId: user!, providerId: provider.id });
    const d = await unfollowProvider(t.db, { userId: user!, providerId: provider.id });
    expect(c).toEqual({ providerId: provider.id, following: false, followerCount: before });
    expect(d).toEqual(c);
    expect(await followProvider(t.db, { userId: user!, providerId: 987654321, now })).toBe('provider-not-found');
    expect(await followProvider(t.db, { userId: 987654321, providerId: provider.id, now })).toBe('user-not-found');
    expect(await countMismatches(t)).toBe(0);
  });

  it('keeps follower_count equal to the follow rows under concurrent follows and unfollows', async () => {
    const users = await createUsers(t, 30);
    const provider = (await listProviders(t.db, { page: 1, limit: 1, sortBy: 'id', order: 'desc' })).items[0]!;
    const now = new Date();
    await Promise.all(
      users.flatMap((userId, i) => [
        followProvider(t.db, { userId, providerId: provider.id, now }),
        unfollowProvider(t.db, { userId, providerId: provider.id }),
        followProvider(t.db, { userId, providerId: provider.id, now }),
        ...(i % 2 === 0 ? [unfollowProvider(t.db, { userId, providerId: provider.id })] : []),
      ]),
    );
    expect(await countMismatches(t)).toBe(0);
  });

  it('deleting a user removes its follows and lowers the counts', async () => {
    const [user] = await createUsers(t, 1);
    const providers = (await listProviders(t.db, { page: 1, limit: 3, sortBy: 'name', order: 'asc' })).items;
    for (const p of providers) await followProvider(t.db, { userId: user!, providerId: p.id, now: new Date() });
    const following = await listFollowing(t.db, { userId: user!, page: 1, limit: 10 });
    expect(following !== 'user-not-found' && following.total).toBe(3);
    // No procedure deletes a user; the row goes, and the cascade and the follows trigger do the rest.
    const deleted = await t.db.deleteFrom('users').where('id', '=', user!).executeTakeFirst();
    expect(deleted.numDeletedRows).toBe(1n);
    for (const p of providers) {
      expect((await findProvider(t.db, p.id))?.followerCount).toBe(p.followerCount);
    }
    expect(await listFollowing(t.db, { userId: user!, page: 1, limit: 10 })).toBe('user-not-found');
    expect(await countMismatches(t)).toBe(0);
  });
});
