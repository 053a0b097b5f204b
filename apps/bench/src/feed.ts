/**
 * The feed row (`--only feed`): one consumer reading `GET /events` in pages of 1,000 from the
 * start of a feed of FEED_EVENTS events, each page's `nextCursor` passed as `after` for the
 * next, as a consumer catching up would. Target (issue 27): ≥ 20,000 events/s.
 *
 * The catalogue's events are replaced by FEED_EVENTS follow events written straight into the
 * outbox and numbered by the service's own feed pump before the rounds start, so every run reads
 * the same feed. The API serves it alone (no other load); rounds are timed whole, the median
 * is reported. Requests per second of the consumer's loop are a wall-clock figure: noisy on a
 * busy machine, like every req/s row.
 */
import type { EventType } from '@signal/core';
import { createDatabase, feedState } from '@signal/db';
import pg from 'pg';
import { median } from './load.js';
import { type Row, row, type Verdict } from './report.js';
import { type ServerSpec, startServer } from './servers.js';

export const FEED_KEY = 'feed';
export const FEED_TARGET_EVENTS_PER_SECOND = 20_000;
const FEED_EVENTS = 100_000;
const PAGE = 1_000;

/** The type of the bench's events: a value of core's EventType, passed as a parameter. */
const FOLLOWED: EventType = 'follow.created';

/** Replaces the catalogue's events with `count` follow events (the API's pump numbers them). */
async function fillFeed(url: string, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('delete from events');
    await client.query(
      `insert into events (type, data)
       select $2::text, jsonb_build_object('userId', i, 'providerId', 1 + i % 1000, 'followerCount', i)
       from generate_series(1, $1::int) i`,
      [count, FOLLOWED],
    );
  } finally {
    await client.end();
  }
}

/** Waits until the running API's feed pump has numbered every event. */
async function feedNumbered(url: string): Promise<void> {
  const database = createDatabase({ url, poolSize: 1 });
  try {
    while ((await feedState(database.db)).unnumbered) await new Promise((resolve) => setTimeout(resolve, 100));
  } finally {
    await database.close();
  }
}

/** Reads the whole feed page by page; how many events and how long. */
async function readFeed(url: string, key: string): Promise<{ events: number; ms: number; pageMs: number[] }> {
  const started = performance.now();
  const pageMs: number[] = [];
  let cursor: string | undefined;
  let events = 0;
  for (;;) {
    const pageStarted = performance.now();
    const res = await fetch(`${url}/events?limit=${PAGE}${cursor ? `&after=${cursor}` : ''}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    if (res.status !== 200) throw new Error(`GET /events answered ${res.status}: ${await res.text()}`);
    const page = (await res.json()) as { items: unknown[]; nextCursor: string };
    pageMs.push(performance.now() - pageStarted);
    events += page.items.length;
    cursor = page.nextCursor;
    if (page.items.length < PAGE) return { events, ms: performance.now() - started, pageMs };
  }
}

export async function feedRow(options: {
  catalogueUrl: string;
  /** The API's spec; ADMIN_KEY is added. */
  spec: ServerSpec;
  rounds: number;
  log: (line: string) => void;
}): Promise<Row> {
  const key = `bench-feed-${'k'.repeat(32)}`;
  await fillFeed(options.catalogueUrl, FEED_EVENTS);
  const server = await startServer({ ...options.spec, env: { ...options.spec.env, ADMIN_KEY: key } });
  try {
    await feedNumbered(options.catalogueUrl);
    await readFeed(server.url, key); // warm-up: JIT, caches, the feed's pages in PostgreSQL's buffers
    const rounds: { events: number; ms: number; pageMs: number[] }[] = [];
    const cpuBefore = await server.cpuMs();
    for (let i = 0; i < options.rounds; i++) rounds.push(await readFeed(server.url, key));
    const cpuAfter = await server.cpuMs();
    const perSecond = rounds.map((r) => (r.events / r.ms) * 1000);
    const pageCount = rounds.reduce((n, r) => n + r.pageMs.length, 0);
    const cpuUs = cpuBefore !== null && cpuAfter !== null ? ((cpuAfter - cpuBefore) * 1000) / pageCount : null;
    // What one API core would serve if the consumer kept it busy: wall time aside (a busy machine).
    const perCoreSecond = cpuUs ? Math.round((PAGE / cpuUs) * 1e6) : null;
    const pages = rounds.flatMap((r) => r.pageMs).sort((a, b) => a - b);
    const at = (q: number) => Number((pages[Math.min(pages.length - 1, Math.floor(q * pages.length))] ?? 0).toFixed(1));
    options.log(
      `feed: ${perSecond.map((v) => Math.round(v)).join(', ')} events/s over ${rounds.length} rounds; API CPU ${cpuUs?.toFixed(0)} µs per page (${perCoreSecond} events per API CPU-second)`,
    );
    return row(
      'feed: one consumer, pages of 1,000 (events/s)',
      { rps: median(perSecond), p50: at(0.5), p99: at(0.99), cpuUs },
      null,
      `${FEED_EVENTS.toLocaleString('en-US')} events read from the start, median of ${rounds.length} rounds; p50/p99 and CPU are per page (ms, µs); ${perCoreSecond?.toLocaleString('en-US')} events per API CPU-second`,
    );
  } finally {
    await server.stop();
  }
}

export function judgeFeed(feed: Row | undefined): Verdict[] {
  if (!feed) return [];
  return [
    {
      target: `feed: a consumer reading pages of 1,000 sustains ≥ ${FEED_TARGET_EVENTS_PER_SECOND.toLocaleString('en-US')} events/s`,
      measured: `${Math.round(feed.service.rps).toLocaleString('en-US')} events/s`,
      met: feed.service.rps >= FEED_TARGET_EVENTS_PER_SECOND,
    },
  ];
}
