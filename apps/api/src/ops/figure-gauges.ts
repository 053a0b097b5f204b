/**
 * Gauges of figures the database computes together (one query, read again at every scrape so
 * every server reports the same): a row per gauge, its name, help and the figure it shows.
 */
import type { Metrics } from './metrics.js';

export type FigureGauge<Figures> = readonly [name: string, help: string, pick: (figures: Figures) => number];

export function figureGauges<Figures>(
  metrics: Metrics,
  read: () => Promise<Figures>,
  gauges: readonly FigureGauge<Figures>[],
): void {
  for (const [name, help, pick] of gauges) metrics.gauge(name, help, async () => pick(await read()));
}
