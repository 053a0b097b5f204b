/**
 * `revealDelaySeconds` on providers (CONTRACT.md, Version 4, "Signals"): 0 by default, set by
 * `POST` and `PATCH /providers` (`providers:write`) within 0..2,592,000, shown by every read of a
 * provider, refused outside its bounds with the field's path; a change announces provider.updated.
 */
import { randomBytes } from 'node:crypto';
import { describeBackends } from '@signal/test-support/vitest';
import { beforeAll, expect, it } from 'vitest';
import { readWholeFeed } from '../events-support.js';
import { call, createServiceKey, expectError, useApi } from '../harness.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;

describeBackends('revealDelaySeconds on %s', (backend) => {
  const api = useApi(backend, { env: { ADMIN_KEY } });
  let writer: string;
  let events: string;

  beforeAll(async () => {
    writer = await createServiceKey(api, ADMIN_KEY, 'writer', ['providers:write']);
    events = await createServiceKey(api, ADMIN_KEY, 'events', ['events:read']);
  });

  it('is 0 by default, set at creation and by PATCH, and shown by the detail and the list', async () => {
    const plain = await call(api, 'POST', '/providers', { token: writer, body: { name: 'Open Book' } });
    expect(plain.status).toBe(201);
    expect(plain.body.revealDelaySeconds).toBe(0);

    const delayed = await call(api, 'POST', '/providers', {
      token: writer,
      body: { name: 'Slow Reveal', revealDelaySeconds: 2_592_000 },
    });
    expect(delayed.status).toBe(201);
    expect(delayed.body.revealDelaySeconds).toBe(2_592_000);
    const id = delayed.body.id;
    expect((await call(api, 'GET', `/providers/${id}`)).body.revealDelaySeconds).toBe(2_592_000);

    const before = (await readWholeFeed(api, events)).filter((event) => event.type === 'provider.updated').length;
    const patched = await call(api, 'PATCH', `/providers/${id}`, { token: writer, body: { revealDelaySeconds: 90 } });
    expect(patched.status).toBe(200);
    expect(patched.body.revealDelaySeconds).toBe(90);
    // the same value again changes nothing and announces nothing
    expect(
      (await call(api, 'PATCH', `/providers/${id}`, { token: writer, body: { revealDelaySeconds: 90 } })).status,
    ).toBe(200);
    const updates = (await readWholeFeed(api, events)).filter((event) => event.type === 'provider.updated');
    expect(updates.length).toBe(before + 1);
    expect(updates.at(-1)!.data).toEqual({ providerId: id });

    const detail = await call(api, 'GET', `/providers/${id}`);
    expect(detail.body.revealDelaySeconds).toBe(90);
    const listed = await call(api, 'GET', '/providers?limit=100&sortBy=createdAt&order=desc');
    expect(listed.status).toBe(200);
    const rows = new Map(listed.body.items.map((item: { id: number }) => [item.id, item]));
    expect(rows.get(id)).toEqual(detail.body);
    expect((rows.get(plain.body.id) as { revealDelaySeconds: number }).revealDelaySeconds).toBe(0);
  });

  it('refuses values outside 0..2,592,000 and non-integers, naming the field', async () => {
    const id = (await call(api, 'POST', '/providers', { token: writer, body: { name: 'Bounds' } })).body.id;
    for (const value of [-1, 2_592_001, 1.5, '60', null]) {
      for (const [method, path] of [
        ['POST', '/providers'],
        ['PATCH', `/providers/${id}`],
      ] as const) {
        const reply = await call(api, method, path, {
          token: writer,
          body: { name: 'Bounds', revealDelaySeconds: value },
        });
        const error = expectError(reply, 400, 'VALIDATION_ERROR');
        expect(error.issues?.map((issue) => issue.path)).toContainEqual(['revealDelaySeconds']);
      }
    }
    expect((await call(api, 'GET', `/providers/${id}`)).body.revealDelaySeconds).toBe(0);
    // only providers:write sets it
    expectError(await call(api, 'PATCH', `/providers/${id}`, { body: { revealDelaySeconds: 5 } }), 401, 'UNAUTHORIZED');
  });
});
