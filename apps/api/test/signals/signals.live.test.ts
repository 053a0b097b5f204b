/**
 * `signals.live` through @trpc/client's `httpSubscriptionLink` (and read by hand for the slow
 * reader), on PostgreSQL and PGlite: a follower gets the providers it follows and only those, in
 * log order, with content before the reveal, the event ids being the receipts' log indexes;
 * `subscribe(undefined)` and `{}` alike; a user who follows nothing gets a stream with no data; a
 * `signals:read` key gets every provider, or those it names; resume right after `lastEventId`
 * while new signals arrive, nothing lost or repeated; a follow or unfollow reaches an open
 * stream, a sign-out ends it; a reader that stops reading is cut off past LIVE_MAX_UNSENT_BYTES
 * and resumes without loss (PostgreSQL); the database's reads per signal (its own statistics) the same with
 * 1 stream waiting as with 40.
 */
import { randomBytes } from 'node:crypto';
import { describeBackends } from '@signal/test-support/vitest';
import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { until } from '../events-support.js';
import { call, createServiceKey, evmWallet, signIn, type TestWallet, useApi } from '../harness.js';
import { type LiveEvent, liveClient, rawLive } from './live-support.js';
import { changeSignal, newDesk, openSignal, type SignalDesk } from './signal-support.js';
import { walletSigner } from './statement-support.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
/** The unsent bytes past which a stream is closed: small, so that the kernel's buffers fill it. */
const UNSENT = 8_192;
/** Streams waiting in the database-work test (half a follower's, half a key's). */
const STREAMS = 40;
/** Signals updated side by side in the slow-reader test. */
const CHAINS = 4;

const ids = (events: LiveEvent[]) => events.map((e) => e.id);

describeBackends('signals.live on %s', (backend) => {
  const api = useApi(backend, {
    env: { ADMIN_KEY, METRICS: 'true', LIVE_MAX_UNSENT_BYTES: String(UNSENT), STREAMS_PER_CREDENTIAL: '64' },
  });
  let origin: string;
  let wallet: TestWallet;
  let followed: SignalDesk;
  let other: SignalDesk;
  let reader: string;
  let follower: { token: string };
  let loner: { token: string };
  beforeAll(async () => {
    origin = (await (await fetch(`${api.url}/log/checkpoint`)).text()).split('\n')[0]!;
    wallet = evmWallet();
    // Content for followers before the reveal: an hour's delay.
    followed = await newDesk(api, origin, ADMIN_KEY, [wallet.address], 3_600);
    other = await newDesk(api, origin, ADMIN_KEY, [wallet.address]);
    reader = await createServiceKey(api, ADMIN_KEY, 'live reader', ['signals:read']);
    follower = await signIn(api, evmWallet());
    loner = await signIn(api, evmWallet());
    const follow = await call(api, 'POST', `/providers/${followed.providerId}/follow`, { token: follower.token });
    expect(follow.status).toBeLessThan(300);
  });

  const by = () => walletSigner(wallet);
  /** Opens a signal on `desk`; its receipt's log index. */
  const open = async (desk: SignalDesk, extra: Record<string, unknown> = {}) => {
    const { reply, body } = await openSignal(desk, by(), extra);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return { id: JSON.parse(body.statement).id as string, logIndex: reply.body.receipt.logIndex as number };
  };
  const change = async (
    desk: SignalDesk,
    signalId: string,
    type: 'signal.update' | 'signal.close' | 'signal.cancel',
    extra = {},
  ) => {
    const { reply } = await changeSignal(desk, by(), signalId, type, extra);
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    return reply.body.receipt.logIndex as number;
  };

  it('carries the followed providers only, in log order, with content; a key every provider or those named', async () => {
    const mine = liveClient(api.url, follower.token); // subscribe(undefined)
    const none = liveClient(api.url, loner.token, {});
    const all = liveClient(api.url, reader);
    const named = liveClient(api.url, reader, { providerIds: [other.providerId] });
    await until(() => [mine, none, all, named].every((s) => s.started), 'the streams to start');
    const a = await open(followed, { note: 'first' });
    const b = await open(other);
    const a2 = await change(followed, a.id, 'signal.update', { stop: '60000' });
    const a3 = await change(followed, a.id, 'signal.close', { closePct: '33.3' });
    const b2 = await change(other, b.id, 'signal.cancel');
    const order = [a.logIndex, b.logIndex, a2, a3, b2].map(String);
    await until(
      () => all.received.length >= 5 && mine.received.length >= 3 && named.received.length >= 2,
      'the events',
    );
    expect(ids(all.received)).toEqual(order);
    expect(ids(mine.received)).toEqual([a.logIndex, a2, a3].map(String));
    expect(ids(named.received)).toEqual([b.logIndex, b2].map(String));
    expect(mine.received.map((e) => e.data.type)).toEqual(['signal.open', 'signal.update', 'signal.close']);
    // Each event is the signal as that statement left it: one statement more each time, content shown.
    expect(mine.received.map((e) => e.data.signal.statements.length)).toEqual([1, 2, 3]);
    expect(mine.received[2]!.data.signal.content).toMatchObject({ stop: '60000', openPct: '66.7', note: 'first' });
    // The last one is the signal as a `signals:read` reader reads it now.
    const read = await call(api, 'GET', `/providers/${followed.providerId}/signals/${a.id}`, { token: reader });
    expect(mine.received[2]!.data.signal).toEqual(read.body);
    expect(all.received[4]!.data.signal.status).toBe('cancelled');
    // The user who follows nothing: a stream, and no data.
    expect(none.started).toBe(true);
    expect(none.error).toBeUndefined();
    expect(none.received).toEqual([]);
    for (const s of [mine, none, all, named]) s.stop();
  });

  it('resumes right after lastEventId while new signals arrive: nothing lost or repeated', async () => {
    const reference = liveClient(api.url, reader);
    await until(() => reference.started, 'the reference stream');
    const first: number[] = [];
    for (let i = 0; i < 4; i++) first.push((await open(i % 2 ? other : followed)).logIndex);
    await until(() => reference.received.length >= 4, 'the first signals');
    // Resume after the first; three more published while it catches up.
    const resumed = liveClient(api.url, reader, { lastEventId: String(first[0]) });
    const mineResumed = liveClient(api.url, follower.token, { lastEventId: String(first[0]) });
    const later = await Promise.all([open(followed), open(other), open(followed)]);
    await until(() => reference.received.length >= 7, 'the later signals');
    await until(() => resumed.received.length >= 6 && mineResumed.received.length >= 3, 'the resumed streams');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ids(resumed.received)).toEqual(ids(reference.received).slice(1));
    const followedIds = new Set([first[2], later[0]!.logIndex, later[2]!.logIndex].map(String));
    expect(ids(mineResumed.received)).toEqual(ids(reference.received).filter((id) => followedIds.has(id)));
    for (const s of [reference, resumed, mineResumed]) s.stop();
  });

  it('a follow or unfollow reaches an open stream; a sign-out ends it', async () => {
    const user = await signIn(api, evmWallet());
    const stream = liveClient(api.url, user.token);
    const reference = liveClient(api.url, reader);
    await until(() => stream.started && reference.started, 'the streams');
    await call(api, 'POST', `/providers/${other.providerId}/follow`, { token: user.token });
    // Once the follow has reached the stream, a signal of that provider arrives.
    let opened: { logIndex: number } | undefined;
    await until(
      async () => {
        opened = await open(other);
        await until(() => ids(reference.received).includes(String(opened!.logIndex)), 'the reference');
        await new Promise((resolve) => setTimeout(resolve, 100));
        return ids(stream.received).includes(String(opened!.logIndex));
      },
      'the followed provider’s signal',
      20,
    );
    await call(api, 'DELETE', `/providers/${other.providerId}/follow`, { token: user.token });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const after = await open(other);
    await until(() => ids(reference.received).includes(String(after.logIndex)), 'the reference');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ids(stream.received)).not.toContain(String(after.logIndex));
    const logout = await call(api, 'POST', '/auth/logout', { token: user.token });
    expect(logout.status).toBeLessThan(300);
    await until(() => stream.error !== undefined, 'the stream to end');
    expect(stream.error!.data).toMatchObject({ code: 'SESSION_REVOKED' });
    reference.stop();
    stream.stop();
  });

  // The hub's, whatever the database: on PostgreSQL only (≈10 s of growing events to fill the kernel's buffers).
  it('a reader that stops reading is cut off past LIVE_MAX_UNSENT_BYTES and resumes without loss', {
    timeout: 60_000,
  }, async (context) => {
    if (backend === 'pglite') context.skip();
    const reference = liveClient(api.url, reader, { providerIds: [other.providerId] });
    const slow = rawLive(api.url, reader, { providerIds: [other.providerId] });
    await slow.answered;
    await until(() => reference.started && slow.body.includes('event: connected'), 'the streams');
    slow.pause();
    const dropped = async () => {
      const text = await (await fetch(`${api.url}/metrics`)).text();
      return Number(/^signal_live_streams_dropped (\d+)/m.exec(text)?.[1] ?? 0);
    };
    const before = await dropped();
    // Events that grow: each update's event carries every statement of its signal so far. Four
    // signals updated side by side, until the server has cut the paused reader.
    const signals = [];
    for (let i = 0; i < CHAINS; i++) signals.push(await open(other, { note: 'n'.repeat(500) }));
    const opened = signals[0]!.logIndex;
    let updates = 0;
    while ((await dropped()) === before && updates < 240) {
      await Promise.all(
        signals.map(({ id }, i) => change(other, id, 'signal.update', { note: `${updates + i} ${'u'.repeat(480)}` })),
      );
      updates += CHAINS;
    }
    expect(await dropped()).toBe(before + 1);
    await until(() => reference.received.length === updates + CHAINS, 'the reference');
    // What it got before the cut is a prefix, in order; it resumes from its last id.
    slow.resume();
    await until(() => slow.ended, 'the cut connection to end');
    const got = slow.events();
    expect(ids(got)).toEqual(ids(reference.received).slice(0, got.length));
    expect(got.length).toBeLessThan(updates + CHAINS);
    const resumed = liveClient(api.url, reader, {
      providerIds: [other.providerId],
      lastEventId: got.at(-1)?.id ?? String(opened - 1),
    });
    await until(() => got.length + resumed.received.length >= updates + CHAINS, 'the rest');
    expect([...ids(got), ...ids(resumed.received)]).toEqual(ids(reference.received));
    console.log(
      `${backend}: the paused reader was cut off after ${updates} updates (${got.length} events read before the cut)`,
    );
    reference.stop();
    resumed.stop();
  });

  it('reads the log and the signals once per signal, however many streams wait', async (context) => {
    /** Scans of log_entries and signal_statements, as PostgreSQL counted them. */
    const scans = async () => {
      // PostgreSQL flushes a backend's statistics at most once a second, when it is idle.
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const { rows } = await sql<{ scans: string | null }>`
        select sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0))::text as scans from pg_stat_user_tables
        where relname in ('log_entries', 'signal_statements')
      `.execute(api.db.db);
      return Number(rows[0]?.scans ?? Number.NaN);
    };
    if (Number.isNaN(await scans())) context.skip(); // PGlite keeps no table statistics
    const burst = async (count: number) => {
      const streams = Array.from({ length: count }, (_, i) => liveClient(api.url, i % 2 ? reader : follower.token));
      await until(() => streams.every((s) => s.started), 'the streams');
      const before = await scans();
      for (let i = 0; i < 3; i++) await open(followed);
      await until(() => streams.every((s) => s.received.length >= 3), 'the signals');
      const after = await scans();
      for (const s of streams) s.stop();
      return after - before;
    };
    const one = await burst(1);
    const many = await burst(STREAMS);
    console.log(`${backend}: 3 signals with 1 stream waiting: ${one} scans; with ${STREAMS}: ${many} scans`);
    // Each stream reading for itself would add 2 scans per signal per stream (240 here).
    expect(many - one).toBeLessThan(80);
  });
});
