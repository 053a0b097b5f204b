/**
 * Service keys (CONTRACT.md, "Service keys"): ADMIN_KEY and scoped keys over REST and tRPC,
 * what each credential opens and what it is refused (401 / 403 exactly as the contract says),
 * revocation and expiry from the next request on a second server, the per-key rate limit,
 * lastUsedAt, and the secret in no log line and no list answer.
 */
import { createHash, randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  evmWallet,
  expectError,
  signIn,
  type TestApi,
  trpcClient,
  trpcFailure,
  useApi,
  useServerPair,
} from '../harness.js';
import { logCapture } from '../log-capture.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
const RATE_LIMIT = 60;
const KEY_FORMAT = /^sgk_[A-Za-z0-9_-]{43}$/;

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function createKey(api: TestApi, by: string, body: Record<string, unknown>) {
  const reply = await call(api, 'POST', '/admin/keys', { token: by, body });
  if (reply.status !== 201) throw new Error(`create key: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body as { id: string; key: string; start: string; scopes: string[] };
}

/** A provider made by the operator over HTTP; its id. */
async function createProvider(api: TestApi, by: string): Promise<number> {
  const reply = await call(api, 'POST', '/providers', { token: by, body: { name: 'Fan-out' } });
  if (reply.status !== 201) throw new Error(`create provider: ${reply.status} ${JSON.stringify(reply.body)}`);
  return (reply.body as { id: number }).id;
}

/** A key-shaped secret that was never issued. */
const unknownKey = () => `sgk_${randomBytes(32).toString('base64url')}`;

function expectUnauthorized(reply: { status: number; headers: Headers; body: any }) {
  expectError(reply, 401, 'UNAUTHORIZED');
  expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer/);
}

describe.each(['postgres', 'pglite'] as const)('service keys on %s', (backend) => {
  const log = logCapture();
  const api = useApi(backend, {
    env: { ADMIN_KEY, SEED_PROVIDERS: '3', SERVICE_KEY_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT) },
    logger: log.logger,
  });
  let userToken: string;
  /** Holds every scope, so the admin key itself stays under the per-key limit. */
  let manager: { id: string; key: string };
  let reader: { id: string; key: string };

  beforeAll(async () => {
    userToken = (await signIn(api, evmWallet())).token;
    manager = await createKey(api, ADMIN_KEY, {
      name: 'manager',
      scopes: ['keys:manage', 'providers:write', 'stats:write', 'followers:read', 'events:read', 'webhooks:manage'],
    });
    reader = await createKey(api, manager.key, { name: 'fan-out', scopes: ['followers:read'] });
  });

  it('creates a key: 201, the secret once, in the documented format, stored only as its SHA-256', async () => {
    const reply = await call(api, 'POST', '/admin/keys', {
      token: ADMIN_KEY,
      body: { name: 'pipeline', scopes: ['stats:write', 'stats:write'], expiresAt: null },
    });
    expect(reply.status).toBe(201);
    const { key, ...rest } = reply.body;
    expect(key).toMatch(KEY_FORMAT);
    expect(rest).toEqual({
      id: expect.any(String),
      name: 'pipeline',
      scopes: ['stats:write'],
      createdAt: expect.any(String),
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
      start: key.slice(0, 12),
      createdBy: 'admin',
    });
    const row = await api.db.db
      .selectFrom('service_keys')
      .selectAll()
      .where('id', '=', rest.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(key.slice(12));
    expect(row.secret_hash).toBe(createHash('sha256').update(key).digest('base64url'));
  });

  it('lists keys newest first without any secret, revoked ones with revokedAt', async () => {
    const doomed = await createKey(api, manager.key, { name: 'doomed', scopes: ['events:read'] });
    expect((await call(api, 'DELETE', `/admin/keys/${doomed.id}`, { token: manager.key })).status).toBe(200);
    const list = await call(api, 'GET', '/admin/keys?limit=100', { token: manager.key });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(list.body.items.length);
    expect(list.body.items[0].id).toBe(doomed.id);
    expect(list.body.items[0].revokedAt).toEqual(expect.any(String));
    for (const item of list.body.items) expect(item).not.toHaveProperty('key');
    const text = JSON.stringify(list.body);
    for (const secret of [manager.key, reader.key, doomed.key, ADMIN_KEY]) {
      expect(text).not.toContain(secret.slice(12));
    }
    const second = await call(api, 'GET', '/admin/keys?page=2&limit=1', { token: manager.key });
    expect(second.body.items).toEqual([list.body.items[1]]);
  });

  it('refuses bad bodies: expiresAt in the past, no scopes, an unknown scope, an empty name', async () => {
    const past = new Date(api.now().getTime() - 1000).toISOString();
    for (const body of [
      { name: 'x', scopes: ['followers:read'], expiresAt: past },
      { name: 'x', scopes: [] },
      { name: 'x', scopes: ['root'] },
      { name: '', scopes: ['followers:read'] },
      { name: 'x'.repeat(101), scopes: ['followers:read'] },
    ]) {
      const reply = await call(api, 'POST', '/admin/keys', { token: manager.key, body });
      expectError(reply, 400, 'VALIDATION_ERROR');
    }
  });

  it('a keys:manage key grants only scopes it holds', async () => {
    const narrow = await createKey(api, ADMIN_KEY, { name: 'narrow manager', scopes: ['keys:manage', 'events:read'] });
    const refused = await call(api, 'POST', '/admin/keys', {
      token: narrow.key,
      body: { name: 'wider', scopes: ['events:read', 'followers:read'] },
    });
    expectError(refused, 403, 'FORBIDDEN');
    const granted = await call(api, 'POST', '/admin/keys', {
      token: narrow.key,
      body: { name: 'same', scopes: ['events:read'] },
    });
    expect(granted.status).toBe(201);
  });

  it('keys:manage opens exactly /admin/keys: other keys, user tokens and no credential are refused', async () => {
    for (const [method, path, body] of [
      ['GET', '/admin/keys', undefined],
      ['POST', '/admin/keys', { name: 'x', scopes: ['followers:read'] }],
      ['DELETE', `/admin/keys/${reader.id}`, undefined],
    ] as const) {
      expectError(await call(api, method, path, { token: reader.key, body }), 403, 'FORBIDDEN');
      expectError(await call(api, method, path, { token: userToken, body }), 403, 'FORBIDDEN');
      expectUnauthorized(await call(api, method, path, { body }));
      expectUnauthorized(await call(api, method, path, { token: unknownKey(), body }));
      expectUnauthorized(await call(api, method, path, { token: 'not-a-token', body }));
    }
    // Still there: the refused DELETE did nothing.
    expect((await call(api, 'GET', '/admin/keys?limit=100', { token: ADMIN_KEY })).body.items).toContainEqual(
      expect.objectContaining({ id: reader.id, revokedAt: null }),
    );
  });

  it('revokes idempotently; the key is refused from the next request; an unknown id is 404', async () => {
    const key = await createKey(api, manager.key, { name: 'short-lived', scopes: ['keys:manage'] });
    expect((await call(api, 'GET', '/admin/keys', { token: key.key })).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const revoked = await call(api, 'DELETE', `/admin/keys/${key.id}`, { token: manager.key });
      expect(revoked.status).toBe(200);
      expect(revoked.body).toEqual({ id: key.id, revoked: true });
    }
    expectUnauthorized(await call(api, 'GET', '/admin/keys', { token: key.key }));
    expectError(await call(api, 'DELETE', '/admin/keys/key_nope', { token: manager.key }), 404, 'NOT_FOUND');
  });

  it('an expired key is refused', async () => {
    const expiresAt = new Date(api.now().getTime() + 60_000).toISOString();
    const key = await createKey(api, manager.key, { name: 'expiring', scopes: ['keys:manage'], expiresAt });
    expect((await call(api, 'GET', '/admin/keys', { token: key.key })).status).toBe(200);
    api.advanceClock(61_000);
    expectUnauthorized(await call(api, 'GET', '/admin/keys', { token: key.key }));
  });

  it('a service key (ADMIN_KEY too) is refused on every user route with 403; an unknown key with 401', async () => {
    const userRoutes = [
      ['GET', '/me'],
      ['GET', '/me/following'],
      ['GET', '/me/sessions'],
      ['DELETE', '/me/sessions/some-session'],
      ['POST', '/providers/1/follow'],
      ['DELETE', '/providers/1/follow'],
      ['POST', '/auth/logout'],
    ] as const;
    for (const [method, path] of userRoutes) {
      for (const key of [reader.key, manager.key, ADMIN_KEY]) {
        expectError(await call(api, method, path, { token: key }), 403, 'FORBIDDEN');
      }
      expectUnauthorized(await call(api, method, path, { token: unknownKey() }));
    }
    // The user's own token still works there.
    expect((await call(api, 'GET', '/me', { token: userToken })).status).toBe(200);
  });

  it('public reads answer the same with a valid service key as without, never cached', async () => {
    for (const path of ['/providers', '/providers/1', '/providers/1/stats']) {
      const anonymous = await call(api, 'GET', path);
      const keyed = await call(api, 'GET', path, { token: reader.key });
      expect(keyed.status).toBe(200);
      expect(keyed.body).toEqual(anonymous.body);
      expect(keyed.headers.get('cache-control')).toBe('no-store');
      expect(keyed.headers.get('etag')).toBeNull();
      expectError(await call(api, 'GET', '/providers/999999', { token: reader.key }), 404, 'PROVIDER_NOT_FOUND');
    }
  });

  it('over tRPC: the same credential, the same answers and codes', async () => {
    const admin = trpcClient(api, manager.key);
    const created = await admin.keys.create.mutate({ name: 'over trpc', scopes: ['followers:read'] });
    expect(created.key).toMatch(KEY_FORMAT);
    const page = await admin.keys.list.query({ limit: 100 });
    expect(page.items.map((item) => item.id)).toContain(created.id);
    expect(JSON.stringify(page)).not.toContain(created.key);
    const asReader = await trpcFailure(trpcClient(api, created.key).keys.list.query({}));
    expect(asReader.data?.code).toBe('FORBIDDEN');
    expect(asReader.data?.httpStatus).toBe(403);
    const asUser = await trpcFailure(trpcClient(api, userToken).keys.list.query({}));
    expect(asUser.data?.code).toBe('FORBIDDEN');
    const keyOnUserRoute = await trpcFailure(trpcClient(api, created.key).me.get.query());
    expect(keyOnUserRoute.data?.code).toBe('FORBIDDEN');
    expect(keyOnUserRoute.data?.httpStatus).toBe(403);
    expect(await admin.keys.revoke.mutate({ id: created.id })).toEqual({ id: created.id, revoked: true });
    const revoked = await trpcFailure(trpcClient(api, created.key).keys.list.query({}));
    expect(revoked.data?.code).toBe('UNAUTHORIZED');
    expect(revoked.data?.httpStatus).toBe(401);
    const missing = await trpcFailure(admin.keys.revoke.mutate({ id: 'key_missing' }));
    expect(missing.data?.code).toBe('NOT_FOUND');
  });

  it('limits each key on its own: past SERVICE_KEY_RATE_LIMIT_PER_MINUTE, 429 with Retry-After', async () => {
    const busy = await createKey(api, manager.key, { name: 'busy', scopes: ['keys:manage'] });
    let limited: Awaited<ReturnType<typeof call>> | undefined;
    // The limit counts per minute: a loop that crosses into the next minute starts a fresh
    // count once, so it may take up to twice the limit before the 429.
    for (let i = 0; i <= 2 * RATE_LIMIT + 1 && !limited; i++) {
      const reply = await call(api, 'GET', '/admin/keys?limit=1', { token: busy.key });
      if (reply.status === 429) limited = reply;
      else expect(reply.status).toBe(200);
    }
    expect(limited).toBeDefined();
    expectError(limited as NonNullable<typeof limited>, 429, 'RATE_LIMITED');
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another key is not affected.
    expect((await call(api, 'GET', '/admin/keys?limit=1', { token: manager.key })).status).toBe(200);
  });

  it('the followers page checks its key in its own statement, with every answer of the separate check', async () => {
    // GET /providers/{id}/followers joins the key's row into the page's statement
    // (scopedReadProcedure): the same 401, 403, 404, 400 and 429 as a route that looks it up first.
    const fanOut = await createKey(api, manager.key, { name: 'fan-out 2', scopes: ['followers:read'] });
    const other = await createKey(api, manager.key, { name: 'no followers', scopes: ['stats:write'] });
    const followers = (id: number, token: string, query = '') =>
      call(api, 'GET', `/providers/${id}/followers${query}`, { token });
    const provider = await createProvider(api, manager.key);
    expect((await followers(provider, fanOut.key)).status).toBe(200);
    expectError(await followers(999_999, fanOut.key), 404, 'PROVIDER_NOT_FOUND');
    for (const id of [provider, 999_999]) {
      expectUnauthorized(await followers(id, unknownKey()));
      expectError(await followers(id, other.key), 403, 'FORBIDDEN');
    }
    // A refusal of the input or the cursor comes after the key's own answer.
    expectUnauthorized(await followers(provider, unknownKey(), '?limit=0'));
    expectError(await followers(provider, other.key, '?cursor=forged'), 403, 'FORBIDDEN');
    expectError(await followers(provider, fanOut.key, '?limit=0'), 400, 'VALIDATION_ERROR');
    // Used: its lastUsedAt is gathered (written at the server's stop, checked below for another key).
    const expiresAt = new Date(api.now().getTime() + 60_000).toISOString();
    const expiring = await createKey(api, manager.key, { name: 'fan-out 3', scopes: ['followers:read'], expiresAt });
    expect((await followers(provider, expiring.key)).status).toBe(200);
    api.advanceClock(61_000);
    expectUnauthorized(await followers(provider, expiring.key));
    expect((await call(api, 'DELETE', `/admin/keys/${fanOut.id}`, { token: manager.key })).status).toBe(200);
    expectUnauthorized(await followers(provider, fanOut.key));
    expectUnauthorized(await followers(999_999, fanOut.key));
  });

  it('limits a key on the followers page too (its check in the page statement)', async () => {
    const busy = await createKey(api, manager.key, { name: 'busy reader', scopes: ['followers:read'] });
    const provider = await createProvider(api, manager.key);
    let limited: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i <= 2 * RATE_LIMIT + 1 && !limited; i++) {
      const reply = await call(api, 'GET', `/providers/${provider}/followers?limit=1`, { token: busy.key });
      if (reply.status === 429) limited = reply;
      else expect(reply.status).toBe(200);
    }
    expect(limited).toBeDefined();
    expectError(limited as NonNullable<typeof limited>, 429, 'RATE_LIMITED');
  });

  it('records lastUsedAt without a write per request, and writes it out when the server stops', async () => {
    const used = await createKey(api, manager.key, { name: 'used', scopes: ['keys:manage'] });
    expect((await call(api, 'GET', '/admin/keys?limit=1', { token: used.key })).status).toBe(200);
    const stored = async () =>
      (await api.db.db.selectFrom('service_keys').select('last_used_at').where('id', '=', used.id).executeTakeFirst())
        ?.last_used_at;
    // Not written by the request itself (the batch goes out at most every 30 s).
    expect(await stored()).toBeNull();
    await api.restart();
    expect(await stored()).toBeInstanceOf(Date);
    const listed = await call(api, 'GET', '/admin/keys?limit=100', { token: manager.key });
    const item = listed.body.items.find((k: { id: string }) => k.id === used.id);
    expect(item.lastUsedAt).toEqual(expect.any(String));
  });

  it('no log line carries a key or the admin key, even at trace level with failing requests', async () => {
    // Requests that fail in every way a credential can, then the secrets are looked for.
    await call(api, 'GET', '/admin/keys', { headers: { authorization: `Bearer ${unknownKey()}x` } });
    await call(api, 'GET', '/me', { headers: bearer(reader.key) });
    await call(api, 'POST', '/admin/keys', { headers: bearer(ADMIN_KEY), rawBody: '{bad json' });
    log.logger.info({ req: { headers: { authorization: `Bearer ${manager.key}` } } }, 'a request logged whole');
    log.logger.error({ err: { config: { headers: { authorization: `Bearer ${manager.key}` } } } }, 'an error');
    const text = log.text();
    expect(text).toContain('"request"');
    expect(text).toContain('[redacted]');
    for (const secret of [ADMIN_KEY, manager.key, reader.key]) expect(text).not.toContain(secret);
  });
});

describe('service keys across two servers sharing one PostgreSQL database', () => {
  const { a, b } = useServerPair('postgres', { ADMIN_KEY });

  it('a key revoked on one server is refused by the other at its next request', async () => {
    const key = await createKey(a, ADMIN_KEY, { name: 'shared', scopes: ['keys:manage'] });
    expect((await call(b, 'GET', '/admin/keys', { token: key.key })).status).toBe(200);
    expect((await call(a, 'DELETE', `/admin/keys/${key.id}`, { token: ADMIN_KEY })).status).toBe(200);
    expectUnauthorized(await call(b, 'GET', '/admin/keys', { token: key.key }));
    const trpc = await trpcFailure(trpcClient(b, key.key).keys.list.query({}));
    expect(trpc.data?.code).toBe('UNAUTHORIZED');
  });

  it('a followers:read key revoked on one server is refused on the followers page of the other at its next request', async () => {
    // The page checks the key in its own statement (scopedReadProcedure), not a lookup of its own.
    const key = await createKey(a, ADMIN_KEY, { name: 'fan-out', scopes: ['followers:read'] });
    const provider = await createProvider(a, ADMIN_KEY);
    const path = `/providers/${provider}/followers`;
    expect((await call(b, 'GET', path, { token: key.key })).status).toBe(200);
    expect((await call(a, 'DELETE', `/admin/keys/${key.id}`, { token: ADMIN_KEY })).status).toBe(200);
    expectUnauthorized(await call(b, 'GET', path, { token: key.key }));
    const trpc = await trpcFailure(trpcClient(b, key.key).followers.list.query({ id: provider }));
    expect(trpc.data?.code).toBe('UNAUTHORIZED');
  });

  it('a key past its expiry is refused by a server whose clock has passed it', async () => {
    const expiresAt = new Date(Date.now() + 120_000).toISOString();
    const key = await createKey(a, ADMIN_KEY, { name: 'expiring', scopes: ['keys:manage'], expiresAt });
    expect((await call(b, 'GET', '/admin/keys', { token: key.key })).status).toBe(200);
    b.advanceClock(121_000);
    expectUnauthorized(await call(b, 'GET', '/admin/keys', { token: key.key }));
    expect((await call(a, 'GET', '/admin/keys', { token: key.key })).status).toBe(200);
  });
});
