/**
 * The event feed's figures for /metrics, read from the database at every scrape (so every
 * server reports the same): events the feed has numbered, and the feed's lag.
 */
import { feedFigures } from '@signal/db';
import type { Services } from '../procedures/context.js';
import { openStreams } from '../procedures/event-stream.js';
import type { Metrics } from './metrics.js';

export function eventMetrics(metrics: Metrics, services: Pick<Services, 'database'>): void {
  const read = () => feedFigures(services.database.db);
  metrics.gauge(
    'signal_events_written',
    'Events committed and numbered for the feed, since the database began (every server reports the same)',
    async () => (await read()).numbered,
  );
  metrics.gauge(
    'signal_events_feed_lag_seconds',
    'Age of the oldest committed event the feed has not numbered yet (0 when none waits)',
    async () => (await read()).lagSeconds,
  );
  metrics.gauge('signal_events_streams_open', 'events.stream subscriptions open on this server', openStreams);
}
