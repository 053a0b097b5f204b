/**
 * `signals.live` across two servers sharing one PostgreSQL database (issue 41): by the database
 * wake-up alone, and with NATS JetStream (EVENT_BUS_URL; each server consumes the bus once, its
 * `signal_live_bus_received` counts the signal events it took). Streams on both servers (a
 * follower's and a `signals:read` key's) get every signal accepted by either server once, in log
 * order; while one server restarts, its clients reconnect with their last id (httpSubscriptionLink
 * sends Last-Event-ID) and get what the other server accepted meanwhile, nothing lost or repeated.
 */
import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedStream, NATS_URL, until } from '../events-support.js';
import { call, createServiceKey, evmWallet, signIn, type TestApi, type TestWallet, useServerPair } from '../harness.js';
import { liveClient } from './live-support.js';
import { newDesk, openSignal, type SignalDesk } from './signal-support.js';
import { walletSigner } from './statement-support.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;

function crossServer(name: string, env: Record<string, string>, bus: boolean) {
  describe(name, () => {
    const { a, b } = useServerPair('postgres', { ADMIN_KEY, METRICS: 'true', ...env });
    let wallet: TestWallet;
    let desk: SignalDesk;
    let reader: string;
    let follower: string;
    beforeAll(async () => {
      const origin = (await (await fetch(`${a.url}/log/checkpoint`)).text()).split('\n')[0]!;
      wallet = evmWallet();
      desk = await newDesk(a, origin, ADMIN_KEY, [wallet.address], 600);
      reader = await createServiceKey(a, ADMIN_KEY, 'live reader', ['signals:read']);
      follower = (await signIn(a, evmWallet())).token;
      await call(b, 'POST', `/providers/${desk.providerId}/follow`, { token: follower });
    });

    /** Opens a signal through `api`; its receipt's log index, as an event id. */
    const open = async (api: TestApi) => {
      const { reply } = await openSignal({ ...desk, api }, walletSigner(wallet));
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      return String(reply.body.receipt.logIndex);
    };

    it('every signal accepted by either server reaches every stream on both, once, in log order', async () => {
      const streams = [a, b].flatMap((api) => [liveClient(api.url, reader), liveClient(api.url, follower)]);
      await until(() => streams.every((s) => s.started), 'the streams');
      const published: string[] = [];
      for (let i = 0; i < 6; i++) published.push(await open(i % 2 ? b : a));
      await until(() => streams.every((s) => s.received.length >= 6), 'every stream to get the six');
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const stream of streams) expect(stream.received.map((e) => e.id)).toEqual(published);
      if (bus) {
        for (const api of [a, b]) {
          const text = await (await fetch(`${api.url}/metrics`)).text();
          expect(Number(/^signal_live_bus_received (\d+)/m.exec(text)?.[1] ?? 0)).toBeGreaterThanOrEqual(6);
        }
      }
      for (const stream of streams) stream.stop();
    });

    it.each(['a', 'b'] as const)(
      'through a restart of server %s, its streams resume with their last id',
      async (which) => {
        const restarting = which === 'a' ? a : b;
        const staying = which === 'a' ? b : a;
        const streams = [liveClient(restarting.url, reader), liveClient(restarting.url, follower)];
        const witness = liveClient(staying.url, reader);
        await until(() => [...streams, witness].every((s) => s.started), 'the streams');
        const published = [await open(staying), await open(restarting)];
        await until(() => streams.every((s) => s.received.length >= 2), 'the first two');
        // The restart ends the streams' connections; meanwhile the other server accepts two more.
        const restarted = restarting.restart();
        published.push(await open(staying), await open(staying));
        await restarted;
        published.push(await open(restarting));
        await until(() => streams.every((s) => s.received.length >= 5) && witness.received.length >= 5, 'all five');
        await new Promise((resolve) => setTimeout(resolve, 300));
        for (const stream of [...streams, witness]) expect(stream.received.map((e) => e.id)).toEqual(published);
        expect(streams.every((s) => s.connections >= 2)).toBe(true);
        for (const stream of [...streams, witness]) stream.stop();
      },
    );
  });
}

crossServer('signals.live across two servers, by the database', {}, false);

const { stream, prefix } = isolatedStream();
afterAll(async () => {
  const nats = await connect({ servers: NATS_URL, timeout: 5_000 }).catch(() => undefined);
  if (!nats) return;
  const jsm = await jetstreamManager(nats);
  await jsm.streams.delete(stream).catch(() => {});
  await nats.close();
});
crossServer(
  'signals.live across two servers, with NATS JetStream',
  { EVENT_BUS_URL: NATS_URL, EVENT_BUS_STREAM: stream, EVENT_BUS_SUBJECT_PREFIX: prefix },
  true,
);
