/**
 * The service client's webhook methods against the real API: create (the secret once), list,
 * get, update, delete, and the deliveries log of an event delivered to a receiver in the test
 * (on 127.0.0.1, so the API runs with the development switches WEBHOOK_ALLOW_PRIVATE/HTTP on).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServiceClient, SignalApiError } from '@signal/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useApi } from './support/api.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
const api = useApi('pglite', {
  env: { ADMIN_KEY, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_ALLOW_HTTP: 'true' },
});

describe('createServiceClient: webhooks', () => {
  const received: string[] = [];
  const receiver = createServer((req, res) => {
    received.push(String(req.headers['webhook-id']));
    req.resume();
    res.end('ok');
  });
  let receiverUrl: string;
  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  it('manages an endpoint and reads its deliveries log', async () => {
    const admin = createServiceClient({ baseUrl: api.url, key: ADMIN_KEY });
    const created = await admin.createWebhook({ url: receiverUrl, types: ['provider.created'], description: 'sdk' });
    expect(created.secret).toMatch(/^whsec_/);
    const { secret: _, ...endpoint } = created;
    expect(await admin.getWebhook(created.id)).toEqual(endpoint);
    expect((await admin.listWebhooks()).items).toContainEqual(endpoint);

    await admin.createProvider({ name: 'announced' });
    for (let i = 0; received.length === 0 && i < 600; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    // The receiver has answered, but the worker records the outcome after that: until then the
    // log shows the attempt in flight (pending, due again when its lease runs out).
    let page = await admin.webhookDeliveries(created.id);
    for (let i = 0; (page.items.length === 0 || page.items[0]?.status === 'pending') && i < 600; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      page = await admin.webhookDeliveries(created.id);
    }
    expect(page).toEqual({
      items: [
        {
          eventId: received[0],
          attempt: 1,
          status: 'succeeded',
          responseStatus: 200,
          at: expect.any(String),
          nextAttemptAt: null,
        },
      ],
      nextCursor: null,
    });

    expect(await admin.updateWebhook(created.id, { enabled: false })).toEqual({ ...endpoint, enabled: false });
    expect(await admin.deleteWebhook(created.id)).toEqual({ id: created.id, deleted: true });
    const missing = await admin.getWebhook(created.id).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(SignalApiError);
    expect((missing as SignalApiError).code).toBe('NOT_FOUND');
  });
});
