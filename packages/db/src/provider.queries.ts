import type {
  FollowedProvider,
  FollowResult,
  Provider,
  ProviderSortField,
  ProviderStats,
  SortOrder,
} from '@signal/core';
import { type Kysely, sql } from 'kysely';
import { runCompiled } from './compiled-query.js';
import { isForeignKeyViolation } from './errors.js';
import type { Database } from './schema.js';

const SORT_COLUMNS = {
  followerCount: 'follower_count',
  createdAt: 'created_at',
  name: 'name',
  id: 'id',
} as const satisfies Record<ProviderSortField, string>;

const PROVIDER_COLUMNS = [
  'p.id',
  'p.name',
  'p.description',
  'p.avatar_url',
  'p.follower_count',
  'p.created_at',
] as const;

interface ProviderRow {
  id: number;
  name: string;
  description: string | null;
  avatar_url: string | null;
  follower_count: number;
  created_at: Date;
}

/** The one place a provider row becomes a wire Provider; fields listed so no column leaks. */
export function toProvider(row: ProviderRow): Provider {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    avatarUrl: row.avatar_url,
    followerCount: row.follower_count,
    createdAt: row.created_at.toISOString(),
  };
}

export interface PageRequest {
  page: number;
  limit: number;
}

export interface PageResult<T> {
  items: T[];
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

function pageResult<T>(items: T[], request: PageRequest, total: number): PageResult<T> {
  return { items, page: request.page, limit: request.limit, total, totalPages: Math.ceil(total / request.limit) };
}

/** The catalogue total, kept exact by triggers: no count(*) over the table. */
export async function countProviders(db: Kysely<Database>): Promise<number> {
  const [row] = await runCompiled(db, 'countProviders', [], () =>
    db.selectFrom('catalogue_counters').select('provider_count'),
  );
  return row?.provider_count ?? 0;
}

/**
 * One page of the catalogue. The page's ids come from an index-only scan of the sort index
 * (which ends in id, the tie-break), and only those rows are then fetched: a deep page skips
 * index entries instead of whole rows (a "deferred join").
 */
export async function listProviders(
  db: Kysely<Database>,
  request: PageRequest & { sortBy: ProviderSortField; order: SortOrder },
): Promise<PageResult<Provider>> {
  const offset = (request.page - 1) * request.limit;
  const total = await countProviders(db);
  if (offset >= total) return pageResult([], request, total);
  const column = SORT_COLUMNS[request.sortBy];
  const { order } = request;
  // Unprepared: planned with its LIMIT and OFFSET known, as it must be. PostgreSQL would keep
  // custom plans anyway, but its generic plan (a hash join over the whole table, ≈0.5 s on 1M
  // providers) must not become possible for any mix of pages.
  const key = `listProviders:${column}:${order}`;
  const rows = await runCompiled(
    db,
    key,
    [request.limit, offset],
    (limit, skip) => {
      let keys = db.selectFrom('providers').select('id').orderBy(column, order);
      if (column !== 'id') keys = keys.orderBy('id', order);
      let page = db
        .selectFrom('providers as p')
        .innerJoin(keys.limit(limit).offset(skip).as('k'), 'k.id', 'p.id')
        .select(PROVIDER_COLUMNS)
        .orderBy(`p.${column}`, order);
      if (column !== 'id') page = page.orderBy('p.id', order);
      return page;
    },
    { prepare: false },
  );
  return pageResult(rows.map(toProvider), request, total);
}

export async function findProvider(db: Kysely<Database>, id: number): Promise<Provider | undefined> {
  const [row] = await runCompiled(db, 'findProvider', [id], (providerId) =>
    db.selectFrom('providers as p').select(PROVIDER_COLUMNS).where('p.id', '=', providerId),
  );
  return row && toProvider(row);
}

const DAY_MS = 86_400_000;

interface ProviderStatsRow {
  id: number;
  follower_count: number;
  created_at: Date;
  total_signals: number | null;
  win_rate: number | null;
  avg_return_pct: number | null;
  total_return_pct: number | null;
  max_drawdown_pct: number | null;
  last_signal_at: Date | null;
  updated_at: Date | null;
  gained_7d: number;
  gained_30d: number;
}

/** The one place a stats row becomes wire ProviderStats; a provider without stats shows zeros. */
export function toProviderStats(row: ProviderStatsRow): ProviderStats {
  return {
    providerId: row.id,
    followerCount: row.follower_count,
    followersGained7d: row.gained_7d,
    followersGained30d: row.gained_30d,
    totalSignals: row.total_signals ?? 0,
    winRate: row.win_rate ?? 0,
    avgReturnPct: row.avg_return_pct ?? 0,
    totalReturnPct: row.total_return_pct ?? 0,
    maxDrawdownPct: row.max_drawdown_pct ?? 0,
    lastSignalAt: row.last_signal_at?.toISOString() ?? null,
    updatedAt: (row.updated_at ?? row.created_at).toISOString(),
  };
}

/**
 * Statistics of a provider: follower figures from the follow relation itself, signal
 * figures from provider_stats (the signals live outside this service).
 */
export async function findProviderStats(
  db: Kysely<Database>,
  id: number,
  now: Date,
): Promise<ProviderStats | undefined> {
  const since7d = new Date(now.getTime() - 7 * DAY_MS);
  const since30d = new Date(now.getTime() - 30 * DAY_MS);
  const [row] = await runCompiled(db, 'findProviderStats', [id, since7d, since30d], (providerId, after7d, after30d) =>
    db
      .selectFrom('providers as p')
      .leftJoin('provider_stats as s', 's.provider_id', 'p.id')
      .select([
        'p.id',
        'p.follower_count',
        'p.created_at',
        's.total_signals',
        's.win_rate',
        's.avg_return_pct',
        's.total_return_pct',
        's.max_drawdown_pct',
        's.last_signal_at',
        's.updated_at',
        sql<number>`(select count(*) from follows f where f.provider_id = p.id and f.created_at > ${after7d})`.as(
          'gained_7d',
        ),
        sql<number>`(select count(*) from follows f where f.provider_id = p.id and f.created_at > ${after30d})`.as(
          'gained_30d',
        ),
      ])
      .where('p.id', '=', providerId),
  );
  return row && toProviderStats(row);
}

export type FollowOutcome = FollowResult | 'provider-not-found' | 'user-not-found';

/** Reads the provider's count after a follow change, and whether the user still exists. */
async function followState(
  db: Kysely<Database>,
  userId: number,
  providerId: number,
  following: boolean,
): Promise<FollowOutcome> {
  const [row] = await runCompiled(db, 'followState', [userId, providerId], (user, provider) =>
    db
      .selectFrom('providers')
      .select(['follower_count', sql<boolean>`exists (select 1 from users u where u.id = ${user})`.as('user_exists')])
      .where('id', '=', provider),
  );
  if (!row) return 'provider-not-found';
  if (!row.user_exists) return 'user-not-found';
  return { providerId, following, followerCount: row.follower_count };
}

/**
 * Follows a provider; repeating it changes nothing. The follows trigger raises the count in
 * the same transaction as the insert, and only when a row really was inserted.
 */
export async function followProvider(
  db: Kysely<Database>,
  input: { userId: number; providerId: number; now: Date },
): Promise<FollowOutcome> {
  try {
    await runCompiled(db, 'followProvider', [input.userId, input.providerId, input.now], (user, provider, at) =>
      db
        .insertInto('follows')
        .values({ user_id: user, provider_id: provider, created_at: at })
        .onConflict((oc) => oc.columns(['user_id', 'provider_id']).doNothing()),
    );
  } catch (error) {
    if (!isForeignKeyViolation(error)) throw error;
    // The provider or the user does not exist; followState says which.
  }
  return followState(db, input.userId, input.providerId, true);
}

/** Unfollows a provider; repeating it changes nothing. */
export async function unfollowProvider(
  db: Kysely<Database>,
  input: { userId: number; providerId: number },
): Promise<FollowOutcome> {
  await runCompiled(db, 'unfollowProvider', [input.userId, input.providerId], (user, provider) =>
    db.deleteFrom('follows').where('user_id', '=', user).where('provider_id', '=', provider),
  );
  return followState(db, input.userId, input.providerId, false);
}

/** The providers a user follows, newest follow first (ties by provider id). */
export async function listFollowing(
  db: Kysely<Database>,
  request: PageRequest & { userId: number },
): Promise<PageResult<FollowedProvider> | 'user-not-found'> {
  const offset = (request.page - 1) * request.limit;
  const counted = await db
    .selectFrom('users as u')
    .select(sql<number>`(select count(*) from follows f where f.user_id = u.id)`.as('total'))
    .where('u.id', '=', request.userId)
    .executeTakeFirst();
  if (!counted) return 'user-not-found';
  const total = counted.total;
  if (offset >= total) return pageResult([], request, total);
  const rows = await db
    .selectFrom('follows as f')
    .innerJoin('providers as p', 'p.id', 'f.provider_id')
    .select([...PROVIDER_COLUMNS, 'f.created_at as followed_at'])
    .where('f.user_id', '=', request.userId)
    .orderBy('f.created_at', 'desc')
    .orderBy('f.provider_id', 'desc')
    .limit(request.limit)
    .offset(offset)
    .execute();
  return pageResult(
    rows.map((row) => ({ ...toProvider(row), followedAt: row.followed_at.toISOString() })),
    request,
    total,
  );
}
