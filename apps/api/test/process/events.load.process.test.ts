/**
 * The feed's guarantee under load (PostgreSQL): 8 writers follow and unfollow for 10 s on two
 * API processes, one of them through a transaction-mode PgBouncer, while a consumer polls the
 * feed from both, always passing the last `nextCursor`. The consumer must receive every
 * committed follow and unfollow exactly once, per (user, provider) in write order, and none of
 * the repeated ones; and per provider the counts must run ±1 in feed order (commit order, where
 * transactions conflict).
 *
 * Both servers also run the NATS JetStream relay (EVENT_BUS_URL, a stream of the test's own):
 * claimed per batch with FOR UPDATE SKIP LOCKED, one of them through the pooler, they must
 * leave the stream holding the whole feed once, in feed order.
 */
import { randomBytes } from 'node:crypto';
import { type JetStreamManager, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { createDatabase, type DatabaseHandle } from '@signal/db';
import { createPooledScratchDatabase, type PooledScratchDatabase } from '@signal/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectStreamHoldsFeed, feedNumbered, isolatedStream, NATS_URL } from '../events-support.js';
import { call, evmWallet, signIn } from '../harness.js';
import { type ApiProcess, signingKeyPem, spawnApi } from '../process.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
const WRITERS = 8;
const PROVIDERS = 6;
const WRITE_MS = 10_000;
/** Changes each writer makes at least, however slow the machine (the 10 s may hold fewer). */
const MIN_CHANGES = 30;

interface FollowEvent {
  id: string;
  type: 'follow.created' | 'follow.deleted';
  data: { userId: number; providerId: number; followerCount: number };
}

describe('the feed under load: two servers, one through PgBouncer', () => {
  let scratch: PooledScratchDatabase;
  let a: ApiProcess;
  let b: ApiProcess;
  const bus = isolatedStream();
  let nats: NatsConnection;
  let jsm: JetStreamManager;
  /** The test's own look at the database: whether the servers' pumps have numbered everything. */
  let observer: DatabaseHandle;

  beforeAll(async () => {
    nats = await connect({ servers: NATS_URL, timeout: 5_000 });
    jsm = await jetstreamManager(nats);
    scratch = await createPooledScratchDatabase('both servers connect');
    const env = {
      JWT_PRIVATE_KEY: signingKeyPem(),
      ADMIN_KEY,
      SEED_PROVIDERS: String(PROVIDERS),
      EVENT_BUS_URL: NATS_URL,
      EVENT_BUS_STREAM: bus.stream,
      EVENT_BUS_SUBJECT_PREFIX: bus.prefix,
    };
    a = await spawnApi({ ...env, DATABASE_URL: scratch.url });
    b = await spawnApi({ ...env, DATABASE_URL: scratch.pooledUrl });
    observer = createDatabase({ url: scratch.url, poolSize: 1 });
  }, 60_000);
  afterAll(async () => {
    await a?.crash();
    await b?.crash();
    await observer?.close();
    await scratch?.drop();
    await jsm?.streams.delete(bus.stream).catch(() => {});
    await nats?.close();
  });

  it('every committed follow and unfollow exactly once, per (user, provider) in write order', async () => {
    const servers = [a, b];
    const providers: { id: number }[] = (await call(a, 'GET', `/providers?limit=${PROVIDERS}`)).body.items;
    const users = await Promise.all(Array.from({ length: WRITERS }, (_, i) => signIn(servers[i % 2]!, evmWallet())));
    const expected = new Map<string, string[]>();
    const pair = (userId: number, providerId: number) => `${userId}/${providerId}`;

    let consumed: FollowEvent[] = [];
    let cursor: string | undefined;
    let polls = 0;
    const poll = async () => {
      const server = servers[polls++ % 2]!;
      const query = `?limit=100&types=follow.created,follow.deleted${cursor ? `&after=${cursor}` : ''}`;
      const page = await call(server, 'GET', `/events${query}`, { token: ADMIN_KEY });
      expect(page.status).toBe(200);
      consumed = consumed.concat(page.body.items);
      const moved = page.body.nextCursor !== cursor;
      cursor = page.body.nextCursor;
      return moved || page.body.items.length > 0;
    };
    // Start from the head (the seed announced nothing; sign-ins are filtered out).
    await poll();
    expect(consumed).toEqual([]);

    let writing = true;
    const consumer = (async () => {
      while (writing) await poll();
    })();
    const writers = users.map(async (user, i) => {
      const server = servers[i % 2]!;
      const following = new Set<number>();
      const deadline = Date.now() + WRITE_MS;
      let changes = 0;
      while (Date.now() < deadline || changes < MIN_CHANGES) {
        const provider = providers[Math.floor(Math.random() * providers.length)]!;
        // One write in five repeats the current state: it must announce nothing.
        const repeat = Math.random() < 0.2;
        const follows = repeat ? following.has(provider.id) : !following.has(provider.id);
        const reply = await call(server, follows ? 'POST' : 'DELETE', `/providers/${provider.id}/follow`, {
          token: user.token,
        });
        expect(reply.status).toBe(200);
        if (repeat) continue;
        changes += 1;
        if (follows) following.add(provider.id);
        else following.delete(provider.id);
        const key = pair(user.user.id, provider.id);
        expected.set(key, [...(expected.get(key) ?? []), follows ? 'follow.created' : 'follow.deleted']);
      }
    });
    await Promise.all(writers);
    writing = false;
    await consumer;
    // Drain, once the pumps numbered every committed change: until two polls in a row bring
    // nothing and leave the cursor where it was.
    await feedNumbered({ db: observer });
    let quiet = 0;
    while (quiet < 2) quiet = (await poll()) ? 0 : quiet + 1;

    const written = [...expected.values()].reduce((n, list) => n + list.length, 0);
    expect(written).toBeGreaterThanOrEqual(WRITERS * MIN_CHANGES);
    expect(new Set(consumed.map((e) => e.id)).size).toBe(consumed.length);
    expect(consumed.length).toBe(written);
    const seen = new Map<string, string[]>();
    for (const event of consumed) {
      const key = pair(event.data.userId, event.data.providerId);
      seen.set(key, [...(seen.get(key) ?? []), event.type]);
    }
    expect(seen).toEqual(expected);
    // Per provider, in feed order, each count is the one before it ±1: commit order where it shows.
    const last = new Map<number, number>();
    let checked = 0;
    for (const event of consumed) {
      const before = last.get(event.data.providerId);
      if (before !== undefined) {
        expect(event.data.followerCount).toBe(before + (event.type === 'follow.created' ? 1 : -1));
        checked++;
      }
      last.set(event.data.providerId, event.data.followerCount);
    }
    expect(checked).toBe(consumed.length - last.size);
    // The pooler really carried the second server's transactions.
    if (scratch.pooler) {
      const carried = (await scratch.pooler.transactions()).get(new URL(scratch.url).pathname.slice(1)) ?? 0;
      expect(carried).toBeGreaterThan(100);
    }
    // The bus: the relays of both servers left the whole feed on the stream, once, in feed order.
    const { messages } = await expectStreamHoldsFeed(jsm, bus.stream, { url: a.url, db: observer }, ADMIN_KEY, 1_200);
    console.log(
      `feed under load: ${written} follow changes by ${WRITERS} writers in ${WRITE_MS} ms, ${polls} polls; ${messages.length} events on the bus`,
    );
  }, 120_000);
});
