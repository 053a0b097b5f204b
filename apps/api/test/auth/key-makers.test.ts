/**
 * Keys made by a key (CONTRACT.md, Version 4, "Changes to earlier versions"; issue 42, item 3),
 * attacked on two servers sharing one database: a `keys:manage` key due to expire, or revoked,
 * made keys (and those made more); each of them is refused at its next request on the OTHER
 * server. Before, a key made without expiry kept working after its maker expired or was revoked.
 * Also: the capped `expiresAt`, `createdBy`, and listing and revoking only within the caller's
 * scopes.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, expectError, type TestApi, useServerPair } from '../harness.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
const MANAGER_SCOPES = ['keys:manage', 'followers:read'];

interface Made {
  id: string;
  key: string;
  expiresAt: string | null;
  createdBy: string;
}

async function makeKey(api: TestApi, by: string, body: Record<string, unknown>): Promise<Made> {
  const reply = await call(api, 'POST', '/admin/keys', { token: by, body: { name: 'made', ...body } });
  if (reply.status !== 201) throw new Error(`create key: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body as Made;
}

/** The key's next request: 200 while it lives, 401 once it is dead. */
const listWith = (api: TestApi, key: string) => call(api, 'GET', '/admin/keys?limit=100', { token: key });

describe.each(['postgres', 'pglite'] as const)('keys made by a key on %s', (backend) => {
  const { a, b } = useServerPair(backend, { ADMIN_KEY });

  it('a maker that expires takes its children and grandchildren with it, on the other server', async () => {
    const makerExpiry = new Date(Date.now() + 3_000);
    const maker = await makeKey(a, ADMIN_KEY, { scopes: MANAGER_SCOPES, expiresAt: makerExpiry.toISOString() });
    expect(maker.createdBy).toBe('admin');
    // Omitted, later and earlier expiries: the first two become the maker's, the third stays.
    const forever = await makeKey(a, maker.key, { scopes: MANAGER_SCOPES });
    const later = await makeKey(a, maker.key, {
      scopes: ['followers:read'],
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const earlier = new Date(Date.now() + 2_000).toISOString();
    const sooner = await makeKey(a, maker.key, { scopes: ['followers:read'], expiresAt: earlier });
    expect(forever.expiresAt).toBe(maker.expiresAt);
    expect(later.expiresAt).toBe(maker.expiresAt);
    expect(sooner.expiresAt).toBe(earlier);
    expect([forever.createdBy, later.createdBy, sooner.createdBy]).toEqual([maker.id, maker.id, maker.id]);
    const grandchild = await makeKey(a, forever.key, { scopes: ['followers:read'] });
    expect(grandchild).toMatchObject({ createdBy: forever.id, expiresAt: maker.expiresAt });
    expect((await listWith(b, forever.key)).status).toBe(200);

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, makerExpiry.getTime() - Date.now() + 50)));
    expectError(await listWith(b, maker.key), 401, 'UNAUTHORIZED');
    expectError(await listWith(b, forever.key), 401, 'UNAUTHORIZED');
    const followers = (key: string) => call(b, 'GET', '/providers/1/followers', { token: key });
    for (const dead of [later, grandchild]) expectError(await followers(dead.key), 401, 'UNAUTHORIZED');
  });

  it('revoking a maker revokes what it made and what those made, from the next request on the other server', async () => {
    const maker = await makeKey(a, ADMIN_KEY, { scopes: MANAGER_SCOPES });
    const child = await makeKey(a, maker.key, { scopes: MANAGER_SCOPES });
    const grandchild = await makeKey(a, child.key, { scopes: MANAGER_SCOPES });
    const sibling = await makeKey(a, ADMIN_KEY, { scopes: MANAGER_SCOPES });
    for (const key of [child, grandchild]) expect((await listWith(b, key.key)).status).toBe(200);

    expect((await call(a, 'DELETE', `/admin/keys/${maker.id}`, { token: ADMIN_KEY })).status).toBe(200);
    for (const dead of [maker, child, grandchild]) expectError(await listWith(b, dead.key), 401, 'UNAUTHORIZED');
    // A key made elsewhere is untouched, and the list shows when each one died.
    const listed = await listWith(b, sibling.key);
    expect(listed.status).toBe(200);
    const byId = new Map(listed.body.items.map((item: { id: string }) => [item.id, item]));
    for (const dead of [maker, child, grandchild]) {
      expect((byId.get(dead.id) as { revokedAt: string | null }).revokedAt).not.toBeNull();
    }
    // A dead maker makes nothing more.
    expectError(
      await call(b, 'POST', '/admin/keys', { token: child.key, body: { name: 'late', scopes: ['followers:read'] } }),
      401,
      'UNAUTHORIZED',
    );
  });

  it('a keys:manage key lists and revokes only keys whose scopes it holds', async () => {
    const manager = await makeKey(a, ADMIN_KEY, { scopes: MANAGER_SCOPES });
    const wider = await makeKey(a, ADMIN_KEY, { scopes: ['providers:write'] });
    const mixed = await makeKey(a, ADMIN_KEY, { scopes: ['followers:read', 'events:read'] });
    const narrow = await makeKey(a, ADMIN_KEY, { scopes: ['followers:read'] });
    const page = await listWith(b, manager.key);
    const ids = page.body.items.map((item: { id: string }) => item.id);
    expect(ids).toContain(narrow.id);
    expect(ids).toContain(manager.id);
    expect(ids).not.toContain(wider.id);
    expect(ids).not.toContain(mixed.id);
    const everything = await listWith(b, ADMIN_KEY);
    expect(page.body.total).toBeLessThan(everything.body.total);
    expect(everything.body.items.map((item: { id: string }) => item.id)).toContain(wider.id);

    for (const hidden of [wider, mixed]) {
      expectError(await call(b, 'DELETE', `/admin/keys/${hidden.id}`, { token: manager.key }), 404, 'NOT_FOUND');
      expect((await call(b, 'GET', '/events?limit=1', { token: hidden.key })).status).not.toBe(401);
    }
    expect((await call(b, 'DELETE', `/admin/keys/${narrow.id}`, { token: manager.key })).status).toBe(200);
    expectError(await call(a, 'GET', '/providers/1/followers', { token: narrow.key }), 401, 'UNAUTHORIZED');
  });
});
