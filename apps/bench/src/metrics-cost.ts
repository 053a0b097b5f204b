/**
 * The cost of METRICS=true: the same API on the same catalogue started twice, with metrics on
 * and off, driven with the same detail requests in the same alternating rounds. Detail is the
 * cheapest catalogue read, so the fixed per-request cost of the metrics (a histogram
 * observation per answer) weighs most there. Target: ≤ 5 % more CPU per request.
 */
import type { Row, Verdict } from './report.js';

/** The row's key (`--only metrics`). */
export const METRICS_KEY = 'metrics';

export const METRICS_TARGET_PCT = 5;

/** The verdict on a `metrics` row: CPU per request with metrics on over off. */
export function judgeMetricsCost(row: Row | undefined): Verdict[] {
  const on = row?.service.cpuUs;
  const off = row?.baseline?.cpuUs;
  if (on == null || off == null || off <= 0) return [];
  const extra = (on / off - 1) * 100;
  return [
    {
      target: `METRICS=true: ≤ ${METRICS_TARGET_PCT} % more CPU per request than metrics off (detail)`,
      measured: `${Math.round(on)} vs ${Math.round(off)} µs/req (${extra >= 0 ? '+' : ''}${extra.toFixed(1)} %)`,
      met: extra <= METRICS_TARGET_PCT,
    },
  ];
}
