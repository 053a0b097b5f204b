/**
 * The event relay (with EVENT_BUS_URL): in every API process, a loop that publishes the feed to
 * NATS JetStream in feed order, at least once (docs/events.md, "NATS JetStream").
 *
 * - Where it is: the relay's row in `event_relays` (its last published position), claimed per
 *   batch with FOR UPDATE SKIP LOCKED (event-relay.queries.ts): one server publishes at a time,
 *   any server takes over at once when it stops or dies, and it works behind a transaction-mode
 *   PgBouncer. No LISTEN/NOTIFY, no advisory lock.
 * - When: woken by the process's feed pump (feed-pump.ts) when the head moves past its position (or every
 *   second, to notice another server's stop).
 * - Failures: a publish not acked within PUBLISH_TIMEOUT_MS stops the batch; what was acked
 *   before it is recorded, and the batch is retried from the first unacked event after a gap
 *   that doubles from RETRY_FIRST_GAP_MS up to RETRY_MAX_GAP_MS. An event stored by JetStream
 *   whose ack was lost is therefore republished within PUBLISH_TIMEOUT_MS + RETRY_MAX_GAP_MS
 *   (20 s) while NATS answers, inside the stream's duplicate window (2 min), which drops it.
 */
import type { Event } from '@signal/core';
import { ensureRelay, RelayPublishError, relayBatch, relayFigures } from '@signal/db';
import type { Services } from '../procedures/context.js';
// The NATS clients load with the first connection: a server without EVENT_BUS_URL never loads them.
import type { EventBus } from './event-bus.js';
import type { FeedPump } from './feed-pump.js';
import type { Metrics } from './metrics.js';

export const RETRY_FIRST_GAP_MS = 500;
export const RETRY_MAX_GAP_MS = 15_000;
/** Events per claimed batch: one transaction, published one by one in feed order. */
const BATCH_SIZE = 500;
/** How often a relay that is caught up, or whose row another server holds, looks again. */
const IDLE_CHECK_MS = 1_000;

export interface EventRelay {
  /** Publish failures in this process (each is retried). */
  readonly failures: number;
  /** Events this process published (duplicates JetStream dropped included). */
  readonly published: number;
  /** Stops after the batch in flight (its publishes finish or time out), then closes the connection. */
  stop(): Promise<void>;
}

/** The gap before retry number `failures` (1, 2, …): 0.5 s, 1 s, 2 s, … up to 15 s. */
export const retryGap = (failures: number) =>
  Math.min(RETRY_MAX_GAP_MS, RETRY_FIRST_GAP_MS * 2 ** Math.max(0, failures - 1));

export function startEventRelay(services: Services, pump: Pick<FeedPump, 'waitBeyond'>, url: string): EventRelay {
  const { config, database, log } = services;
  const name = `nats:${config.eventBusStream}`;
  const stopping = new AbortController();
  let bus: EventBus | undefined;
  let failures = 0;
  let failuresTotal = 0;
  let published = 0;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        stopping.signal.removeEventListener('abort', done);
        resolve();
      }
      stopping.signal.addEventListener('abort', done, { once: true });
    });

  const publishBatch = async (events: { position: string; event: Event }[]) => {
    let last: string | undefined;
    for (const { position, event } of events) {
      try {
        await (bus as EventBus).publish(event);
      } catch (error) {
        return { last, error };
      }
      published += 1;
      last = position;
    }
    return { last };
  };

  const loop = async () => {
    let ensured = false;
    while (!stopping.signal.aborted) {
      try {
        if (!ensured) {
          await ensureRelay(database.db, name);
          ensured = true;
        }
        const { openEventBus, PUBLISH_TIMEOUT_MS } = await import('./event-bus.js');
        bus ??= await openEventBus({
          url,
          stream: config.eventBusStream,
          subjectPrefix: config.eventBusSubjectPrefix,
          duplicateWindowNeededMs: PUBLISH_TIMEOUT_MS + RETRY_MAX_GAP_MS,
          log,
        });
        const result = await relayBatch(database.db, database.backend, { name, batchSize: BATCH_SIZE }, publishBatch);
        if (failures > 0) log.info({ failures }, 'event bus: publishing again');
        failures = 0;
        if (result === 'busy') await pause(IDLE_CHECK_MS);
        else if (result.published < BATCH_SIZE) {
          await pump.waitBeyond(result.position, { signal: stopping.signal, maxWaitMs: IDLE_CHECK_MS });
        }
      } catch (error) {
        if (stopping.signal.aborted) break;
        failures += 1;
        failuresTotal += 1;
        const gap = retryGap(failures);
        const cause: unknown = error instanceof RelayPublishError ? error.cause : error;
        const entry = { err: cause, failures, retryInMs: gap };
        // The first failure of a run is worth a warning; the rest repeat it.
        if (failures === 1) log.warn(entry, 'event bus: publishing failed; retrying');
        else log.debug(entry, 'event bus: publishing failed again');
        // The next attempt connects afresh and checks the stream again (it may have been deleted).
        const broken = bus;
        bus = undefined;
        void broken?.close(false);
        await pause(gap);
      }
    }
  };
  const running = loop();

  return {
    get failures() {
      return failuresTotal;
    },
    get published() {
      return published;
    },
    async stop() {
      stopping.abort();
      await running;
      await bus?.close(true);
    },
  };
}

/** The relay's figures for /metrics: the database's (the same on every server) and this process's failures. */
export function relayMetrics(
  metrics: Metrics,
  services: Pick<Services, 'database' | 'config'>,
  relay: EventRelay,
): void {
  const { database, config } = services;
  const name = `nats:${config.eventBusStream}`;
  metrics.gauge(
    'signal_events_bus_published',
    'Events the relay has published to NATS JetStream (its position in the feed; every server reports the same)',
    async () => (await relayFigures(database.db, name)).published,
  );
  metrics.gauge(
    'signal_events_bus_lag_seconds',
    'Age of the oldest event in the feed the relay has not published yet (0 when none waits)',
    async () => (await relayFigures(database.db, name)).lagSeconds,
  );
  metrics.gauge(
    'signal_events_bus_publish_failures',
    'Publishes to NATS JetStream that failed in this process (each retried), since it started',
    () => relay.failures,
  );
}
