/**
 * Webhook delivery is fair across endpoints (CONTRACT.md, Version 4, "Changes to earlier
 * versions"; issue 42, item 4), with the default slots (WEBHOOK_CONCURRENCY 64,
 * WEBHOOK_ENDPOINT_CONCURRENCY 16): four receivers that accept connections and never answer
 * (node:http servers on 127.0.0.1) and one healthy receiver subscribe to the same events. The
 * hung ones hold only a small share of the slots, so the healthy one's deliveries keep arriving
 * within the normal schedule (the worker's 200 ms poll), not after the hung attempts' 15 s.
 * Before this, the hung four took all 64 slots and a healthy delivery waited 14.9 s.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createProvider, createServiceKey, startApi, type TestApi } from '../harness.js';
import { type Receiver, startReceiver } from '../webhook-receiver.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
const HUNG_RECEIVERS = 4;
/** More than WEBHOOK_ENDPOINT_CONCURRENCY (16) per endpoint: enough for the hung four to take all 64 slots before. */
const BURST = 20;
/** Events measured one after another once the burst is out. */
const MEASURED = 6;
/** The normal schedule: the worker polls every 200 ms; this leaves room for a loaded CI machine. */
const NORMAL_DELAY_MS = 2_500;

/** A receiver that takes every request and never answers; how many it holds. */
async function startHungReceiver() {
  const held: ServerResponse[] = [];
  const server: Server = createServer((_req, res) => {
    held.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hung`,
    held,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe.each(['postgres', 'pglite'] as const)('webhook slots with four hung receivers on %s', (backend) => {
  let api: TestApi;
  let healthy: Receiver;
  let hung: Awaited<ReturnType<typeof startHungReceiver>>[] = [];
  let manager: string;
  beforeAll(async () => {
    healthy = await startReceiver();
    hung = await Promise.all(Array.from({ length: HUNG_RECEIVERS }, startHungReceiver));
    api = await startApi(backend, {
      env: { ADMIN_KEY, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_ALLOW_HTTP: 'true' },
    });
    manager = await createServiceKey(api, ADMIN_KEY, 'fairness', ['webhooks:manage', 'providers:write']);
  });
  afterAll(async () => {
    // The hung attempts end with their connections, so the server stops without waiting for them.
    await Promise.all(hung.map((receiver) => receiver.close()));
    await api?.stop();
    await healthy?.close();
  });

  const subscribe = async (url: string) => {
    const created = await call(api, 'POST', '/webhooks', {
      token: manager,
      body: { url, types: ['provider.created'] },
    });
    expect(created.status).toBe(201);
  };
  /** A provider.created event: the provider's id. */
  const providerCreated = () => createProvider(api, manager, `fair ${randomBytes(3).toString('hex')}`);
  const arrived = (providerId: number) =>
    healthy.received.some((request) => JSON.parse(request.body).data.providerId === providerId);

  it('the healthy endpoint’s deliveries arrive within the normal schedule while four receivers hang', async () => {
    for (const receiver of hung) await subscribe(receiver.url);
    await subscribe(`${healthy.url}/healthy`);
    const burst: number[] = [];
    for (let i = 0; i < BURST; i++) burst.push(await providerCreated());
    await healthy.until(() => burst.every(arrived), 20_000);
    // Now every hung receiver holds what it was given, unanswered: a small share each.
    const heldByHung = hung.map((receiver) => receiver.held.length);
    expect(heldByHung.every((count) => count >= 1)).toBe(true);
    expect(heldByHung.reduce((sum, count) => sum + count, 0)).toBeLessThanOrEqual(16);

    const delays: number[] = [];
    for (let i = 0; i < MEASURED; i++) {
      const started = performance.now();
      const id = await providerCreated();
      await healthy.until(() => arrived(id), 20_000);
      delays.push(performance.now() - started);
    }
    expect(Math.max(...delays), `delays ${delays.map(Math.round).join(', ')} ms`).toBeLessThan(NORMAL_DELAY_MS);
    // The hung ones were not given more meanwhile: their share stays small.
    expect(hung.reduce((sum, receiver) => sum + receiver.held.length, 0)).toBeLessThanOrEqual(16);
  });
});
