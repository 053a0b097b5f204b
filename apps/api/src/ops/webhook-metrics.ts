/**
 * Webhook figures for /metrics: attempts' outcomes counted by this server, and, read from the
 * database at each scrape (so every server reports the same), the deliveries waiting and the age
 * of the oldest event not yet delivered.
 */
import { webhookFigures } from '@signal/db';
import type { Services } from '../procedures/context.js';
import { figureGauges } from './figure-gauges.js';
import type { Metrics } from './metrics.js';
import type { DeliveryOutcomeLabel } from './webhook-worker.js';

/** Registers the figures; returns what the worker calls for each recorded attempt. */
export function webhookMetrics(
  metrics: Metrics,
  services: Pick<Services, 'database'>,
): (outcome: DeliveryOutcomeLabel) => void {
  const attempt = metrics.outcomes(
    'signal_webhook_deliveries_total',
    'Webhook delivery attempts recorded by this server, by outcome: succeeded (a 2xx), retrying (failed, another ' +
      'attempt scheduled), failed (failed for good: schedule spent, 410, endpoint disabled)',
    ['succeeded', 'retrying', 'failed'] satisfies DeliveryOutcomeLabel[],
  );
  figureGauges(metrics, () => webhookFigures(services.database.db), {
    oldestAgeSeconds: [
      'signal_webhook_oldest_undelivered_seconds',
      'Age of the oldest event with a webhook delivery still pending (0 when none waits)',
    ],
    pending: ['signal_webhook_deliveries_pending', 'Webhook deliveries waiting for a (next) attempt'],
  });
  return attempt;
}
