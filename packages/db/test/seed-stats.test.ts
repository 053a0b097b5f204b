/**
 * The demo catalogue's statistics read as a trader reads them: every provider published a NAV
 * series, its stored figures are exactly what the series says (recomputed here from the
 * contract's definitions, not by the code under test), totals are the series' growth (above
 * −100 %, never a sum of per-signal returns), and the board has winners, losers, drawdowns and
 * young providers whose 90-day figure is still null. Checked over a seeded catalogue on each backend.
 */

import { describeBackends } from '@signal/test-support/vitest';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { seedDemoCatalogue } from '../src/index.js';
import { useTestDatabase } from './support.js';

const DAY = 86_400_000;

/** The contract's figures of a sorted series, written independently of core's deriveFigures. */
function expectedFigures(series: { date: string; nav: number }[]) {
  const time = (date: string) => Date.parse(`${date}T00:00:00Z`);
  const first = series[0] as { date: string; nav: number };
  const last = series[series.length - 1] as { date: string; nav: number };
  const asOf = time(last.date);
  const navOnOrBefore = (t: number) => {
    let found: number | null = null;
    for (const point of series) if (time(point.date) <= t) found = point.nav;
    return found;
  };
  const roi = (days: number) => {
    const before = navOnOrBefore(asOf - days * DAY);
    return before === null ? null : (last.nav / before - 1) * 100;
  };
  let peak = -Infinity;
  let drawdown = 0;
  for (const { nav } of series) {
    peak = Math.max(peak, nav);
    drawdown = Math.max(drawdown, (1 - nav / peak) * 100);
  }
  return {
    roi_7d_pct: roi(7),
    roi_30d_pct: roi(30),
    roi_90d_pct: roi(90),
    roi_all_pct: series.length < 2 ? null : (last.nav / first.nav - 1) * 100,
    max_drawdown_pct: drawdown,
    trading_days: series.length,
    as_of: last.date,
  };
}

const close = (a: number | null, b: number | null) =>
  a === null || b === null ? a === b : Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

describeBackends('demo statistics on %s', (backend) => {
  const t = useTestDatabase(backend);

  it('are the figures of a published series, with a spread a real board has', async () => {
    const { db: kysely } = t;
    await seedDemoCatalogue(kysely, { providers: 300 });
    const providers = await kysely
      .selectFrom('providers')
      .select([
        'id',
        'roi_7d_pct',
        'roi_30d_pct',
        'roi_90d_pct',
        'roi_all_pct',
        'max_drawdown_pct',
        'trading_days',
        sql<string>`to_char(as_of, 'YYYY-MM-DD')`.as('as_of'),
        'total_signals',
        'winning_signals',
        'win_rate',
        'avg_return_pct',
        'last_signal_at',
      ])
      .orderBy('id')
      .execute();
    const points = await kysely
      .selectFrom('provider_nav')
      .select(['provider_id', sql<string>`to_char(date, 'YYYY-MM-DD')`.as('date'), 'nav'])
      .orderBy('provider_id')
      .orderBy('date')
      .execute();
    const series = new Map<number, { date: string; nav: number }[]>();
    for (const p of points) series.set(p.provider_id, [...(series.get(p.provider_id) ?? []), p]);
    expect(providers).toHaveLength(300);

    const problems: string[] = [];
    for (const p of providers) {
      const own = series.get(p.id) ?? [];
      if (own.length === 0) {
        problems.push(`provider ${p.id}: no series`);
        continue;
      }
      const expected = expectedFigures(own);
      for (const [key, value] of Object.entries(expected)) {
        const stored = p[key as keyof typeof expected];
        if (typeof value === 'string' ? stored !== value : !close(stored as number | null, value)) {
          problems.push(`provider ${p.id}: ${key} ${stored}, series says ${value}`);
        }
      }
      if (p.win_rate !== (p.total_signals === 0 ? 0 : p.winning_signals / p.total_signals)) {
        problems.push(`provider ${p.id}: win rate ${p.win_rate} of ${p.winning_signals}/${p.total_signals}`);
      }
      if (p.total_signals === 0 && (p.avg_return_pct !== 0 || p.last_signal_at !== null)) {
        problems.push(`provider ${p.id}: no signals but ${p.avg_return_pct} % and ${p.last_signal_at}`);
      }
      // The mean per-signal return compounds to the series' growth: a board's total is never a sum.
      if (p.total_signals > 0 && p.roi_all_pct !== null) {
        const compounded = (1 + p.avg_return_pct / 100) ** p.total_signals;
        if (!close(compounded, 1 + p.roi_all_pct / 100)) {
          problems.push(`provider ${p.id}: ${p.total_signals} × ${p.avg_return_pct} % is not ${p.roi_all_pct} %`);
        }
      }
    }
    expect(problems).toEqual([]);

    const totals = providers.flatMap((p) => (p.roi_all_pct === null ? [] : [p.roi_all_pct]));
    expect(Math.min(...totals)).toBeGreaterThan(-100);
    expect(totals.filter((t) => t < 0).length).toBeGreaterThan(20);
    expect(totals.filter((t) => t > 20).length).toBeGreaterThan(20);
    // Drawdowns and recoveries: most fell at some point, and many of those are above their fall.
    expect(providers.filter((p) => p.max_drawdown_pct > 5).length).toBeGreaterThan(150);
    // Young series: their 90-day figure is null while they have a 7-day one.
    expect(providers.filter((p) => p.roi_90d_pct === null && p.roi_7d_pct !== null).length).toBeGreaterThan(10);
  });
});
