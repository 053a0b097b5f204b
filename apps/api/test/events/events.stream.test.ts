/**
 * The tRPC subscription `events.stream` (`events:read`) through @trpc/client 11's
 * `httpSubscriptionLink`, as an internal TypeScript service would use it (EventSource from the
 * `eventsource` package, which lets Node send the key in the Authorization header), on
 * PostgreSQL and PGlite: events from now on with their id as the tracked id; resumed after
 * `lastEventId`; a connection cut mid-stream (a proxy between client and server) reconnects
 * with the last id and nothing is lost or repeated against the feed; credentials; and the rest
 * of /trpc still on the lean dispatch.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { feedNumbered, readWholeFeed, until, type WireEvent } from '../events-support.js';
import { call, createServiceKey, evmWallet, signIn, useApi } from '../harness.js';
import { subscriptionClient } from '../subscription-client.js';
import { TcpProxy } from '../tcp-proxy.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;

/** A subscription of events.stream, collecting what it receives. */
const subscribe = (url: string, key: string | undefined, input: { lastEventId?: string; types?: string[] } = {}) =>
  subscriptionClient<{ id: string; data: WireEvent }>(url, key, (client) => client.events.stream, input);

describe.each(['postgres', 'pglite'] as const)('events.stream on %s', (backend) => {
  const api = useApi(backend, { env: { ADMIN_KEY, SEED_PROVIDERS: '3', METRICS: 'true' } });
  let reader: string;
  beforeAll(async () => {
    reader = await createServiceKey(api, ADMIN_KEY, 'stream reader', ['events:read']);
  });

  const feedAll = () => readWholeFeed(api, reader);

  it('streams events committed after it connected, each with its id as the tracked id', async () => {
    await signIn(api, evmWallet()); // before (and numbered): not in the stream
    await feedNumbered(api);
    const stream = subscribe(api.url, reader);
    await until(() => stream.started, 'the stream to start');
    const login = await signIn(api, evmWallet());
    const provider = (await call(api, 'GET', '/providers?limit=1')).body.items[0];
    await call(api, 'POST', `/providers/${provider.id}/follow`, { token: login.token });
    await until(() => stream.received.length >= 3, 'three events');
    stream.stop();
    expect(stream.received.map(({ data }) => [data.type, data.data])).toEqual([
      ['user.created', { userId: login.user.id, wallet: login.user.wallet, chain: 'evm' }],
      ['session.created', { userId: login.user.id, sessionId: login.sessionId }],
      ['follow.created', { userId: login.user.id, providerId: provider.id, followerCount: provider.followerCount + 1 }],
    ]);
    for (const { id, data } of stream.received) expect(id).toBe(data.id);
    // The same events as the feed's, in the feed's order.
    const feed = await feedAll();
    expect(feed.slice(-3)).toEqual(stream.received.map(({ data }) => data));
  });

  it('resumes right after lastEventId, and filters by types', async () => {
    for (let i = 0; i < 3; i++) await signIn(api, evmWallet());
    const feed = await feedAll();
    const from = feed.length - 5;
    const stream = subscribe(api.url, reader, { lastEventId: feed[from - 1]!.id });
    await until(() => stream.received.length >= 5, 'five events');
    const only = subscribe(api.url, reader, { lastEventId: feed[from - 1]!.id, types: ['session.created'] });
    const sessions = feed.slice(from).filter((e) => e.type === 'session.created');
    await until(() => only.received.length >= sessions.length, 'the session events');
    // Nothing more than that arrives with the next event either.
    await signIn(api, evmWallet());
    await until(() => stream.received.length >= 7 && only.received.length >= sessions.length + 1, 'the next sign-in');
    stream.stop();
    only.stop();
    const after = await feedAll();
    expect(stream.received.map(({ data }) => data)).toEqual(after.slice(from));
    expect(only.received.map(({ data }) => data)).toEqual(
      after.slice(from).filter((e) => e.type === 'session.created'),
    );
  });

  it('a cut connection reconnects with its last event id: every event once, in feed order', async () => {
    const target = new URL(api.url);
    const proxy = new TcpProxy({ host: target.hostname, port: Number(target.port) });
    await proxy.listen();
    try {
      const start = (await feedAll()).length;
      const stream = subscribe(`http://127.0.0.1:${proxy.port}`, reader);
      await until(() => stream.started, 'the stream to start');
      const wallets = Array.from({ length: 12 }, () => evmWallet());
      for (const [i, wallet] of wallets.entries()) {
        await signIn(api, wallet);
        // Twice, while events are being written: the client reconnects after each cut.
        if (i === 3 || i === 8) {
          await until(() => stream.received.length >= 2 * (i + 1) - 2, 'events before the cut');
          await proxy.restore();
        }
      }
      await until(() => stream.received.length >= 2 * wallets.length, 'every event after the cuts', 600);
      await signIn(api, evmWallet());
      await until(() => stream.received.length >= 2 * wallets.length + 2, 'one more sign-in');
      stream.stop();
      expect(stream.connections).toBeGreaterThanOrEqual(3);
      const feed = (await feedAll()).slice(start);
      expect(stream.received.map(({ data }) => data)).toEqual(feed);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('refuses a missing or wrong credential before any stream: its status, with tRPC’s JSON error', async () => {
    const user = await signIn(api, evmWallet());
    const other = await createServiceKey(api, ADMIN_KEY, 'no events', ['followers:read']);
    const cases = [
      { token: undefined, input: {}, status: 401, code: 'UNAUTHORIZED' },
      { token: 'sgk_not-a-key-at-all', input: {}, status: 401, code: 'UNAUTHORIZED' },
      { token: user.token, input: {}, status: 403, code: 'FORBIDDEN' },
      { token: other, input: {}, status: 403, code: 'FORBIDDEN' },
      {
        token: reader,
        input: { lastEventId: 'evt_00000000000000000000000000000000' },
        status: 400,
        code: 'VALIDATION_ERROR',
      },
    ];
    for (const { token, input, status, code } of cases) {
      const reply = await fetch(`${api.url}/trpc/events.stream?input=${encodeURIComponent(JSON.stringify(input))}`, {
        headers: { accept: 'text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      });
      expect(reply.status).toBe(status);
      expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const body = (await reply.json()) as { error: { message: string; data: { code: string; httpStatus: number } } };
      expect(body.error.data).toMatchObject({ code, httpStatus: status, path: 'events.stream' });
      expect(body.error.message.length).toBeGreaterThan(0);
      if (status === 401) expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    // Through @trpc/client: an error, no event; its cause is the EventSource's failure with the status.
    const none = subscribe(api.url, undefined);
    const asUser = subscribe(api.url, user.token);
    await until(() => [none, asUser].every((s) => s.error !== undefined), 'the errors');
    expect((none.error?.cause as { code?: number } | undefined)?.code).toBe(401);
    expect((asUser.error?.cause as { code?: number } | undefined)?.code).toBe(403);
    for (const s of [none, asUser]) {
      expect(s.received).toEqual([]);
      s.stop();
    }
  });

  it('is served by tRPC’s streaming handler; the rest of /trpc by the lean dispatch', async () => {
    const controller = new AbortController();
    const stream = await fetch(`${api.url}/trpc/events.stream?input=${encodeURIComponent('{}')}`, {
      headers: { authorization: `Bearer ${reader}` },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    const first = await stream.body!.getReader().read();
    expect(new TextDecoder().decode(first.value)).toContain('event: connected');
    controller.abort();
    const feed = await fetch(`${api.url}/trpc/events.feed?input=${encodeURIComponent('{}')}`, {
      headers: { authorization: `Bearer ${reader}` },
    });
    expect(feed.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(((await feed.json()) as { result: { data: { nextCursor: string } } }).result.data.nextCursor).toEqual(
      expect.any(String),
    );
    // A subscription is no query: the lean dispatch refuses it as ever.
    const wrong = await call(api, 'POST', '/trpc/events.stream', { token: reader, body: {} });
    expect(wrong.status).toBeGreaterThanOrEqual(400);
  });

  it('metrics: open streams', async () => {
    const open = async () =>
      Number(/^signal_events_streams_open (\S+)$/m.exec(await (await fetch(`${api.url}/metrics`)).text())?.[1]);
    const before = await open();
    const stream = subscribe(api.url, reader);
    await until(() => stream.started, 'the stream to start');
    await signIn(api, evmWallet());
    await until(() => stream.received.length >= 2, 'events');
    expect(await open()).toBe(before + 1);
    stream.stop();
  });
});
