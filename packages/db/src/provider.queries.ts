import type { FollowedProvider, FollowResult, Provider, ProviderStats, UnfollowResult } from '@signal/core';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { runCompiled } from './compiled-query.js';
import { isForeignKeyViolation } from './errors.js';
import type { Database } from './schema.js';

export const PROVIDER_COLUMNS = [
  'p.id',
  'p.name',
  'p.description',
  'p.avatar_url',
  'p.follower_count',
  'p.created_at',
  'p.roi_30d_pct',
  'p.max_drawdown_pct',
  'p.win_rate',
] as const;

export interface ProviderRow {
  id: number;
  name: string;
  description: string | null;
  avatar_url: string | null;
  follower_count: number;
  created_at: Date;
  roi_30d_pct: number | null;
  max_drawdown_pct: number;
  win_rate: number;
}

/** Only providers the public sees (not archived): every public read and the sort indexes' predicate. */
export const PUBLIC_PROVIDER = sql<boolean>`p.archived_at is null`;

/** The one place a provider row becomes a wire Provider; fields listed so no column leaks. */
export function toProvider(row: ProviderRow): Provider {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    avatarUrl: row.avatar_url,
    followerCount: row.follower_count,
    createdAt: row.created_at.toISOString(),
    roi30dPct: row.roi_30d_pct,
    maxDrawdownPct: row.max_drawdown_pct,
    winRate: row.win_rate,
  };
}

export interface PageRequest {
  page: number;
  limit: number;
}

/** Where a cursor points: the sort key and id of the last item served. */
export interface CursorAt {
  /** null: the last item's sort key was null (nulls sort last). */
  key: string | number | null;
  id: number;
}

/**
 * Paging by page number, or after a cursor's position (`after`; then `page` is ignored and
 * answered as null). `seal` turns the last item's position into the next page's cursor; without
 * it there is none.
 */
export interface Paging {
  page?: number;
  limit: number;
  after?: CursorAt;
  seal?: (at: CursorAt) => string;
}

export interface PageResult<T> {
  items: T[];
  page: number | null;
  limit: number;
  total: number;
  totalPages: number;
  nextCursor: string | null;
}

/** Receives the version of the data a read answered from (an ETag's source), when asked. */
export interface VersionSink {
  version?: string;
}

/** The envelope of every paged listing; nextCursor null unless given (the last page, or no cursors). */
export function pageResult<T>(
  items: T[],
  request: { page?: number | null; limit: number },
  total: number,
  nextCursor: string | null = null,
): PageResult<T> {
  return {
    items,
    page: request.page ?? null,
    limit: request.limit,
    total,
    totalPages: Math.ceil(total / request.limit),
    nextCursor,
  };
}

/** The catalogue total, kept exact by triggers: no count(*) over the table. */
export async function countProviders(db: Kysely<Database>): Promise<number> {
  return (await catalogueState(db)).total;
}

/**
 * The catalogue total and version in one read. The version (sum of the slots of migration
 * 0007) rises with every committed change of any provider, follows included.
 */
export async function catalogueState(db: Kysely<Database>): Promise<{ total: number; version: string }> {
  const [row] = await runCompiled(db, 'catalogueState', [], () =>
    db
      .selectFrom('catalogue_counters')
      .select(['provider_count', sql<string>`(select sum(version) from catalogue_versions)::text`.as('version')]),
  );
  return { total: Number(row?.provider_count ?? 0), version: row?.version ?? '0' };
}

/** The catalogue's version alone: what a list revalidation reads. */
export async function catalogueVersion(db: Kysely<Database>): Promise<string> {
  return (await catalogueState(db)).version;
}

/** A provider's version alone (undefined if there is no such provider): a detail revalidation. */
export async function providerVersion(db: Kysely<Database>, id: number): Promise<string | undefined> {
  const [row] = await runCompiled(db, 'providerVersion', [id], (providerId) =>
    db
      .selectFrom('providers as p')
      .select(sql<string>`p.version::text`.as('version'))
      .where('p.id', '=', providerId)
      .where(PUBLIC_PROVIDER),
  );
  return row?.version;
}

/**
 * created_at as the database compares it (microseconds, which a JS Date would round), in a
 * form independent of the session's DateStyle and TimeZone: the cursor's key for that sort.
 */
export const exactTimestamp = (column: string) =>
  sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export async function findProvider(
  db: Kysely<Database>,
  id: number,
  observe?: VersionSink,
): Promise<Provider | undefined> {
  const [row] = await runCompiled(db, 'findProvider', [id], (providerId) =>
    db
      .selectFrom('providers as p')
      .select([...PROVIDER_COLUMNS, sql<string>`p.version::text`.as('version')])
      .where('p.id', '=', providerId)
      .where(PUBLIC_PROVIDER),
  );
  if (!row) return undefined;
  if (observe) observe.version = row.version;
  return toProvider(row);
}

const DAY_MS = 86_400_000;

/** The number of public providers a user follows (archived ones are not counted). */
export function followingCount(userId: RawBuilder<unknown>) {
  return sql<number>`(select count(*) from follows f join providers p on p.id = f.provider_id where f.user_id = ${userId} and ${PUBLIC_PROVIDER})`;
}

interface ProviderStatsRow {
  id: number;
  follower_count: number;
  created_at: Date;
  total_signals: number;
  win_rate: number;
  avg_return_pct: number;
  max_drawdown_pct: number;
  last_signal_at: Date | null;
  stats_updated_at: Date | null;
  roi_7d_pct: number | null;
  roi_30d_pct: number | null;
  roi_90d_pct: number | null;
  roi_all_pct: number | null;
  trading_days: number;
  as_of: string | null;
  gained_7d: number;
  gained_30d: number;
}

/** The one place a provider's figures become wire ProviderStats (unpublished: the contract's defaults). */
export function toProviderStats(row: ProviderStatsRow): ProviderStats {
  return {
    providerId: row.id,
    followerCount: row.follower_count,
    followersGained7d: Number(row.gained_7d),
    followersGained30d: Number(row.gained_30d),
    totalSignals: row.total_signals,
    winRate: row.win_rate,
    avgReturnPct: row.avg_return_pct,
    totalReturnPct: row.roi_all_pct ?? 0,
    maxDrawdownPct: row.max_drawdown_pct,
    lastSignalAt: row.last_signal_at?.toISOString() ?? null,
    updatedAt: (row.stats_updated_at ?? row.created_at).toISOString(),
    roi7dPct: row.roi_7d_pct,
    roi30dPct: row.roi_30d_pct,
    roi90dPct: row.roi_90d_pct,
    roiAllPct: row.roi_all_pct,
    tradingDays: row.trading_days,
    asOf: row.as_of,
  };
}

/** The stored figures of a provider, as Stats and the publishing transaction read them. */
export const STATS_COLUMNS = [
  'p.id',
  'p.follower_count',
  'p.created_at',
  'p.total_signals',
  'p.win_rate',
  'p.avg_return_pct',
  'p.max_drawdown_pct',
  'p.last_signal_at',
  'p.stats_updated_at',
  'p.roi_7d_pct',
  'p.roi_30d_pct',
  'p.roi_90d_pct',
  'p.roi_all_pct',
  'p.trading_days',
  sql<string | null>`to_char(p.as_of, 'YYYY-MM-DD')`.as('as_of'),
] as const;

/** Followers gained: current follows created after each bound. */
export function gainedColumns(after7d: Date, after30d: Date) {
  return [
    sql<number>`(select count(*) from follows f where f.provider_id = p.id and f.created_at > ${after7d})`.as(
      'gained_7d',
    ),
    sql<number>`(select count(*) from follows f where f.provider_id = p.id and f.created_at > ${after30d})`.as(
      'gained_30d',
    ),
  ] as const;
}

/**
 * Statistics of a public provider: follower figures from the follow relation itself, the
 * figures the signal pipeline published (and those derived from its NAV series) from its row.
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
      .select([...STATS_COLUMNS, ...gainedColumns(after7d, after30d)])
      .where('p.id', '=', providerId)
      .where(PUBLIC_PROVIDER),
  );
  return row && toProviderStats(row);
}

/** A follow's (FollowResult) or an unfollow's (UnfollowResult) answer, or why there is none. */
export type FollowOutcome<Result = FollowResult | UnfollowResult> = Result | 'provider-not-found' | 'user-not-found';

/**
 * Reads the provider's count after a follow change, and whether the user still exists. An
 * archived provider cannot be followed (not found), but its followers may still unfollow it.
 */
async function followState<const Following extends boolean>(
  db: Kysely<Database>,
  userId: number,
  providerId: number,
  following: Following,
): Promise<FollowOutcome<{ providerId: number; following: Following; followerCount: number }>> {
  const [row] = await runCompiled(db, 'followState', [userId, providerId], (user, provider) =>
    db
      .selectFrom('providers')
      .select([
        'follower_count',
        sql<boolean>`archived_at is not null`.as('archived'),
        sql<boolean>`exists (select 1 from users u where u.id = ${user})`.as('user_exists'),
      ])
      .where('id', '=', provider),
  );
  if (!row || (following && row.archived)) return 'provider-not-found';
  if (!row.user_exists) return 'user-not-found';
  return { providerId, following, followerCount: row.follower_count };
}

/**
 * Follows a public provider; repeating it changes nothing. The follows trigger raises the count
 * in the same transaction as the insert, and only when a row really was inserted. An archived
 * provider gets no new follow row (the insert selects nothing).
 */
export async function followProvider(
  db: Kysely<Database>,
  input: { userId: number; providerId: number; now: Date },
): Promise<FollowOutcome<FollowResult>> {
  try {
    await runCompiled(db, 'followProvider', [input.userId, input.providerId, input.now], (user, provider, at) =>
      db
        .insertInto('follows')
        .columns(['user_id', 'provider_id', 'created_at'])
        .expression((eb) =>
          eb
            .selectFrom('providers as p')
            .select([eb.val(user).as('user_id'), 'p.id', eb.val(at).as('created_at')])
            .where('p.id', '=', provider)
            .where(PUBLIC_PROVIDER),
        )
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
): Promise<FollowOutcome<UnfollowResult>> {
  await runCompiled(db, 'unfollowProvider', [input.userId, input.providerId], (user, provider) =>
    db.deleteFrom('follows').where('user_id', '=', user).where('provider_id', '=', provider),
  );
  return followState(db, input.userId, input.providerId, false);
}

/**
 * The public providers a user follows, newest follow first (ties by provider id), by page number
 * or after a cursor (keyset on the user's (created_at, provider_id) index). Follows of archived
 * providers are kept but neither listed nor counted.
 */
export async function listFollowing(
  db: Kysely<Database>,
  request: Paging & { userId: number },
): Promise<PageResult<FollowedProvider> | 'user-not-found'> {
  const counted = await db
    .selectFrom('users as u')
    .select(followingCount(sql.ref('u.id')).as('total'))
    .where('u.id', '=', request.userId)
    .executeTakeFirst();
  if (!counted) return 'user-not-found';
  const total = Number(counted.total);
  const { limit, after, seal } = request;
  const page = after ? undefined : (request.page ?? 1);
  const offset = ((page ?? 1) - 1) * limit;
  if (!after && offset >= total) return pageResult([], { page, limit }, total);
  let query = db
    .selectFrom('follows as f')
    .innerJoin('providers as p', 'p.id', 'f.provider_id')
    .select([...PROVIDER_COLUMNS, 'f.created_at as followed_at', exactTimestamp('f.created_at').as('cursor_key')])
    .where('f.user_id', '=', request.userId)
    .where(PUBLIC_PROVIDER)
    .orderBy('f.created_at', 'desc')
    .orderBy('f.provider_id', 'desc');
  if (after) {
    query = query
      .where(sql<boolean>`(f.created_at, f.provider_id) < (${after.key}::timestamptz, ${after.id})`)
      .limit(limit + 1);
  } else {
    query = query.limit(limit).offset(offset);
  }
  const fetched = await query.execute();
  const more = after ? fetched.length > limit : offset + fetched.length < total;
  const rows = after && more ? fetched.slice(0, limit) : fetched;
  const last = rows.at(-1);
  const next = more && last && seal ? seal({ key: last.cursor_key, id: Number(last.id) }) : null;
  return pageResult(
    rows.map((row) => ({ ...toProvider(row), followedAt: row.followed_at.toISOString() })),
    { page, limit },
    total,
    next,
  );
}
