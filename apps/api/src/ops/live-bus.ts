/**
 * The bus side of `signals.live` (with EVENT_BUS_URL; docs/signals.md, "Live"): each process
 * subscribes once to the signal events the relay publishes (`<prefix>.signal.>`: `{ providerId,
 * signalId, logIndex }`, no content) and, for an index its live hub has not seen yet, asks the
 * log sequencer for a pass at once (`kick`): the pass reads the log's state row, the hub reads
 * the new entries and fans them out. One subscription per process however many streams it
 * holds; the events carry no content, so the signal is still read once from the database.
 *
 * The sequencer's own poll (every 100 ms) stays on: the bus is a second wake-up, never the only
 * one, so a server whose NATS is away still delivers (docs/capacity.md says what each costs).
 * A core NATS subscription, not a JetStream consumer: nothing to create or remove per process,
 * and a message missed while disconnected is made up by the poll.
 */
import type { Subscription } from '@nats-io/transport-node';
import type { Logger } from 'pino';

export interface LiveBus {
  /** Signal events received from the bus, since the start (`signal_live_bus_received`). */
  readonly received: number;
  /** Those that woke the sequencer: the hub had not heard of their entry yet (`signal_live_bus_wakeups`). */
  readonly wakeups: number;
  stop(): Promise<void>;
}

export function startLiveBus(options: {
  url: string;
  subjectPrefix: string;
  log: Logger;
  /** The size the hub knows: a message for an index below it needs nothing. */
  known: () => number;
  wake: () => void;
}): LiveBus {
  let wakeups = 0;
  let received = 0;
  let stopped = false;
  let close: (() => Promise<void>) | undefined;
  const started = (async () => {
    // Loaded with the first connection: a server without EVENT_BUS_URL never loads the client.
    const { connect } = await import('@nats-io/transport-node');
    const connection = await connect({
      servers: options.url.split(','),
      name: 'signal-api live hub',
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1_000,
    });
    close = () => connection.close().catch(() => {});
    if (stopped) return close();
    const subscription: Subscription = connection.subscribe(`${options.subjectPrefix}.signal.>`, {
      callback: (error, message) => {
        if (error) return;
        try {
          const event = message.json<{ data?: { logIndex?: unknown } }>();
          const index = event.data?.logIndex;
          received += 1;
          if (typeof index === 'number' && index >= options.known()) {
            wakeups += 1;
            options.wake();
          }
        } catch {
          // Not an event of ours: nothing to wake for.
        }
      },
    });
    void subscription.closed;
  })().catch((error: unknown) => {
    // The poll still delivers; the bus is only the faster wake-up.
    options.log.warn(
      { err: error },
      'signals.live: the event bus is not reachable; live streams wake by the database poll',
    );
  });
  return {
    get received() {
      return received;
    },
    get wakeups() {
      return wakeups;
    },
    async stop() {
      stopped = true;
      await started;
      await close?.();
    },
  };
}
