/**
 * What the event tests share: the whole feed as a consumer reads it, a bounded wait, and the
 * NATS side (a stream and subject prefix of a test's own, a stream's messages, the relay's promise
 * that a stream ends up holding the whole feed).
 */
import { randomBytes } from 'node:crypto';
import type { JetStreamManager } from '@nats-io/jetstream';
import { type DatabaseHandle, feedState } from '@signal/db';
import { expect } from 'vitest';
import { call } from './harness.js';

/** The NATS server with JetStream the bus tests use (CI checks it is there: .ci/run). */
export const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

export interface WireEvent {
  id: string;
  type: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

/**
 * Waits until the server's feed pump has numbered every committed event: a feed read shows an
 * event within about one pump interval of its commit, not at once (docs/events.md, "The pump").
 */
export async function feedNumbered(api: { db: DatabaseHandle }): Promise<void> {
  await until(async () => !(await feedState(api.db.db)).unnumbered, 'the feed pump to number what committed');
}

/** Every event of the feed from its start, in feed order (GET /events, pages of 1,000), once numbered. */
export async function readWholeFeed(api: { url: string; db: DatabaseHandle }, token: string): Promise<WireEvent[]> {
  await feedNumbered(api);
  const items: WireEvent[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await call(api, 'GET', `/events?limit=1000${cursor ? `&after=${cursor}` : ''}`, { token });
    items.push(...page.body.items);
    if (page.body.nextCursor === cursor) return items;
    cursor = page.body.nextCursor;
  }
}

/** Waits until `check` holds, checking every 50 ms, `attempts` times at most; asserts no timing. */
export async function until(check: () => boolean | Promise<boolean>, what: string, attempts = 400): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** A stream name and subject prefix of a test's own (the test deletes the stream after). */
export function isolatedStream() {
  const tag = randomBytes(6).toString('hex');
  return { stream: `SIGNAL_TEST_${tag.toUpperCase()}`, prefix: `test.${tag}.events` };
}

/** Every message of a JetStream stream, in stream order: subject, Nats-Msg-Id and the event. */
export async function streamMessages(jsm: JetStreamManager, stream: string) {
  const info = await jsm.streams.info(stream);
  const out: { subject: string; msgId: string | undefined; event: WireEvent }[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const message = await jsm.streams.getMessage(stream, { seq });
    if (!message) continue;
    out.push({ subject: message.subject, msgId: message.header?.get('Nats-Msg-Id'), event: message.json<WireEvent>() });
  }
  return out;
}

/** How many messages the stream holds (0 when it does not exist yet). */
export const streamMessageCount = (jsm: JetStreamManager, stream: string) =>
  jsm.streams.info(stream).then(
    (info) => info.state.messages,
    () => 0,
  );

/**
 * The relay's promise: once the stream holds as many messages as the feed has events, it holds
 * the whole feed once, in feed order, each message's Nats-Msg-Id its event's id. Waits `attempts`
 * × 50 ms at most; returns the feed and the messages for the test's own checks.
 */
export async function expectStreamHoldsFeed(
  jsm: JetStreamManager,
  stream: string,
  api: { url: string; db: DatabaseHandle },
  token: string,
  attempts?: number,
) {
  const feed = await readWholeFeed(api, token);
  await until(async () => (await streamMessageCount(jsm, stream)) >= feed.length, 'the feed on the stream', attempts);
  const messages = await streamMessages(jsm, stream);
  expect(messages.map((m) => m.event)).toEqual(feed);
  expect(messages.filter((m) => m.msgId !== m.event.id)).toEqual([]);
  return { feed, messages };
}
