/**
 * Gauges of figures the database computes together (one query, read again at every scrape so
 * every server reports the same): per figure shown, the gauge's name and help, in the order the
 * gauges are registered.
 */
import type { Metrics } from './metrics.js';

export type FigureGauges<Figures extends Record<string, number>> = {
  readonly [K in keyof Figures]?: readonly [name: string, help: string];
};

export function figureGauges<Figures extends Record<string, number>>(
  metrics: Metrics,
  read: () => Promise<Figures>,
  gauges: FigureGauges<Figures>,
): void {
  for (const figure of Object.keys(gauges) as (keyof Figures & string)[]) {
    const [name, help] = gauges[figure] as readonly [string, string];
    metrics.gauge(name, help, async () => (await read())[figure] as number);
  }
}
