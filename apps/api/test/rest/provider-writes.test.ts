/**
 * Operators' writes to the catalogue (CONTRACT.md, Version 3) over REST and tRPC, on PostgreSQL
 * and PGlite: every validation rule, archive and restore as every public read, follow and
 * /me/following see them, the events they write, and Idempotency-Key (20 concurrent retries,
 * conflicts, per credential, a malformed key).
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createServiceKey, evmWallet, expectError, signIn, trpcClient, trpcFailure, useApi } from '../harness.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;

describe.each(['postgres', 'pglite'] as const)('provider writes on %s', (backend) => {
  const api = useApi(backend, { env: { ADMIN_KEY, SEED_PROVIDERS: '5' } });
  let writer: string;
  let publisher: string;

  const createKey = (scopes: string[]) => createServiceKey(api, ADMIN_KEY, scopes.join(' '), scopes);
  const write = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    call(api, method, path, { token: writer, body, headers });

  beforeAll(async () => {
    writer = await createKey(['providers:write']);
    publisher = await createKey(['stats:write']);
  });

  it('refuses every invalid body with 400 VALIDATION_ERROR naming the field', async () => {
    const cases: [unknown, (string | number)[]][] = [
      [{ name: '' }, ['name']],
      [{ name: '   \t ' }, ['name']],
      [{ name: 'x'.repeat(101) }, ['name']],
      [{ name: 'Bell\u0007Signals' }, ['name']],
      [{ name: 'Line\nbreak' }, ['name']],
      [{ name: 'Ok', avatarUrl: 'http://cdn.example.com/a.png' }, ['avatarUrl']],
      [{ name: 'Ok', avatarUrl: '/avatars/a.svg' }, ['avatarUrl']],
      [{ name: 'Ok', avatarUrl: `https://cdn.example.com/${'a'.repeat(2030)}` }, ['avatarUrl']],
      [{ name: 'Ok', description: 'd'.repeat(2001) }, ['description']],
      [{ name: 'Ok', followerCount: 5 }, []],
      [{ description: 'no name' }, ['name']],
      [{ name: 42 }, ['name']],
    ];
    for (const [body, path] of cases) {
      const error = expectError(await write('POST', '/providers', body), 400, 'VALIDATION_ERROR');
      expect(error.issues?.length, JSON.stringify(body)).toBeGreaterThan(0);
      if (path.length > 0) expect(error.issues?.map((i) => i.path)).toContainEqual(path);
    }
    const seeded = (await call(api, 'GET', '/providers?limit=1&sortBy=id&order=asc')).body.items[0];
    expectError(await write('PATCH', `/providers/${seeded.id}`, {}), 400, 'VALIDATION_ERROR');
    expectError(await write('PATCH', `/providers/${seeded.id}`, { name: 'x', ranking: 1 }), 400, 'VALIDATION_ERROR');
    expectError(await write('PATCH', `/providers/${seeded.id}`, { archived: 'yes' }), 400, 'VALIDATION_ERROR');
    expectError(await write('PATCH', '/providers/9007199254740991', { name: 'x' }), 404, 'PROVIDER_NOT_FOUND');
    expectError(await write('DELETE', '/providers/9007199254740991'), 404, 'PROVIDER_NOT_FOUND');
    // Limits are inclusive, and the name is trimmed before it is counted.
    const edge = await write('POST', '/providers', {
      name: `  ${'é'.repeat(100)}  `,
      description: 'd'.repeat(2000),
      avatarUrl: `https://cdn.example.com/${'a'.repeat(2048 - 24)}`,
    });
    expect(edge.status).toBe(201);
    expect(edge.body.name).toBe('é'.repeat(100));
    // Over tRPC, the same rule and code.
    const failure = await trpcFailure(trpcClient(api, writer).providers.create.mutate({ name: ' ' }));
    expect(failure.data?.code).toBe('VALIDATION_ERROR');
    expect(failure.data?.httpStatus).toBe(400);
  });

  it('needs providers:write: another scope or a user token → 403, no credential → 401', async () => {
    expectError(await call(api, 'POST', '/providers', { token: publisher, body: { name: 'X' } }), 403, 'FORBIDDEN');
    const { token } = await signIn(api, evmWallet());
    expectError(await call(api, 'POST', '/providers', { token, body: { name: 'X' } }), 403, 'FORBIDDEN');
    expectError(await call(api, 'POST', '/providers', { body: { name: 'X' } }), 401, 'UNAUTHORIZED');
  });

  it('create, edit, archive and restore: every public read, follows and counts follow', async () => {
    const totalBefore = (await call(api, 'GET', '/providers')).body.total;
    const created = await write('POST', '/providers', { name: '  Night Owl Desk ', avatarUrl: null });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'Night Owl Desk',
      description: null,
      avatarUrl: null,
      followerCount: 0,
      createdAt: expect.any(String),
      roi30dPct: null,
      maxDrawdownPct: 0,
      winRate: 0,
      revealDelaySeconds: 0,
      archived: false,
    });
    const id = created.body.id as number;
    const { archived: _, ...publicView } = created.body;
    expect((await call(api, 'GET', `/providers/${id}`)).body).toEqual(publicView);
    expect((await call(api, 'GET', '/providers')).body.total).toBe(totalBefore + 1);

    const edited = await write('PATCH', `/providers/${id}`, { description: 'Swing trades on majors' });
    expect(edited.body).toMatchObject({
      id,
      name: 'Night Owl Desk',
      description: 'Swing trades on majors',
      archived: false,
    });

    // Two followers; one of them also follows a seeded provider.
    const alice = await signIn(api, evmWallet());
    const bob = await signIn(api, evmWallet());
    const seeded = (await call(api, 'GET', '/providers?limit=1&sortBy=id&order=asc')).body.items[0].id as number;
    for (const user of [alice, bob]) {
      expect((await call(api, 'POST', `/providers/${id}/follow`, { token: user.token })).status).toBe(200);
    }
    await call(api, 'POST', `/providers/${seeded}/follow`, { token: alice.token });
    expect((await call(api, 'GET', '/me', { token: alice.token })).body.followingCount).toBe(2);

    // Archive: idempotent, and gone from every public read.
    const archived = await write('DELETE', `/providers/${id}`);
    expect(archived.status).toBe(200);
    expect(archived.body).toEqual({ id, archived: true });
    expect((await write('DELETE', `/providers/${id}`)).body).toEqual({ id, archived: true });
    for (const path of [`/providers/${id}`, `/providers/${id}/stats`, `/providers/${id}/performance`]) {
      expectError(await call(api, 'GET', path), 404, 'PROVIDER_NOT_FOUND');
      // A token reads the primary and no cache: the same answer.
      expectError(await call(api, 'GET', path, { token: alice.token }), 404, 'PROVIDER_NOT_FOUND');
    }
    const list = await call(api, 'GET', '/providers?limit=100&sortBy=id&order=desc');
    expect(list.body.total).toBe(totalBefore);
    expect(list.body.items.map((p: { id: number }) => p.id)).not.toContain(id);
    for (const sortBy of ['followerCount', 'createdAt', 'name']) {
      const page = await call(api, 'GET', `/providers?limit=100&sortBy=${sortBy}`);
      expect(page.body.items.map((p: { id: number }) => p.id)).not.toContain(id);
    }
    const following = await call(api, 'GET', '/me/following', { token: alice.token });
    expect(following.body.items.map((p: { id: number }) => p.id)).toEqual([seeded]);
    expect(following.body.total).toBe(1);
    expect((await call(api, 'GET', '/me', { token: alice.token })).body.followingCount).toBe(1);
    // Cannot be followed; its followers may still unfollow.
    const carol = await signIn(api, evmWallet());
    expectError(await call(api, 'POST', `/providers/${id}/follow`, { token: carol.token }), 404, 'PROVIDER_NOT_FOUND');
    expectError(await call(api, 'POST', `/providers/${id}/follow`, { token: alice.token }), 404, 'PROVIDER_NOT_FOUND');
    const unfollow = await call(api, 'DELETE', `/providers/${id}/follow`, { token: bob.token });
    expect(unfollow.body).toEqual({ providerId: id, following: false, followerCount: 1 });
    // A PATCH without `archived` leaves it archived.
    const renamed = await write('PATCH', `/providers/${id}`, { name: 'Night Owl Research' });
    expect(renamed.body).toMatchObject({ name: 'Night Owl Research', archived: true });
    expectError(await call(api, 'GET', `/providers/${id}`), 404, 'PROVIDER_NOT_FOUND');

    // Restore: back as it was, with its remaining follower.
    const restored = await write('PATCH', `/providers/${id}`, { archived: false });
    expect(restored.body).toMatchObject({ id, name: 'Night Owl Research', followerCount: 1, archived: false });
    expect((await call(api, 'GET', `/providers/${id}`)).body.followerCount).toBe(1);
    expect((await call(api, 'GET', `/providers/${id}/stats`)).body.followerCount).toBe(1);
    expect((await call(api, 'GET', '/providers')).body.total).toBe(totalBefore + 1);
    const back = await call(api, 'GET', '/me/following', { token: alice.token });
    // Newest follow first: the seeded provider was followed after this one.
    expect(back.body.items.map((p: { id: number }) => p.id)).toEqual([seeded, id]);
    expect((await call(api, 'GET', '/me', { token: alice.token })).body.followingCount).toBe(2);

    // One event per kind of change, none for a change that changed nothing.
    const unchanged = await write('PATCH', `/providers/${id}`, { name: 'Night Owl Research', archived: false });
    expect(unchanged.status).toBe(200);
    const both = await write('PATCH', `/providers/${id}`, { name: 'Night Owl', archived: true });
    expect(both.body).toMatchObject({ name: 'Night Owl', archived: true });
    const events = await api.db.db
      .selectFrom('events')
      .select('type')
      .where('type', 'like', 'provider.%')
      .where(sql<boolean>`(data->>'providerId')::bigint = ${id}`)
      .orderBy('seq')
      .execute();
    expect(events.map((e) => e.type)).toEqual([
      'provider.created',
      'provider.updated',
      'provider.archived',
      'provider.updated',
      'provider.restored',
      'provider.updated',
      'provider.archived',
    ]);
  });

  it('ETags change with every write', async () => {
    const created = await write('POST', '/providers', { name: 'Cache Check' });
    const id = created.body.id as number;
    const listTag = (await call(api, 'GET', '/providers')).headers.get('etag') as string;
    const detailTag = (await call(api, 'GET', `/providers/${id}`)).headers.get('etag') as string;
    expect((await call(api, 'GET', `/providers/${id}`, { headers: { 'if-none-match': detailTag } })).status).toBe(304);
    await write('PATCH', `/providers/${id}`, { name: 'Cache Checked' });
    const detail = await call(api, 'GET', `/providers/${id}`, { headers: { 'if-none-match': detailTag } });
    expect(detail.status).toBe(200);
    expect(detail.body.name).toBe('Cache Checked');
    expect((await call(api, 'GET', '/providers', { headers: { 'if-none-match': listTag } })).status).toBe(200);
  });

  it('Idempotency-Key: 20 concurrent retries make one provider; another body or route → 409; per credential', async () => {
    const key = `create-${randomBytes(8).toString('hex')}`;
    const body = { name: `Idempotent ${key}`, description: 'once' };
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => write('POST', '/providers', body, { 'idempotency-key': key })),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(201));
    const first = replies[0]?.body;
    for (const reply of replies) expect(reply.body).toEqual(first);
    const rows = await api.db.db.selectFrom('providers').select('id').where('name', '=', body.name).execute();
    expect(rows.map((r) => r.id)).toEqual([first.id]);
    // Later, the same key and body (keys in another order): the first answer again.
    const later = await write(
      'POST',
      '/providers',
      { description: 'once', name: body.name },
      { 'idempotency-key': key },
    );
    expect(later.status).toBe(201);
    expect(later.body).toEqual(first);

    expectError(
      await write('POST', '/providers', { ...body, description: 'twice' }, { 'idempotency-key': key }),
      409,
      'IDEMPOTENCY_CONFLICT',
    );
    // Keys are per credential: the same key under ADMIN_KEY or another writer key is theirs alone.
    const admin = await call(api, 'POST', `/providers/${first.id}/performance`, {
      token: ADMIN_KEY,
      body: { signals: { total: 1, winning: 1, avgReturnPct: 1, lastSignalAt: null } },
      headers: { 'idempotency-key': key },
    });
    expect(admin.status).toBe(200);
    const otherWriter = await createKey(['providers:write']);
    const own = await call(api, 'POST', '/providers', {
      token: otherWriter,
      body,
      headers: { 'idempotency-key': key },
    });
    expect(own.status).toBe(201);
    expect(own.body.id).not.toBe(first.id);
    const routeKey = `route-${key}`;
    expect(
      (
        await call(api, 'POST', '/providers', {
          token: ADMIN_KEY,
          body: { name: 'R' },
          headers: { 'idempotency-key': routeKey },
        })
      ).status,
    ).toBe(201);
    expectError(
      await call(api, 'POST', `/providers/${first.id}/performance`, {
        token: ADMIN_KEY,
        body: { name: 'R' },
        headers: { 'idempotency-key': routeKey },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await call(api, 'POST', `/providers/${first.id}/performance`, {
        token: ADMIN_KEY,
        body: {},
        headers: { 'idempotency-key': routeKey },
      }),
      409,
      'IDEMPOTENCY_CONFLICT',
    );

    for (const bad of ['', 'k'.repeat(256), 'caf\u00e9', 'tab\tkey']) {
      const reply = await write('POST', '/providers', { name: 'Bad key' }, { 'idempotency-key': bad });
      const error = expectError(reply, 400, 'VALIDATION_ERROR');
      expect(error.issues?.[0]?.path).toEqual(['headers', 'Idempotency-Key']);
    }
    expect(
      (await write('POST', '/providers', { name: 'Max key' }, { 'idempotency-key': '~'.repeat(255) })).status,
    ).toBe(201);
  });
});
