/**
 * Webhooks through the public surface, on PostgreSQL and PGlite: endpoint management (REST and
 * tRPC, scopes, the secret shown once), and deliveries to a real receiver on 127.0.0.1 (so
 * WEBHOOK_ALLOW_PRIVATE and WEBHOOK_ALLOW_HTTP are on here; webhooks.ssrf.test.ts runs with them
 * off): signatures verified by the `standardwebhooks` library, retries with one webhook-id, 302
 * a failure (not followed), 410 disables, Retry-After, automatic disabling, a hung receiver
 * that does not hold up another endpoint, the deliveries log and the metrics.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  createProvider,
  createServiceKey,
  expectError,
  startApi,
  type TestApi,
  trpcClient,
  trpcFailure,
} from '../harness.js';
import { hanging, type Receiver, startReceiver, status } from '../webhook-receiver.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
const RETRY_DELAY_MS = 400;
const RETRIES = 12;

/** Polls `read` until `done` holds for its value (bounded), and returns that value. */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached; last ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(['postgres', 'pglite'] as const)('webhooks on %s', (backend) => {
  let api: TestApi;
  let receiver: Receiver;
  let manager: string;
  beforeAll(async () => {
    receiver = await startReceiver();
    api = await startApi(backend, {
      env: {
        ADMIN_KEY,
        METRICS: 'true',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_RETRY_SCHEDULE: Array(RETRIES).fill(`${RETRY_DELAY_MS}ms`).join(','),
        WEBHOOK_DISABLE_AFTER: '3s',
        WEBHOOK_CONCURRENCY: '8',
        WEBHOOK_ENDPOINT_CONCURRENCY: '3',
      },
    });
    manager = await createServiceKey(api, ADMIN_KEY, 'webhook manager', [
      'webhooks:manage',
      'providers:write',
      'events:read',
    ]);
  });
  afterAll(async () => {
    await api?.stop();
    await receiver?.close();
  });

  const createEndpoint = async (path: string, types: string[] = ['provider.created']) => {
    const created = await call(api, 'POST', '/webhooks', {
      token: manager,
      body: { url: `${receiver.url}${path}`, types, description: `test ${path}` },
    });
    expect(created.status).toBe(201);
    return created.body as { id: string; secret: string; url: string };
  };
  /** A provider.created event; its id as the feed shows it. */
  const providerCreated = () => createProvider(api, ADMIN_KEY, `p ${randomBytes(4).toString('hex')}`);
  /** Waits until the endpoint `id` is disabled (`what` names the wait in a timeout). */
  const disabled = (id: string, what: string) =>
    eventually(
      async () => (await call(api, 'GET', `/webhooks/${id}`, { token: manager })).body.enabled,
      (enabled) => enabled === false,
      what,
    );
  const log = async (id: string, query = '') =>
    (await call(api, 'GET', `/webhooks/${id}/deliveries${query}`, { token: manager })).body as {
      items: {
        eventId: string;
        attempt: number;
        status: string;
        responseStatus: number | null;
        at: string;
        nextAttemptAt: string | null;
      }[];
      nextCursor: string | null;
    };

  it('manages endpoints: create (secret once), list, get, patch, delete; 404s, 400s and scopes', async () => {
    const created = await call(api, 'POST', '/webhooks', {
      token: manager,
      body: { url: `${receiver.url}/managed`, types: ['follow.created', 'follow.deleted'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      url: `${receiver.url}/managed`,
      types: ['follow.created', 'follow.deleted'],
      description: null,
      enabled: true,
      createdAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
    });
    const { id, secret, ...shown } = created.body;
    const got = await call(api, 'GET', `/webhooks/${id}`, { token: manager });
    expect(got.body).toEqual({ id, ...shown });
    expect(JSON.stringify(got.body)).not.toContain(secret);
    const list = await call(api, 'GET', '/webhooks', { token: manager });
    expect(list.body.items).toContainEqual({ id, ...shown });
    expect(JSON.stringify(list.body)).not.toContain('whsec_');

    const patched = await call(api, 'PATCH', `/webhooks/${id}`, {
      token: manager,
      body: { types: ['*'], description: 'all of it', enabled: false },
    });
    expect(patched.body).toMatchObject({ id, types: ['*'], description: 'all of it', enabled: false });
    expectError(await call(api, 'PATCH', `/webhooks/${id}`, { token: manager, body: {} }), 400, 'VALIDATION_ERROR');

    // Over tRPC, the same procedures.
    const trpc = trpcClient(api, manager);
    expect(await trpc.webhooks.get.query({ id })).toMatchObject({ id, enabled: false });
    expect((await trpc.webhooks.list.query()).items.map((item) => item.id)).toContain(id);

    expect((await call(api, 'DELETE', `/webhooks/${id}`, { token: manager })).body).toEqual({ id, deleted: true });
    expectError(await call(api, 'DELETE', `/webhooks/${id}`, { token: manager }), 404, 'NOT_FOUND');
    expectError(await call(api, 'GET', `/webhooks/${id}`, { token: manager }), 404, 'NOT_FOUND');
    expectError(
      await call(api, 'PATCH', `/webhooks/${id}`, { token: manager, body: { enabled: true } }),
      404,
      'NOT_FOUND',
    );
    expectError(await call(api, 'GET', `/webhooks/${id}/deliveries`, { token: manager }), 404, 'NOT_FOUND');

    for (const types of [['follow.made'], ['*', 'follow.created'], []]) {
      const refused = await call(api, 'POST', '/webhooks', {
        token: manager,
        body: { url: `${receiver.url}/x`, types },
      });
      expectError(refused, 400, 'VALIDATION_ERROR');
    }
    expectError(
      await call(api, 'POST', '/webhooks', { token: manager, body: { url: 'not a url', types: ['*'] } }),
      400,
      'VALIDATION_ERROR',
    );

    // Scopes: no key 401, another scope 403, a user-less key with the scope 200.
    expectError(await call(api, 'GET', '/webhooks'), 401, 'UNAUTHORIZED');
    const reader = await createServiceKey(api, ADMIN_KEY, 'r', ['events:read']);
    expectError(await call(api, 'GET', '/webhooks', { token: reader }), 403, 'FORBIDDEN');
    const failure = await trpcFailure(trpcClient(api, reader).webhooks.list.query());
    expect(failure.data?.code).toBe('FORBIDDEN');
  });

  it('delivers signed events that the standardwebhooks library verifies, with the event id as webhook-id', async () => {
    const endpoint = await createEndpoint('/signed');
    const providerId = await providerCreated();
    await receiver.until((all) => all.some((r) => r.path === '/signed'));
    const [request] = receiver.at('/signed');
    const verified = new Webhook(endpoint.secret).verify(request!.body, request!.headers) as Record<string, unknown>;
    const feed = await call(api, 'GET', '/events?types=provider.created&limit=1000', { token: manager });
    const event = feed.body.items.find((item: { data: { providerId: number } }) => item.data.providerId === providerId);
    expect(verified).toEqual({ type: 'provider.created', timestamp: event.occurredAt, data: { providerId } });
    expect(request!.id).toBe(event.id);
    expect(request!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    // Another secret does not verify it.
    const other = await createEndpoint('/other-secret');
    expect(() => new Webhook(other.secret).verify(request!.body, request!.headers)).toThrow();
    await eventually(
      () => log(endpoint.id),
      (page) => page.items.length === 1 && page.items[0]!.status === 'succeeded',
      'the log shows the delivery',
    );
    expect((await log(endpoint.id)).items).toEqual([
      {
        eventId: event.id,
        attempt: 1,
        status: 'succeeded',
        responseStatus: 200,
        at: expect.any(String),
        nextAttemptAt: null,
      },
    ]);
  });

  it('500, 500, 200: three attempts of one webhook-id, the log newest first (and by cursor)', async () => {
    let calls = 0;
    receiver.answer('/flaky', (request, res) => status(++calls <= 2 ? 500 : 200)(request, res));
    const endpoint = await createEndpoint('/flaky');
    await providerCreated();
    await receiver.until((all) => all.filter((r) => r.path === '/flaky').length >= 3);
    const requests = receiver.at('/flaky');
    expect(new Set(requests.map((r) => r.id)).size).toBe(1);
    for (const request of requests) new Webhook(endpoint.secret).verify(request.body, request.headers);
    const page = await eventually(
      () => log(endpoint.id),
      (p) => p.items[0]?.status === 'succeeded',
      'the third attempt recorded',
    );
    expect(page.items.map(({ attempt, status, responseStatus }) => ({ attempt, status, responseStatus }))).toEqual([
      { attempt: 3, status: 'succeeded', responseStatus: 200 },
      { attempt: 2, status: 'failed', responseStatus: 500 },
      { attempt: 1, status: 'failed', responseStatus: 500 },
    ]);
    // One page at a time gives the same rows.
    const walked = [];
    let cursor: string | null = null;
    do {
      const next = await log(endpoint.id, `?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      walked.push(...next.items);
      cursor = next.nextCursor;
    } while (cursor);
    expect(walked).toEqual(page.items);
    expect(receiver.at('/flaky')).toHaveLength(3);
    // Another endpoint's cursor is refused.
    const first = await log(endpoint.id, '?limit=1');
    const other = await createEndpoint('/cursor-other');
    expectError(
      await call(api, 'GET', `/webhooks/${other.id}/deliveries?cursor=${first.nextCursor}`, { token: manager }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('a retry waiting shows as pending with its nextAttemptAt, and Retry-After pushes it back', async () => {
    receiver.answer('/busy', status(503, { 'Retry-After': '30' }));
    const endpoint = await createEndpoint('/busy');
    await providerCreated();
    const page = await eventually(
      () => log(endpoint.id),
      (p) => p.items.length === 2,
      'one failed attempt and the pending retry',
    );
    const [pending, failed] = page.items;
    expect(failed).toMatchObject({ attempt: 1, status: 'failed', responseStatus: 503, nextAttemptAt: null });
    expect(pending).toMatchObject({ attempt: 2, status: 'pending', responseStatus: null, eventId: failed!.eventId });
    // The schedule says 400 ms; the receiver asked for 30 s.
    expect(Date.parse(pending!.nextAttemptAt!) - Date.parse(pending!.at)).toBeGreaterThanOrEqual(30_000);
    expect(receiver.at('/busy')).toHaveLength(1);
    await call(api, 'DELETE', `/webhooks/${endpoint.id}`, { token: manager });
  });

  it('302 is a failed attempt, and the redirect is not followed', async () => {
    receiver.answer('/moved', status(302, { Location: `${receiver.url}/moved-here` }));
    const endpoint = await createEndpoint('/moved');
    await providerCreated();
    const page = await eventually(
      () => log(endpoint.id),
      (p) => p.items.some((item) => item.status === 'failed'),
      'a failed attempt',
    );
    expect(page.items.find((item) => item.status === 'failed')).toMatchObject({ attempt: 1, responseStatus: 302 });
    expect(receiver.at('/moved-here')).toHaveLength(0);
    await call(api, 'DELETE', `/webhooks/${endpoint.id}`, { token: manager });
  });

  it('410 disables the endpoint: no retry, and later events are not delivered to it', async () => {
    receiver.answer('/gone', status(410));
    const endpoint = await createEndpoint('/gone');
    await providerCreated();
    await disabled(endpoint.id, 'disabled');
    expect((await log(endpoint.id)).items).toEqual([
      expect.objectContaining({ attempt: 1, status: 'failed', responseStatus: 410 }),
    ]);
    // Events while disabled go nowhere, even once it is enabled again; new ones arrive.
    await providerCreated();
    receiver.answer('/gone', status(200));
    const enabled = await call(api, 'PATCH', `/webhooks/${endpoint.id}`, { token: manager, body: { enabled: true } });
    expect(enabled.body.enabled).toBe(true);
    const after = await providerCreated();
    await receiver.until((all) => all.some((r) => r.path === '/gone' && r.body.includes(`"providerId":${after}`)));
    expect(receiver.at('/gone')).toHaveLength(2);
  });

  it('an endpoint failing every attempt for WEBHOOK_DISABLE_AFTER is disabled, its pending delivery failed', async () => {
    receiver.answer('/down', status(500));
    const endpoint = await createEndpoint('/down');
    await providerCreated();
    await disabled(endpoint.id, 'disabled after 3 s of failures');
    const page = await log(endpoint.id);
    expect(page.items.every((item) => item.status === 'failed' && item.responseStatus === 500)).toBe(true);
    // More than one attempt, fewer than the schedule allows: it stopped because it was disabled.
    expect(page.items.length).toBeGreaterThan(1);
    expect(page.items.length).toBeLessThan(RETRIES + 1);
    const attemptsSeen = receiver.at('/down').length;
    expect(attemptsSeen).toBe(page.items.length);
  });

  it('a receiver that hangs does not hold up another endpoint', async () => {
    const hung = hanging();
    receiver.answer('/hangs', hung.answer);
    const slow = await createEndpoint('/hangs');
    const fast = await createEndpoint('/fast');
    const events = 10;
    for (let i = 0; i < events; i++) await providerCreated();
    // Every event reaches the healthy endpoint while the hung one holds all its slots (3), and
    // more wait behind them: WEBHOOK_CONCURRENCY (8) is not taken by one endpoint.
    await receiver.until((all) => new Set(all.filter((r) => r.path === '/fast').map((r) => r.id)).size === events);
    expect(hung.held.filter((res) => !res.writableEnded)).toHaveLength(receiver.at('/hangs').length);
    expect(receiver.at('/hangs').length).toBeLessThanOrEqual(3);
    receiver.answer('/hangs', status(200));
    hung.release(200);
    await receiver.until((all) => new Set(all.filter((r) => r.path === '/hangs').map((r) => r.id)).size === events);
    await call(api, 'DELETE', `/webhooks/${slow.id}`, { token: manager });
    await call(api, 'DELETE', `/webhooks/${fast.id}`, { token: manager });
  });

  it('counts deliveries by outcome in /metrics, and the oldest undelivered event’s age', async () => {
    const text = (await call(api, 'GET', '/metrics')).body as string;
    const value = (line: string) => Number(new RegExp(`^${line} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(value('signal_webhook_deliveries_total\\{outcome="succeeded"\\}')).toBeGreaterThan(0);
    expect(value('signal_webhook_deliveries_total\\{outcome="retrying"\\}')).toBeGreaterThan(0);
    expect(value('signal_webhook_deliveries_total\\{outcome="failed"\\}')).toBeGreaterThan(0);
    expect(value('signal_webhook_oldest_undelivered_seconds')).toBeGreaterThanOrEqual(0);
    expect(value('signal_webhook_deliveries_pending')).toBeGreaterThanOrEqual(0);
  });
});
