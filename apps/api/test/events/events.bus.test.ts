/**
 * The event bus against the real NATS JetStream at 127.0.0.1:4222 (NATS_URL overrides; CI
 * checks it is there first): each test uses its own stream and subject prefix and deletes the
 * stream after.
 * - A burst of events arrives on JetStream in feed order, on `<prefix>.<type>`, with
 *   `Nats-Msg-Id` = the event id and the event's JSON; the stream the service made has the
 *   documented subjects and duplicate window.
 * - A publish whose ack is lost (a proxy between the relay and NATS lets the publish through
 *   and swallows everything NATS says after it) is retried once NATS answers again, and the
 *   stream keeps one message: JetStream drops the republish by its Nats-Msg-Id.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { type JetStreamManager, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_DUPLICATE_WINDOW_MS } from '../../src/ops/event-bus.js';
import { expectStreamHoldsFeed, isolatedStream, NATS_URL, streamMessageCount, until } from '../events-support.js';
import { call, evmWallet, signIn, startApi, type TestApi } from '../harness.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;

let nats: NatsConnection;
let jsm: JetStreamManager;
beforeAll(async () => {
  nats = await connect({ servers: NATS_URL, timeout: 5_000 }).catch((error: Error) => {
    throw new Error(`NATS JetStream is not reachable at ${NATS_URL} (${error.message}); CI starts it (.ci/run)`);
  });
  jsm = await jetstreamManager(nats);
});
afterAll(async () => {
  await nats?.close();
});

const relayPosition = async (api: TestApi, stream: string) => {
  const row = await api.db.db
    .selectFrom('event_relays')
    .select('last_position')
    .where('name', '=', `nats:${stream}`)
    .executeTakeFirst();
  return Number(row?.last_position ?? -1);
};

describe.each(['postgres', 'pglite'] as const)('NATS JetStream relay on %s', (backend) => {
  const { stream, prefix } = isolatedStream();
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi(backend, {
      env: {
        ADMIN_KEY,
        SEED_PROVIDERS: '4',
        METRICS: 'true',
        EVENT_BUS_URL: NATS_URL,
        EVENT_BUS_STREAM: stream,
        EVENT_BUS_SUBJECT_PREFIX: prefix,
      },
    });
  });
  afterAll(async () => {
    await api?.stop();
    await jsm.streams.delete(stream).catch(() => {});
  });

  it('a burst of events arrives in feed order, with Nats-Msg-Id = the event id', async () => {
    const providers = (await call(api, 'GET', '/providers?limit=4')).body.items as { id: number }[];
    const logins = await Promise.all(Array.from({ length: 20 }, () => signIn(api, evmWallet())));
    await Promise.all(
      logins.map((login, i) =>
        call(api, 'POST', `/providers/${providers[i % providers.length]!.id}/follow`, { token: login.token }),
      ),
    );
    const { feed, messages } = await expectStreamHoldsFeed(jsm, stream, api, ADMIN_KEY);
    expect(feed.length).toBe(60);
    for (const message of messages) expect(message.subject).toBe(`${prefix}.${message.event.type}`);
    // The stream the service made when none covered the subjects.
    const info = await jsm.streams.info(stream);
    expect(info.config.subjects).toEqual([`${prefix}.>`]);
    expect(info.config.duplicate_window / 1e6).toBe(STREAM_DUPLICATE_WINDOW_MS);
    await until(async () => (await relayPosition(api, stream)) === feed.length, 'the relay position');
    const metrics = await (await fetch(`${api.url}/metrics`)).text();
    expect(/^signal_events_bus_published (\S+)$/m.exec(metrics)?.[1]).toBe(String(feed.length));
    expect(/^signal_events_bus_lag_seconds (\S+)$/m.exec(metrics)?.[1]).toBe('0');
  });
});

/**
 * A TCP proxy in front of NATS that, once armed, lets the first publish to `prefix` through
 * and from then on swallows every byte NATS sends, on every connection (new ones never hear
 * NATS's INFO), until `release()` cuts them all and forwards again.
 */
class AckSwallower {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private armed = false;
  swallowing = false;
  port = 0;
  constructor(
    private readonly target: URL,
    private readonly marker: string,
  ) {}

  async listen() {
    this.server = createServer((client) => {
      const upstream = tcpConnect(Number(this.target.port), this.target.hostname);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('error', () => socket.destroy());
        socket.on('close', () => {
          this.sockets.delete(socket);
          client.destroy();
          upstream.destroy();
        });
      }
      client.on('data', (chunk: Buffer) => {
        if (this.armed && chunk.toString('latin1').includes(this.marker)) {
          this.armed = false;
          this.swallowing = true;
        }
        upstream.write(chunk);
      });
      upstream.on('data', (chunk: Buffer) => {
        if (!this.swallowing) client.write(chunk);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }
  arm() {
    this.armed = true;
  }
  release() {
    this.swallowing = false;
    for (const socket of this.sockets) socket.destroy();
  }
  async close() {
    this.release();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

describe('NATS JetStream relay: a lost publish ack', () => {
  const { stream, prefix } = isolatedStream();
  let api: TestApi;
  let proxy: AckSwallower;
  beforeAll(async () => {
    proxy = new AckSwallower(new URL(NATS_URL), `PUB ${prefix}.`);
    await proxy.listen();
    api = await startApi('postgres', {
      env: {
        ADMIN_KEY,
        SEED_PROVIDERS: '1',
        METRICS: 'true',
        EVENT_BUS_URL: `nats://127.0.0.1:${proxy.port}`,
        EVENT_BUS_STREAM: stream,
        EVENT_BUS_SUBJECT_PREFIX: prefix,
      },
    });
  });
  afterAll(async () => {
    await api?.stop();
    await proxy?.close();
    await jsm.streams.delete(stream).catch(() => {});
  });

  it('is retried, and the stream keeps one message', async () => {
    const login = await signIn(api, evmWallet());
    await until(async () => (await relayPosition(api, stream)) === 2, 'the sign-in relayed');
    expect(await streamMessageCount(jsm, stream)).toBe(2);

    proxy.arm();
    const provider = (await call(api, 'GET', '/providers?limit=1')).body.items[0];
    expect((await call(api, 'POST', `/providers/${provider.id}/follow`, { token: login.token })).status).toBe(200);
    // Stored by JetStream, its ack swallowed: the relay has not recorded it.
    await until(() => proxy.swallowing, 'the publish');
    await until(async () => (await streamMessageCount(jsm, stream)) === 3, 'the message stored');
    expect(await relayPosition(api, stream)).toBe(2);

    // NATS answers again: the relay publishes the same event again, JetStream drops it.
    proxy.release();
    await until(async () => (await relayPosition(api, stream)) === 3, 'the retry recorded', 800);
    const { messages } = await expectStreamHoldsFeed(jsm, stream, api, ADMIN_KEY);
    expect(messages.map((m) => m.event.type)).toEqual(['user.created', 'session.created', 'follow.created']);
    const metrics = await (await fetch(`${api.url}/metrics`)).text();
    expect(Number(/^signal_events_bus_publish_failures (\S+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
