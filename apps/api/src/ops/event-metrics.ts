/**
 * The event feed's figures for /metrics, read from the database at every scrape (so every
 * server reports the same): events the feed has numbered, and the feed's lag.
 */
import { feedFigures } from '@signal/db';
import type { Services } from '../procedures/context.js';
import { openStreams } from '../procedures/event-stream.js';
import { figureGauges } from './figure-gauges.js';
import type { Metrics } from './metrics.js';

export function eventMetrics(metrics: Metrics, services: Pick<Services, 'database'>): void {
  figureGauges(metrics, () => feedFigures(services.database.db), {
    numbered: [
      'signal_events_written',
      'Events committed and numbered for the feed, since the database began (every server reports the same)',
    ],
    lagSeconds: [
      'signal_events_feed_lag_seconds',
      'Age of the oldest committed event the feed has not numbered yet (0 when none waits)',
    ],
  });
  metrics.gauge('signal_events_streams_open', 'events.stream subscriptions open on this server', openStreams);
}
