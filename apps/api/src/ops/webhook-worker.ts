/**
 * The webhook delivery worker: one in every API process (docs/events.md, "Webhooks"). A cycle
 * fans the feed's new events out into deliveries (the process's feed pump numbers them and wakes
 * the worker when the head moves: `feedMoved`), records
 * the outcomes of finished attempts, and claims due deliveries for free slots; each claim starts
 * an HTTP attempt outside any transaction.
 *
 * - Bounded memory: at most WEBHOOK_CONCURRENCY attempts in flight, and a claim takes no more
 *   than the free slots, however many deliveries wait in the database.
 * - Fair across endpoints (webhook-shares.ts): an endpoint that answers promptly gets up to
 *   WEBHOOK_ENDPOINT_CONCURRENCY slots; a new one a probe, a slow one
 *   WEBHOOK_SLOW_ENDPOINT_CONCURRENCY, new and slow ones each a quarter of the slots together,
 *   so receivers that hang hold little and never keep a new endpoint waiting.
 * - Across servers: a claimed delivery carries this worker's lease until its outcome is
 *   recorded; one killed mid-attempt leaves the lease to run out (ATTEMPT_TIMEOUT_MS plus a
 *   margin), and any server then claims it again: at least once, never lost.
 * - Stop (SIGTERM): no new claims; attempts in flight get the grace period to finish, then are
 *   cut short and released (due at once, for another server), outcomes are recorded.
 * - Polling, not LISTEN/NOTIFY (a transaction-mode pooler drops those): every POLL_MS when idle,
 *   at once while there is work. An idle poll is one compiled statement (`pendingWork`) that
 *   says which of fan-out and claim would find anything; only those run.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import {
  type ClaimedDelivery,
  claimDeliveries,
  type DeliveryOutcome,
  fanOutEvents,
  pendingWork,
  recordDeliveryOutcomes,
  releaseDeliveries,
} from '@signal/db';
import { nextRetryDelay, parseRetryAfter } from '../config/webhook-schedule.js';
import type { Services } from '../procedures/context.js';
import { createHostResolver, type TargetPolicy } from '../wire/webhook-target.js';
import { ATTEMPT_TIMEOUT_MS, type AttemptResult, createAgents, sendAttempt } from './webhook-send.js';
import { createEndpointShares } from './webhook-shares.js';

/** How often an idle worker looks for work. */
export const POLL_MS = 200;
/** Events fanned out per statement. */
const FAN_OUT_BATCH = 1_000;
/** A claim's lease: the attempt's timeout and a margin for recording its outcome. */
export const LEASE_MS = ATTEMPT_TIMEOUT_MS + 10_000;

export type DeliveryOutcomeLabel = 'succeeded' | 'retrying' | 'failed';

export interface WebhookWorker {
  /** Stops claiming; waits up to `graceMs` for attempts in flight, then releases the rest. */
  stop(graceMs: number): Promise<void>;
  /** Attempts in flight now. */
  inFlight(): number;
  /** The feed's head moved (the feed pump): fan out at once. */
  feedMoved(): void;
}

export function startWebhookWorker(
  services: Pick<Services, 'database' | 'log' | 'config'>,
  hooks: { onOutcome?: (outcome: DeliveryOutcomeLabel) => void } = {},
): WebhookWorker {
  const { database, log } = services;
  const settings = services.config.webhooks;
  const db = database.db;
  const token = randomUUID();
  const policy: TargetPolicy = {
    allowHttp: settings.allowHttp,
    allowPrivate: settings.allowPrivate,
    resolve: createHostResolver(settings.dnsServers),
  };
  const agents = createAgents();
  const stopAttempts = new AbortController();
  // Every attempt in flight listens to it.
  setMaxListeners(0, stopAttempts.signal);
  /** Attempts in flight by delivery id; each endpoint's share of them. */
  const running = new Map<string, Promise<void>>();
  const shares = createEndpointShares(settings);
  let finished: { claim: ClaimedDelivery; result: AttemptResult }[] = [];
  let stopping = false;
  let cycling: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  const schedule = (delay: number) => {
    if (stopping) return;
    clearTimeout(timer);
    timer = setTimeout(run, delay);
    timer.unref();
  };
  /** Runs a cycle now, or right after the one under way. */
  const kick = () => {
    if (cycling) again = true;
    else schedule(0);
  };
  function run() {
    if (cycling || stopping) return;
    cycling = cycle()
      .catch((error: unknown) => {
        // An outage or a failover: the next cycle tries again. Never a crash from a timer.
        log.warn({ err: error }, 'webhook delivery cycle failed');
        return false;
      })
      .then((busy) => {
        cycling = undefined;
        const now = again || busy;
        again = false;
        schedule(now ? 0 : POLL_MS);
      });
  }

  /** When the feed was last fanned out, and whether that left more to fan out. */
  let fannedAt = 0;
  let moreToFanOut = false;
  /** The pump saw the head move since: there is work for certain. */
  let feedMoved = false;

  /** One cycle; true when there may be more work at once. */
  async function cycle(): Promise<boolean> {
    await recordFinished();
    // The feed's new events: every POLL_MS, or at once while a fan-out left more behind. Not on
    // every cycle: a cycle also runs each time attempts finish, many times a second under load.
    // A cycle that runs because attempts finished claims without asking first.
    let claimable = true;
    if (moreToFanOut || feedMoved || performance.now() - fannedAt >= POLL_MS) {
      fannedAt = performance.now();
      // While a fan-out left more behind, or the head moved, there is work for certain; else ask
      // first (an idle poll: one statement instead of a transaction and a claim).
      const work = moreToFanOut || feedMoved ? undefined : await pendingWork(db);
      feedMoved = false;
      if (!work || work.behind) {
        const fanned = await fanOutEvents(db, FAN_OUT_BATCH);
        moreToFanOut = fanned.events === FAN_OUT_BATCH;
      }
      claimable = !work || work.behind || work.due;
    }
    const free = settings.concurrency - running.size;
    if (free <= 0 || stopping || !claimable) return moreToFanOut;
    // New endpoints' probes and slow endpoints first, each out of its quarter, so busy prompt
    // endpoints cannot keep them from their turn; then the prompt ones with what is left.
    let left = free;
    for (const plan of shares.plans(free)) {
      const claim = plan(left);
      if (claim.limit <= 0) continue;
      const claimed = await claimDeliveries(db, { token, ...claim, leaseMs: LEASE_MS });
      for (const delivery of claimed) start(delivery);
      left -= claimed.length;
    }
    return moreToFanOut || left === 0;
  }

  function start(claim: ClaimedDelivery) {
    shares.started(claim.endpointId, claim.id);
    const attempt = (async () => {
      const result: AttemptResult = claim.event
        ? await sendAttempt(
            claim,
            {
              id: claim.eventId,
              body: JSON.stringify({
                type: claim.event.type,
                timestamp: claim.event.occurredAt,
                data: claim.event.data,
              }),
            },
            { policy, agents, signal: stopAttempts.signal, connectTimeoutMs: settings.connectTimeoutMs },
          ).catch((error: unknown) => ({ ok: false, responseStatus: null, error: `attempt failed: ${String(error)}` }))
        : { ok: false, responseStatus: null, error: 'the event is no longer kept (EVENT_RETENTION_DAYS)' };
      finished.push({ claim, result });
      running.delete(claim.id);
      shares.finished(claim.endpointId, claim.id, result.aborted ? undefined : result.responseStatus !== null);
      kick();
    })();
    running.set(claim.id, attempt);
  }

  /** Records what finished (one transaction for all of them); releases what a stop cut short. */
  async function recordFinished() {
    if (finished.length === 0) return;
    const batch = finished;
    finished = [];
    const aborted = batch.filter(({ result }) => result.aborted).map(({ claim }) => claim.id);
    const outcomes: DeliveryOutcome[] = batch
      .filter(({ result }) => !result.aborted)
      .map(({ claim, result }) => toOutcome(claim, result));
    try {
      await releaseDeliveries(db, token, aborted);
      const { statuses, disabled } = await recordDeliveryOutcomes(db, token, outcomes, settings.disableAfterMs);
      for (const status of statuses) hooks.onOutcome?.(status === 'pending' ? 'retrying' : status);
      if (disabled.length > 0) log.warn({ endpoints: disabled }, 'webhook endpoints disabled');
    } catch (error) {
      // Not recorded: the leases run out and the attempts are made again (at least once).
      log.warn({ err: error, attempts: batch.length }, 'recording webhook attempts failed');
    }
  }

  function toOutcome(claim: ClaimedDelivery, result: AttemptResult): DeliveryOutcome {
    const base = { id: claim.id, endpointId: claim.endpointId, responseStatus: result.responseStatus };
    if (result.ok) return { ...base, outcome: 'succeeded', error: null };
    const gone = result.responseStatus === 410;
    const retryAfterMs = parseRetryAfter(result.retryAfter, Date.now());
    const delay =
      gone || !claim.event ? undefined : nextRetryDelay(settings.retrySchedule, claim.attempts + 1, retryAfterMs);
    return delay === undefined
      ? { ...base, outcome: 'failed', error: result.error, gone }
      : { ...base, outcome: 'retry', retryInMs: delay, error: result.error };
  }

  schedule(0);

  return {
    inFlight: () => running.size,
    feedMoved() {
      feedMoved = true;
      kick();
    },
    async stop(graceMs) {
      stopping = true;
      clearTimeout(timer);
      await cycling;
      if (running.size > 0) {
        let expired!: NodeJS.Timeout;
        await Promise.race([
          Promise.all(running.values()),
          new Promise<void>((resolve) => {
            expired = setTimeout(resolve, graceMs);
          }),
        ]);
        clearTimeout(expired);
        // Still running after the grace: cut short and released for another server.
        stopAttempts.abort();
        await Promise.all(running.values());
      }
      await recordFinished();
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/** The log's warnings for the development-only switches, when on. */
export function webhookWarnings(config: Pick<Services['config'], 'webhooks'>): string[] {
  const warnings: string[] = [];
  if (config.webhooks.allowPrivate) {
    warnings.push(
      'WEBHOOK_ALLOW_PRIVATE is on: webhooks may be delivered to loopback, private and metadata addresses. ' +
        'For development and tests only: never in production',
    );
  }
  if (config.webhooks.allowHttp) {
    warnings.push('WEBHOOK_ALLOW_HTTP is on: webhooks may be delivered over plain http. For development only');
  }
  return warnings;
}
