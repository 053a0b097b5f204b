/**
 * Every figure the service derives from a provider's published daily NAV series (CONTRACT.md,
 * "Performance published by the signal pipeline"), in one place: the publishing transaction
 * stores what `deriveFigures` returns, the demo seed publishes through it, and the performance
 * chart is `performanceWindow`. Plain double-precision arithmetic in TypeScript over the stored
 * series, so PostgreSQL and PGlite give bit-identical figures (the database only stores doubles,
 * which round-trip exactly).
 *
 * Dates are calendar days (`YYYY-MM-DD`, UTC); every figure is taken from `asOf`, the last
 * point's date, not from today, so a provider that stops publishing shows how old its figures are.
 */

/** One point of the series: the net asset value per unit at the end of that day. */
export interface NavPoint {
  date: string;
  nav: number;
}

/** What the series says, as stored on the provider's row. */
export interface SeriesFigures {
  roi7dPct: number | null;
  roi30dPct: number | null;
  roi90dPct: number | null;
  roiAllPct: number | null;
  maxDrawdownPct: number;
  tradingDays: number;
  asOf: string | null;
}

/** The figures of a provider that never published: the contract's defaults. */
export const NO_SERIES: SeriesFigures = {
  roi7dPct: null,
  roi30dPct: null,
  roi90dPct: null,
  roiAllPct: null,
  maxDrawdownPct: 0,
  tradingDays: 0,
  asOf: null,
};

export const PERFORMANCE_WINDOWS = ['7d', '30d', '90d', '1y', 'all'] as const;
export type PerformanceWindow = (typeof PERFORMANCE_WINDOWS)[number];

/** Days each window looks back from asOf (`all`: from the first point). */
const WINDOW_DAYS: Record<PerformanceWindow, number> = { '7d': 7, '30d': 30, '90d': 90, '1y': 365, all: Infinity };

/** Above this many points in a window, the chart keeps one point per ISO week. */
export const CHART_FULL_POINTS = 400;

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of a `YYYY-MM-DD` date. */
export function dayNumber(date: string): number {
  return Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / DAY_MS;
}

/** The `YYYY-MM-DD` of a day number. */
export function dayDate(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/**
 * Index of the latest point on or before `day` in a series sorted by date, or -1 when no point
 * is that old (binary search: `days` ascending).
 */
function latestOnOrBefore(days: readonly number[], day: number): number {
  let low = 0;
  let high = days.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if ((days[middle] as number) <= day) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found;
}

/** Percent change from `from` to `to`. */
const changePct = (to: number, from: number) => (to / from - 1) * 100;

/**
 * The figures of a series sorted by date ascending, one point per date (as stored: the table's
 * primary key is (provider, date)).
 */
export function deriveFigures(points: readonly NavPoint[]): SeriesFigures {
  const last = points.at(-1);
  const first = points[0];
  if (!last || !first) return NO_SERIES;
  const days = points.map((point) => dayNumber(point.date));
  const asOfDay = days.at(-1) as number;
  const roi = (back: number) => {
    const at = latestOnOrBefore(days, asOfDay - back);
    return at < 0 ? null : changePct(last.nav, (points[at] as NavPoint).nav);
  };
  let peak = first.nav;
  let maxDrawdown = 0;
  for (const { nav } of points) {
    if (nav > peak) peak = nav;
    const fall = (1 - nav / peak) * 100;
    if (fall > maxDrawdown) maxDrawdown = fall;
  }
  return {
    roi7dPct: roi(7),
    roi30dPct: roi(30),
    roi90dPct: roi(90),
    roiAllPct: points.length < 2 ? null : changePct(last.nav, first.nav),
    maxDrawdownPct: maxDrawdown,
    tradingDays: points.length,
    asOf: last.date,
  };
}

/** One point of the chart: cumulative return and running fall from the peak, since the window's base. */
export interface ChartPoint {
  date: string;
  roiPct: number;
  drawdownPct: number;
}

/**
 * The chart of one window: from its base (the latest point on or before asOf − window, else the
 * first point) to asOf, computed on every point and then, above CHART_FULL_POINTS points, thinned
 * to the base, the last point of each ISO week after it, and the last point.
 */
export function performanceWindow(points: readonly NavPoint[], window: PerformanceWindow): ChartPoint[] {
  const last = points.at(-1);
  if (!last) return [];
  const days = points.map((point) => dayNumber(point.date));
  const back = WINDOW_DAYS[window];
  const baseIndex = Number.isFinite(back) ? Math.max(0, latestOnOrBefore(days, dayNumber(last.date) - back)) : 0;
  const base = (points[baseIndex] as NavPoint).nav;
  const chart: ChartPoint[] = [];
  let peak = base;
  for (let i = baseIndex; i < points.length; i++) {
    const { date, nav } = points[i] as NavPoint;
    if (nav > peak) peak = nav;
    chart.push({ date, roiPct: changePct(nav, base), drawdownPct: (1 - nav / peak) * 100 });
  }
  if (chart.length <= CHART_FULL_POINTS) return chart;
  // ISO weeks run Monday to Sunday; day 0 (1970-01-01) was a Thursday, so (day + 3) / 7 counts
  // Monday-started weeks. A point is the last of its week when the next one is in a later week.
  const week = (i: number) => Math.floor(((days[baseIndex + i] as number) + 3) / 7);
  return chart.filter((_, i) => i === 0 || i === chart.length - 1 || week(i) !== week(i + 1));
}
