/**
 * The demo catalogue's statistics read as a trader reads them: a total return compounded from
 * the per-signal return, never at or below −100 % (an account cannot lose more than it holds),
 * a drawdown at least the net loss, and zeros for a provider without signals. Checked over a
 * whole seeded catalogue on each backend.
 */
import { describe, expect, it } from 'vitest';
import { seedDemoCatalogue } from '../src/index.js';
import { BACKENDS } from '../src/testing.js';
import { useTestDatabase } from './support.js';

describe.each(BACKENDS)('demo statistics on %s', (backend) => {
  const db = useTestDatabase(backend);

  it('compound to a total return above −100 %, with a drawdown at least the net loss', async () => {
    const { db: kysely } = db();
    await seedDemoCatalogue(kysely, { providers: 2_000 });
    const rows = await kysely
      .selectFrom('provider_stats')
      .select(['provider_id', 'total_signals', 'win_rate', 'avg_return_pct', 'total_return_pct', 'max_drawdown_pct'])
      .execute();
    expect(rows).toHaveLength(2_000);

    const problems: string[] = [];
    for (const r of rows) {
      const id = `provider ${r.provider_id}`;
      if (r.total_signals === 0) {
        if (r.avg_return_pct !== 0 || r.total_return_pct !== 0 || r.max_drawdown_pct !== 0 || r.win_rate !== 0) {
          problems.push(`${id}: no signals but figures ${JSON.stringify(r)}`);
        }
        continue;
      }
      if (!(r.total_return_pct > -100)) problems.push(`${id}: total return ${r.total_return_pct} %`);
      // (1 + avg)^n is the growth the total states; avg is rounded to 4 decimals of a percent.
      const compounded = (1 + r.avg_return_pct / 100) ** r.total_signals;
      const stated = 1 + r.total_return_pct / 100;
      if (Math.abs(compounded / stated - 1) > 0.005) {
        problems.push(`${id}: ${r.total_signals} × ${r.avg_return_pct} % compounds to ${compounded}, not ${stated}`);
      }
      if (!(r.max_drawdown_pct >= Math.max(0, -r.total_return_pct) && r.max_drawdown_pct < 100)) {
        problems.push(`${id}: drawdown ${r.max_drawdown_pct} % with a total return of ${r.total_return_pct} %`);
      }
    }
    expect(problems).toEqual([]);

    // A spread of outcomes, winners and losers, not one figure.
    const totals = rows.filter((r) => r.total_signals > 0).map((r) => r.total_return_pct);
    expect(totals.filter((t) => t < 0).length).toBeGreaterThan(100);
    expect(totals.filter((t) => t > 50).length).toBeGreaterThan(100);
    expect(Math.min(...totals)).toBeGreaterThan(-100);
  });
});
