/**
 * The NATS JetStream side of the event bus (CONTRACT.md, "Event bus"; docs/events.md): one
 * connection, the stream the service expects (created when no stream covers its subjects), and
 * a publish per event to `<prefix>.<type>` with `Nats-Msg-Id` = the event id, so that JetStream
 * drops a republished event within the stream's duplicate window.
 *
 * Clients: @nats-io/transport-node (the connection) and @nats-io/jetstream (publish with acks,
 * stream management), the maintained v3 clients (docs/design.md).
 */

import {
  DiscardPolicy,
  type JetStreamClient,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
} from '@nats-io/jetstream';
import { connect, type NatsConnection, nanos } from '@nats-io/transport-node';
import type { Event } from '@signal/core';
import type { Logger } from 'pino';

/** How long a publish waits for its ack before it counts as failed (and is retried). */
export const PUBLISH_TIMEOUT_MS = 5_000;
/** The stream the service creates keeps events this long (an operator's own stream decides its own). */
export const STREAM_MAX_AGE_MS = 7 * 24 * 3_600_000;
/** The duplicate window of the stream the service creates: well above DUPLICATE_WINDOW_NEEDED_MS. */
export const STREAM_DUPLICATE_WINDOW_MS = 2 * 60_000;

export interface EventBusOptions {
  url: string;
  stream: string;
  subjectPrefix: string;
  /**
   * The shortest duplicate window that covers a republish after a lost ack: the publish
   * timeout plus the relay's longest retry gap (relay.ts). A smaller window of an existing
   * stream is logged as a warning.
   */
  duplicateWindowNeededMs: number;
  log: Logger;
}

export interface EventBus {
  /** Publishes one event and waits for JetStream's ack; `duplicate` when the stream had its id already. */
  publish(event: Event): Promise<{ duplicate: boolean }>;
  /** Closes the connection: after its pending publishes when `drain`, else at once. */
  close(drain: boolean): Promise<void>;
}

/** The subject an event goes to. */
export const subjectOf = (prefix: string, event: Pick<Event, 'type'>) => `${prefix}.${event.type}`;

/** Connects, finds or creates the stream; throws when NATS is not there (the relay retries). */
export async function openEventBus(options: EventBusOptions): Promise<EventBus> {
  const connection: NatsConnection = await connect({
    servers: options.url.split(','),
    name: 'signal-api event relay',
    // Reconnect for ever: the relay keeps the events in the database meanwhile.
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1_000,
    timeout: PUBLISH_TIMEOUT_MS,
  });
  try {
    await ensureStream(connection, options);
  } catch (error) {
    await connection.close().catch(() => {});
    throw error;
  }
  const js: JetStreamClient = jetstream(connection, { timeout: PUBLISH_TIMEOUT_MS });
  return {
    async publish(event) {
      const ack = await js.publish(subjectOf(options.subjectPrefix, event), JSON.stringify(event), {
        msgID: event.id,
        timeout: PUBLISH_TIMEOUT_MS,
      });
      return { duplicate: ack.duplicate };
    },
    close: (drain) => (drain ? connection.drain() : connection.close()).catch(() => {}),
  };
}

async function ensureStream(connection: NatsConnection, options: EventBusOptions): Promise<void> {
  const jsm = await jetstreamManager(connection, { timeout: PUBLISH_TIMEOUT_MS });
  const subjects = `${options.subjectPrefix}.>`;
  const existing = await jsm.streams.find(subjects).catch(() => undefined);
  if (existing) {
    const info = await jsm.streams.info(existing);
    const windowMs = info.config.duplicate_window / 1e6;
    if (existing !== options.stream) {
      options.log.warn(
        { stream: existing, expected: options.stream, subjects },
        'event bus: another stream takes the subjects',
      );
    }
    if (windowMs < options.duplicateWindowNeededMs) {
      options.log.warn(
        { stream: existing, duplicateWindowMs: windowMs, neededMs: options.duplicateWindowNeededMs },
        'event bus: the stream’s duplicate window is shorter than a republish after a lost ack can take; duplicates may get through',
      );
    }
    return;
  }
  await jsm.streams.add({
    name: options.stream,
    subjects: [subjects],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_age: nanos(STREAM_MAX_AGE_MS),
    duplicate_window: nanos(STREAM_DUPLICATE_WINDOW_MS),
  });
  options.log.info({ stream: options.stream, subjects }, 'event bus: stream created');
}
