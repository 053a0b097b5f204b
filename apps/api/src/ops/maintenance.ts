/**
 * Housekeeping on a schedule: records of used nonces that have expired, ended rate-limit
 * windows, sessions ended more than a week ago, Idempotency-Key answers older than 24 h, events and
 * finished webhook deliveries older than EVENT_RETENTION_DAYS are deleted at start
 * and then every minute, in bounded batches, so the tables stay bounded under a flood. Every
 * server runs it; concurrent runs share the work (SKIP LOCKED) instead of colliding.
 */
import {
  type PurgeResult,
  purgeEvents,
  purgeExpiredAuthState,
  purgeIdempotencyKeys,
  purgeWebhookDeliveries,
} from '@signal/db';
import type { Services } from '../procedures/context.js';
import { RATE_LIMIT_WINDOW_MS } from '../procedures/rate-limit.js';
import { IDEMPOTENCY_RETENTION_MS } from '../procedures/write-transaction.js';

export const PURGE_INTERVAL_MS = 60_000;
/**
 * How long a used nonce's record outlives its expiry: a server whose clock runs behind still
 * takes the nonce for unexpired, and must still find it used. Far above any sane clock skew.
 */
export const USED_NONCE_RETENTION_MS = 10 * 60_000;
/**
 * How long a session is kept after it ends (signed out or expired), for the record of who
 * signed in from where. Its token is refused all the same once the row is gone.
 */
export const ENDED_SESSION_RETENTION_MS = 7 * 24 * 3_600_000;

/**
 * The cutoffs of the auth state's purge as of `now`: nonces expired longer ago than their
 * retention, rate-limit windows that have ended, sessions ended longer ago than theirs. The tests
 * purge with these too, so that they check the retention the schedule applies.
 */
export function authStatePurgeCutoffs(now: Date) {
  return {
    noncesExpiredBefore: new Date(now.getTime() - USED_NONCE_RETENTION_MS),
    windowsBefore: new Date(now.getTime() - RATE_LIMIT_WINDOW_MS),
    sessionsEndedBefore: new Date(now.getTime() - ENDED_SESSION_RETENTION_MS),
  };
}

export interface Maintenance {
  /** Runs a purge now (or joins the one under way). */
  purge(): Promise<PurgeResult | undefined>;
  /** Stops the schedule and waits for a purge under way. */
  stop(): Promise<void>;
}

export function startMaintenance(services: Services, intervalMs = PURGE_INTERVAL_MS): Maintenance {
  let running: Promise<PurgeResult | undefined> | undefined;
  const purge = () => {
    running ??= (async () => {
      const now = services.now();
      try {
        const result = await purgeExpiredAuthState(services.database.db, authStatePurgeCutoffs(now));
        if (result.nonces + result.rateLimitWindows + result.sessions > 0)
          services.log.debug(result, 'purged expired auth state');
        const idempotencyKeys = await purgeIdempotencyKeys(
          services.database.db,
          new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS),
        );
        if (idempotencyKeys > 0) services.log.debug({ idempotencyKeys }, 'purged expired idempotency keys');
        const events = await purgeEvents(services.database.db, {
          before: new Date(now.getTime() - services.config.eventRetentionDays * 86_400_000),
        });
        if (events > 0) services.log.debug({ events }, 'purged old events');
        // Finished webhook deliveries (and their attempts' log) are kept as long as events.
        const deliveries = await purgeWebhookDeliveries(services.database.db, {
          before: new Date(now.getTime() - services.config.eventRetentionDays * 86_400_000),
        });
        if (deliveries > 0) services.log.debug({ deliveries }, 'purged finished webhook deliveries');
        return result;
      } catch (error) {
        // An outage: the next run catches up. Never a crash from a timer.
        services.log.warn({ err: error }, 'purge failed');
        return undefined;
      } finally {
        running = undefined;
      }
    })();
    return running;
  };
  void purge();
  const timer = setInterval(() => void purge(), intervalMs);
  timer.unref();
  return {
    purge,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
