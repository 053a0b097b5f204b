/**
 * Providers as the public reads them: the row a provider becomes on the wire, one provider's
 * detail and its statistics. The listing is provider-list.queries.ts; follows, follow.queries.ts.
 */
import type { Provider, ProviderStats } from '@signal/core';
import { type AliasedRawBuilder, type Kysely, sql } from 'kysely';
import { runCompiled, runCompiledColumns } from './compiled-query.js';
import { isoTimestamp } from './paging.js';
import type { Database } from './schema.js';
import type { VersionSink } from './version-sink.js';

/**
 * The one list of a provider's columns as the wire needs them, in the order providerOf reads
 * them: the reads select them from `providers as p` (PROVIDER_COLUMNS; a statement's own columns
 * follow at PROVIDER_COLUMN_NAMES.length on), the writes' RETURNING from `providers`
 * (providerColumns('')), the bench's hand-written SQL as text (PROVIDER_COLUMN_SQL). A new field
 * of the wire Provider is a name here and a line in providerOf (docs/recipes.md).
 */
export const PROVIDER_COLUMN_NAMES = [
  'id',
  'name',
  'description',
  'avatar_url',
  'follower_count',
  'created_at',
  'roi_30d_pct',
  'max_drawdown_pct',
  'win_rate',
  'reveal_delay_seconds',
] as const;

type Select<Names extends readonly string[], Prefix extends string> = {
  [K in keyof Names]: Names[K] extends 'created_at'
    ? AliasedRawBuilder<string, 'created_at'>
    : `${Prefix}${Names[K] & string}`;
};
type Selections<Prefix extends string> = Select<typeof PROVIDER_COLUMN_NAMES, Prefix>;

/** The columns as a select list, each of table `prefix` ('p.' or ''): created_at as its ISO text (isoTimestamp). */
export function providerColumns<Prefix extends 'p.' | ''>(prefix: Prefix): Selections<Prefix> {
  return PROVIDER_COLUMN_NAMES.map((name) =>
    name === 'created_at' ? isoTimestamp(`${prefix}created_at`).as('created_at') : `${prefix}${name}`,
  ) as unknown as Selections<Prefix>;
}

/** The columns selected from `providers as p`. */
export const PROVIDER_COLUMNS = providerColumns('p.');

/** The columns as SQL text, of `providers as p` (created_at as it is stored): the bench's own statements. */
export const PROVIDER_COLUMN_SQL = PROVIDER_COLUMN_NAMES.map((name) => `p.${name}`).join(', ');

/** Where a row of PROVIDER_COLUMNS (array row mode) has the columns a reader picks out. */
export const PROVIDER_AT = { id: 0, name: 1, followerCount: 4 } as const;

/** Only providers the public sees (not archived): every public read and the sort indexes' predicate. */
export const PUBLIC_PROVIDER = sql<boolean>`p.archived_at is null`;

/**
 * The one place a provider row becomes a wire Provider (fields listed, so no column leaks): a
 * row whose first columns are PROVIDER_COLUMN_NAMES, read as an array (runCompiledColumns), so a
 * hot read maps its rows by position with no keyed object per row. A keyed row: providerOfRow.
 */
export function providerOf(columns: readonly unknown[]): Provider {
  return {
    id: columns[0] as number,
    name: columns[1] as string,
    description: columns[2] as string | null,
    avatarUrl: columns[3] as string | null,
    followerCount: columns[4] as number,
    createdAt: columns[5] as string,
    roi30dPct: columns[6] as number | null,
    maxDrawdownPct: columns[7] as number,
    winRate: columns[8] as number,
    revealDelaySeconds: columns[9] as number,
  };
}

/** providerOf of a keyed row whose first keys are PROVIDER_COLUMN_NAMES (a driver's row keeps the select's order). */
export const providerOfRow = (row: object): Provider => providerOf(Object.values(row));

export async function findProvider(
  db: Kysely<Database>,
  id: number,
  observe?: VersionSink,
): Promise<Provider | undefined> {
  const [row] = await runCompiledColumns(db, 'findProvider', [id], (providerId) =>
    db
      .selectFrom('providers as p')
      .select([...PROVIDER_COLUMNS, sql<string>`p.version::text`.as('version')])
      .where('p.id', '=', providerId)
      .where(PUBLIC_PROVIDER),
  );
  if (!row) return undefined;
  if (observe) observe.version = row[PROVIDER_COLUMNS.length] as string;
  return providerOf(row);
}

const DAY_MS = 86_400_000;

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
