// A signal pipeline's publisher: creates a provider (once, whatever the retries) and publishes
// its daily NAV series and signal counts, then reads the chart back as the public sees it.
//
//   ADMIN_KEY=<32+ characters> pnpm start                       # in one terminal: the API on :3000
//   SIGNAL_KEY=<the same ADMIN_KEY, or an sgk_ key with providers:write and stats:write> \
//     node packages/sdk/examples/publisher.mjs
//
// SIGNAL_API_URL points it elsewhere (default http://127.0.0.1:3000). It exits non-zero if
// anything is off.
import { createClient, createServiceClient } from '@signal/sdk';

const baseUrl = process.env.SIGNAL_API_URL ?? 'http://127.0.0.1:3000';
const key = process.env.SIGNAL_KEY;
if (!key) throw new Error('publisher: set SIGNAL_KEY to a service key (providers:write, stats:write) or ADMIN_KEY');

const operator = createServiceClient({ baseUrl, key });
const run = new Date().toISOString().slice(0, 10);

// Idempotency keys name the operation, so a retry after a timeout never makes a second provider.
const provider = await operator.createProvider(
  { name: 'Publisher Example Fund', description: 'Daily NAV published by examples/publisher.mjs' },
  { idempotencyKey: `example-create-${run}` },
);
console.log(`provider ${provider.id}: ${provider.name}`);

// NAV per unit at each day's close, cash flows already taken out (deposits and withdrawals
// issue or redeem units at that day's NAV, so they never move it). Here: 180 days of a walk,
// the same on every run of a day (a seeded generator), so a rerun is a retry of the same request.
let seed = provider.id * 7919;
const random = () => {
  seed = (seed * 48271) % 2147483647;
  return seed / 2147483647;
};
const DAY = 86_400_000;
const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
let nav = 100;
const points = [];
for (let d = 179; d >= 0; d--) {
  nav *= Math.exp(0.0008 + 0.015 * (random() * 2 - 1));
  points.push({ date: new Date(today - d * DAY).toISOString().slice(0, 10), nav: Number(nav.toFixed(6)) });
}
// ≤ 1,000 points a request, oldest first; a date sent again replaces its value.
const stats = await operator.publishPerformance(
  provider.id,
  { points, signals: { total: 84, winning: 49, avgReturnPct: 0.37, lastSignalAt: `${run}T00:00:00.000Z` } },
  { idempotencyKey: `example-publish-${provider.id}-${run}` },
);
console.log(
  `as of ${stats.asOf}: 7d ${stats.roi7dPct?.toFixed(2)} %, 30d ${stats.roi30dPct?.toFixed(2)} %, ` +
    `90d ${stats.roi90dPct?.toFixed(2)} %, max drawdown ${stats.maxDrawdownPct.toFixed(2)} %, ` +
    `win rate ${(stats.winRate * 100).toFixed(1)} % over ${stats.tradingDays} days`,
);

// Every day after the close, publish that day's point (or after every close, today's NAV so far).
const chart = await createClient({ baseUrl }).providers.performance(provider.id, '30d');
if (chart.points.at(-1)?.roiPct.toFixed(9) !== stats.roi30dPct?.toFixed(9))
  throw new Error('publisher: chart and stats differ');
console.log(`30-day chart: ${chart.points.length} points from ${chart.points[0]?.date} to ${chart.asOf}`);
