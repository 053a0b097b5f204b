/**
 * Published performance: the signal pipeline's NAV points and signal counters go in, the figures
 * of core's deriveFigures come out, all in one transaction, and the public chart reads the series.
 */
import {
  deriveFigures,
  type NavPoint,
  type Performance,
  type PerformanceWindow,
  type ProviderStats,
  performanceWindow,
} from '@signal/core';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { VersionSink } from './catalogue-version.queries.js';
import { runCompiled } from './compiled-query.js';
import { gainedColumns, PUBLIC_PROVIDER, STATS_COLUMNS, toProviderStats } from './provider.queries.js';
import type { Database } from './schema.js';

const DAY_MS = 86_400_000;

export interface PublishedSignals {
  total: number;
  winning: number;
  avgReturnPct: number;
  lastSignalAt: string | null;
}

export interface Publication {
  providerId: number;
  /** Upserted by date; for a date given twice the last one counts. */
  points?: readonly NavPoint[];
  signals?: PublishedSignals;
  now: Date;
}

/** True when a publication carries something: points or signals. */
export const isPublication = (publication: Pick<Publication, 'points' | 'signals'>) =>
  (publication.points?.length ?? 0) > 0 || publication.signals !== undefined;

/** One value per date, the last given winning, in date order. */
function lastPerDate(points: readonly NavPoint[]): NavPoint[] {
  const byDate = new Map<string, number>();
  for (const point of points) byDate.set(point.date, point.nav);
  return [...byDate].map(([date, nav]) => ({ date, nav })).sort((a, b) => (a.date < b.date ? -1 : 1));
}

/** Upserts points of one provider, one statement whatever their number (arrays, not a VALUES list). */
export async function upsertNavPoints(
  db: Kysely<Database>,
  providerId: number | readonly number[],
  points: readonly NavPoint[],
): Promise<void> {
  if (points.length === 0) return;
  const ids = typeof providerId === 'number' ? points.map(() => providerId) : providerId;
  await sql`
    insert into provider_nav (provider_id, date, nav)
    select * from unnest(${ids}::bigint[], ${points.map((p) => p.date)}::date[], ${points.map((p) => p.nav)}::float8[])
    on conflict (provider_id, date) do update set nav = excluded.nav
  `.execute(db);
}

/** A provider's whole stored series, oldest first. */
async function readNavSeries(db: Kysely<Database>, providerId: number): Promise<NavPoint[]> {
  return runCompiled(db, 'readNavSeries', [providerId], (id) =>
    db
      .selectFrom('provider_nav as n')
      .select([sql<string>`to_char(n.date, 'YYYY-MM-DD')`.as('date'), 'n.nav'])
      .where('n.provider_id', '=', id)
      .orderBy('n.date'),
  );
}

/**
 * The columns a publication writes: the figures derived from the full stored series, and the
 * signal counters when given (win_rate = winning / total, 0 with none).
 */
export function figureColumns(series: readonly NavPoint[], signals: PublishedSignals | undefined) {
  const figures = deriveFigures(series);
  return {
    roi_7d_pct: figures.roi7dPct,
    roi_30d_pct: figures.roi30dPct,
    roi_90d_pct: figures.roi90dPct,
    roi_all_pct: figures.roiAllPct,
    max_drawdown_pct: figures.maxDrawdownPct,
    trading_days: figures.tradingDays,
    as_of: figures.asOf,
    ...(signals && {
      total_signals: signals.total,
      winning_signals: signals.winning,
      win_rate: signals.total === 0 ? 0 : signals.winning / signals.total,
      avg_return_pct: signals.avgReturnPct,
      last_signal_at: signals.lastSignalAt,
    }),
  };
}

/**
 * Publishes inside `trx` (the caller's transaction, where its events are written too): locks the
 * provider's row (archived ones included: the pipeline may still publish), upserts the points,
 * derives every figure again from the full stored series (so a re-published date counts), and
 * stores them with the counters. Returns the provider's Stats after it, or 'provider-not-found'.
 * A publication of nothing (no points, no signals) writes nothing and answers the Stats as they are.
 */
export async function publishPerformance(
  trx: Transaction<Database>,
  publication: Publication,
): Promise<ProviderStats | 'provider-not-found'> {
  const { providerId, now } = publication;
  const locked = await trx
    .selectFrom('providers')
    .select('id')
    .where('id', '=', providerId)
    .forUpdate()
    .executeTakeFirst();
  if (!locked) return 'provider-not-found';
  const gained = gainedColumns(new Date(now.getTime() - 7 * DAY_MS), new Date(now.getTime() - 30 * DAY_MS));
  if (!isPublication(publication)) {
    const row = await trx
      .selectFrom('providers as p')
      .select([...STATS_COLUMNS, ...gained])
      .where('p.id', '=', providerId)
      .executeTakeFirstOrThrow();
    return toProviderStats(row);
  }
  await upsertNavPoints(trx, providerId, lastPerDate(publication.points ?? []));
  const series = await readNavSeries(trx, providerId);
  const row = await trx
    .updateTable('providers as p')
    .set({ ...figureColumns(series, publication.signals), stats_updated_at: now })
    .where('p.id', '=', providerId)
    .returning([...STATS_COLUMNS, ...gained])
    .executeTakeFirstOrThrow();
  return toProviderStats(row);
}

/** The version of a chart: its provider's (bumped by every publication) and its window. */
export const performanceVersion = (providerVersion: string, window: PerformanceWindow) =>
  `${providerVersion}.${window}`;

/**
 * The chart of a public provider for one window (undefined when there is no such public
 * provider). Leaves the provider's version in `observe`: a publication bumps it (the figures are
 * on its row), so it is the answer's ETag source like the detail's.
 */
export async function findPerformance(
  db: Kysely<Database>,
  providerId: number,
  window: PerformanceWindow,
  observe?: VersionSink,
): Promise<Performance | undefined> {
  const rows = await runCompiled(db, 'findPerformance', [providerId], (id) =>
    db
      .selectFrom('providers as p')
      .leftJoin('provider_nav as n', 'n.provider_id', 'p.id')
      .select([
        sql<string>`p.version::text`.as('version'),
        sql<string | null>`to_char(n.date, 'YYYY-MM-DD')`.as('date'),
        'n.nav',
      ])
      .where('p.id', '=', id)
      .where(PUBLIC_PROVIDER)
      .orderBy('n.date'),
  );
  const first = rows[0];
  if (!first) return undefined;
  if (observe) observe.version = performanceVersion(first.version, window);
  const series = first.date === null ? [] : (rows as { date: string; nav: number }[]);
  return {
    providerId,
    window,
    asOf: series.at(-1)?.date ?? null,
    points: performanceWindow(series, window),
  };
}
