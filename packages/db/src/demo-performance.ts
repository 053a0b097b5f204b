/**
 * The demo seed's performance: every provider publishes a NAV series and signal counts, and its
 * figures are derived by the same code as a real publication (figureColumns → core's
 * deriveFigures), so demo figures obey the contract's rules.
 *
 * The series are random walks with drift and volatility of their own per provider, and drawdown
 * episodes (a regime that falls for a while) followed by recoveries; a few days are missing
 * here and there. Most providers publish from their creation (up to two years ago); about one in six
 * started publishing only a few weeks ago, so their 90-day (and some 30-day) figures are null, as
 * on a real board. The signal counts agree with the series: the mean per-signal return compounds
 * over the signals to the series' total return.
 *
 * Size: a large catalogue (the benchmark's million) keeps the total number of points bounded by
 * publishing a point every few days instead of daily (the figures are still exact for the series
 * stored), and every write is a statement per chunk of providers over arrays.
 */
import type { NavPoint } from '@signal/core';
import { dayDate, dayNumber } from '@signal/core';
import { sql, type Transaction } from 'kysely';
import { figureColumns, upsertNavPoints } from './performance.queries.js';
import type { Database } from './schema.js';

/** Points the seed writes at most, roughly, whatever the catalogue size. */
const POINT_BUDGET = 300_000;
/** Mean history length in days, for sizing the step between points. */
const MEAN_HISTORY_DAYS = 330;
const CHUNK = 5_000;
const DAY_MS = 86_400_000;

/** A standard normal draw (Box-Muller). */
function normal(): number {
  return Math.sqrt(-2 * Math.log(1 - Math.random())) * Math.cos(2 * Math.PI * Math.random());
}

/**
 * One provider's series from `startDay` to `endDay`, a point every `step` days: a log-price walk
 * whose drift turns negative during drawdown episodes.
 */
function randomWalk(startDay: number, endDay: number, step: number): NavPoint[] {
  const drift = 0.0012 + 0.001 * normal();
  const volatility = 0.006 + Math.random() * 0.025;
  let nav = [1, 10, 100, 1000][Math.floor(Math.random() * 4)] as number;
  let falling = false;
  const points: NavPoint[] = [];
  for (let day = startDay; day <= endDay; day += step) {
    if (day !== startDay) {
      // An episode starts about every 100 days and lasts about 20.
      if (falling ? Math.random() < 0.05 * step : Math.random() < 0.01 * step) falling = !falling;
      const mean = (falling ? -0.25 * volatility : drift) * step;
      nav *= Math.exp(mean + volatility * Math.sqrt(step) * normal());
      // A missing day now and then (a pipeline outage): the figures use the latest point before.
      if (step === 1 && day !== endDay && Math.random() < 0.03) continue;
    }
    points.push({ date: dayDate(day), nav });
  }
  // A sparse series still ends on its last day, so its figures are as of then.
  const last = dayNumber((points.at(-1) as NavPoint).date);
  if (last < endDay) {
    const gap = endDay - last;
    nav *= Math.exp(drift * gap + volatility * Math.sqrt(gap) * normal());
    points.push({ date: dayDate(endDay), nav });
  }
  return points;
}

/** Signal counts consistent with the series' growth: (1 + avg)^total = last / first. */
function demoSignals(series: NavPoint[], asOf: Date) {
  const total = Math.floor(Math.random() * Math.random() * 4000);
  if (total === 0) return { total: 0, winning: 0, avgReturnPct: 0, lastSignalAt: null };
  const growth = (series.at(-1) as NavPoint).nav / (series[0] as NavPoint).nav;
  const winShare = Math.min(0.8, Math.max(0.25, 0.5 + 0.15 * Math.log(growth) + 0.08 * normal()));
  return {
    total,
    winning: Math.round(total * winShare),
    avgReturnPct: (growth ** (1 / total) - 1) * 100,
    lastSignalAt: new Date(asOf.getTime() - Math.random() * 2 * DAY_MS).toISOString(),
  };
}

/** Publishes a series and signal counts for each of the `n` providers just inserted. */
export async function publishDemoPerformance(trx: Transaction<Database>, n: number, now: Date): Promise<void> {
  const step = Math.max(1, Math.ceil((n * MEAN_HISTORY_DAYS) / POINT_BUDGET));
  const today = Math.floor(now.getTime() / DAY_MS);
  let after = 0;
  for (;;) {
    const providers = await trx
      .selectFrom('providers')
      .select(['id', 'created_at'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(CHUNK)
      .execute();
    const last = providers.at(-1);
    if (!last) return;
    after = last.id;
    const navIds: number[] = [];
    const navPoints: NavPoint[] = [];
    const rows = providers.map(({ id, created_at }) => {
      // Most publish up to today; some stopped a few days ago (their asOf shows it).
      const endDay = today - (Math.random() < 0.1 ? 1 + Math.floor(Math.random() * 10) : 0);
      const created = Math.min(endDay, dayNumber(created_at.toISOString().slice(0, 10)));
      const startDay = Math.random() < 0.16 ? Math.max(created, endDay - 10 - Math.floor(Math.random() * 50)) : created;
      const series = randomWalk(startDay, endDay, step);
      for (const point of series) {
        navIds.push(id);
        navPoints.push(point);
      }
      return { id, ...figureColumns(series, demoSignals(series, new Date(endDay * DAY_MS + DAY_MS / 2))) };
    });
    await upsertNavPoints(trx, navIds, navPoints);
    const column = <K extends keyof (typeof rows)[number]>(key: K) => rows.map((row) => row[key]);
    await sql`
      update providers p
         set roi_7d_pct = f.roi_7d_pct, roi_30d_pct = f.roi_30d_pct, roi_90d_pct = f.roi_90d_pct,
             roi_all_pct = f.roi_all_pct, max_drawdown_pct = f.max_drawdown_pct, trading_days = f.trading_days,
             as_of = f.as_of, total_signals = f.total_signals, winning_signals = f.winning_signals,
             win_rate = f.win_rate, avg_return_pct = f.avg_return_pct, last_signal_at = f.last_signal_at,
             stats_updated_at = ${now}
        from unnest(
          ${column('id')}::bigint[], ${column('roi_7d_pct')}::float8[], ${column('roi_30d_pct')}::float8[],
          ${column('roi_90d_pct')}::float8[], ${column('roi_all_pct')}::float8[],
          ${column('max_drawdown_pct')}::float8[], ${column('trading_days')}::int[], ${column('as_of')}::date[],
          ${column('total_signals')}::int[], ${column('winning_signals')}::int[], ${column('win_rate')}::float8[],
          ${column('avg_return_pct')}::float8[], ${column('last_signal_at')}::timestamptz[]
        ) as f(id, roi_7d_pct, roi_30d_pct, roi_90d_pct, roi_all_pct, max_drawdown_pct, trading_days, as_of,
               total_signals, winning_signals, win_rate, avg_return_pct, last_signal_at)
       where p.id = f.id
    `.execute(trx);
  }
}
