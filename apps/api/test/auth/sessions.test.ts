/**
 * Sessions and sign-out through the public surface, on PostgreSQL and PGlite, over REST and
 * tRPC: a session per sign-in named by the token, the user's list of live sessions, ending one,
 * the three sign-out scopes, SESSION_REVOKED from the very next request, and the purge.
 */
import { performance } from 'node:perf_hooks';
import { purgeExpiredAuthState } from '@signal/db';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { authStatePurgeCutoffs, ENDED_SESSION_RETENTION_MS } from '../../src/ops/maintenance.js';
import {
  call,
  evmWallet,
  expectError,
  type Reply,
  signIn,
  solanaWallet,
  type TestWallet,
  trpcClient,
  trpcFailure,
  useApi,
  useServerPair,
} from '../harness.js';

const MINUTE = 60_000;
const DAY = 86_400_000;

function expectRevoked(reply: Reply) {
  expectError(reply, 401, 'SESSION_REVOKED');
  expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
}

describe.each(['postgres', 'pglite'] as const)('sessions on %s', (backend) => {
  // TRUST_PROXY=1: the session keeps the address the rate limit sees, here the forwarded one.
  const api = useApi(backend, { env: { TRUST_PROXY: '1' } });

  /** Signs `wallet` in from a "device": its User-Agent and forwarded client address. */
  const signInFrom = (wallet: TestWallet, userAgent: string, ip: string) =>
    signIn(api, wallet, { headers: { 'user-agent': userAgent, 'x-forwarded-for': ip } });
  const sessions = (token: string, query = '') => call(api, 'GET', `/me/sessions${query}`, { token });

  it('each sign-in starts a session the token names; the list shows the live ones, newest first', async () => {
    const wallet = evmWallet();
    const laptop = await signInFrom(wallet, 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0', '203.0.113.7');
    api.advanceClock(1_000);
    const phone = await signInFrom(wallet, 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X)', '198.51.100.23');
    expect(laptop.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(phone.sessionId).not.toBe(laptop.sessionId);
    expect(decodeJwt(laptop.token).sid).toBe(laptop.sessionId);

    const listed = await sessions(phone.token);
    expect(listed.status).toBe(200);
    expect(listed.headers.get('cache-control')).toBe('no-store');
    expect(listed.body).toMatchObject({ page: 1, limit: 20, total: 2, totalPages: 1, nextCursor: null });
    expect(listed.body.items).toEqual([
      {
        id: phone.sessionId,
        createdAt: expect.any(String),
        lastUsedAt: expect.any(String),
        expiresAt: phone.expiresAt,
        userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X)',
        ip: '198.51.100.23',
        current: true,
      },
      {
        id: laptop.sessionId,
        createdAt: expect.any(String),
        lastUsedAt: expect.any(String),
        expiresAt: laptop.expiresAt,
        userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0',
        ip: '203.0.113.7',
        current: false,
      },
    ]);
    // From the laptop, the laptop's session is the current one.
    expect((await sessions(laptop.token)).body.items.map((s: { current: boolean }) => s.current)).toEqual([
      false,
      true,
    ]);
    // Another wallet's sessions are its own.
    const stranger = await signIn(api, solanaWallet());
    expect((await sessions(stranger.token)).body.items.map((s: { id: string }) => s.id)).toEqual([stranger.sessionId]);
  });

  it('keeps the first 256 characters of a User-Agent, and null without one', async () => {
    const wallet = evmWallet();
    const long = await signInFrom(wallet, `Agent/${'x'.repeat(600)}`, '192.0.2.1');
    const none = await signIn(api, wallet, { headers: { 'user-agent': '' } });
    const items = (await sessions(none.token)).body.items as { id: string; userAgent: string | null }[];
    expect(items.find((s) => s.id === long.sessionId)?.userAgent).toBe(`Agent/${'x'.repeat(250)}`);
    expect(items.find((s) => s.id === none.sessionId)?.userAgent).toBeNull();
  });

  it('writes lastUsedAt at most once a minute', async () => {
    const session = await signIn(api, evmWallet());
    const lastUsed = async () => (await sessions(session.token)).body.items[0].lastUsedAt as string;
    const started = await lastUsed();
    api.advanceClock(30_000);
    await call(api, 'GET', '/me', { token: session.token });
    expect(await lastUsed()).toBe(started);
    api.advanceClock(31_000);
    await call(api, 'GET', '/me', { token: session.token });
    const moved = await lastUsed();
    expect(Date.parse(moved) - Date.parse(started)).toBeGreaterThanOrEqual(MINUTE);
    api.advanceClock(10_000);
    expect(await lastUsed()).toBe(moved);
  });

  it('DELETE /me/sessions/{id} ends that session at once, idempotently; its token gets SESSION_REVOKED', async () => {
    const wallet = solanaWallet();
    const kept = await signIn(api, wallet);
    const ended = await signIn(api, wallet);
    expect((await call(api, 'GET', '/me', { token: ended.token })).status).toBe(200);

    const revoke = await call(api, 'DELETE', `/me/sessions/${ended.sessionId}`, { token: kept.token });
    expect(revoke.status).toBe(200);
    expect(revoke.body).toEqual({ id: ended.sessionId, revoked: true });
    const again = await call(api, 'DELETE', `/me/sessions/${ended.sessionId}`, { token: kept.token });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(revoke.body);

    // Every authenticated route refuses the ended session's token; the other session goes on.
    expectRevoked(await call(api, 'GET', '/me', { token: ended.token }));
    expectRevoked(await call(api, 'GET', '/me/following', { token: ended.token }));
    expectRevoked(await call(api, 'GET', '/me/sessions', { token: ended.token }));
    expectRevoked(await call(api, 'POST', '/providers/1/follow', { token: ended.token }));
    expectRevoked(await call(api, 'POST', '/auth/logout', { token: ended.token }));
    expect((await call(api, 'GET', '/me', { token: kept.token })).status).toBe(200);
    expect((await sessions(kept.token)).body.items.map((s: { id: string }) => s.id)).toEqual([kept.sessionId]);
    // Public reads need no token, so they do not check one (the answer is still not cached).
    const publicRead = await call(api, 'GET', '/providers?limit=1', { token: ended.token });
    expect(publicRead.status).toBe(200);
    expect(publicRead.headers.get('cache-control')).toBe('no-store');
  });

  it("another user's session or an unknown id → 404 SESSION_NOT_FOUND, and nothing ends", async () => {
    const mine = await signIn(api, evmWallet());
    const theirs = await signIn(api, evmWallet());
    expectError(
      await call(api, 'DELETE', `/me/sessions/${theirs.sessionId}`, { token: mine.token }),
      404,
      'SESSION_NOT_FOUND',
    );
    expectError(
      await call(api, 'DELETE', '/me/sessions/00000000-0000-4000-8000-000000000000', { token: mine.token }),
      404,
      'SESSION_NOT_FOUND',
    );
    expectError(
      await call(api, 'DELETE', '/me/sessions/not-a-session', { token: mine.token }),
      404,
      'SESSION_NOT_FOUND',
    );
    expect((await call(api, 'GET', '/me', { token: theirs.token })).status).toBe(200);
    const tooLong = await call(api, 'DELETE', `/me/sessions/${'a'.repeat(65)}`, { token: mine.token });
    expect(expectError(tooLong, 400, 'VALIDATION_ERROR').issues?.[0]?.path).toEqual(['id']);
    expectError(await call(api, 'DELETE', `/me/sessions/${mine.sessionId}`), 401, 'UNAUTHORIZED');
  });

  it('POST /auth/logout: no body ends the current session; others and all count what they end', async () => {
    const wallet = evmWallet();
    const [a, b, c, d] = [
      await signIn(api, wallet),
      await signIn(api, wallet),
      await signIn(api, wallet),
      await signIn(api, wallet),
    ];
    // The current one, with no body at all.
    const current = await call(api, 'POST', '/auth/logout', { token: a.token });
    expect(current.status).toBe(200);
    expect(current.body).toEqual({ revoked: 1 });
    expectRevoked(await call(api, 'GET', '/me', { token: a.token }));
    // Everywhere else: b, c and d are live; c and d end, b goes on.
    const others = await call(api, 'POST', '/auth/logout', { token: b.token, body: { scope: 'others' } });
    expect(others.body).toEqual({ revoked: 2 });
    expectRevoked(await call(api, 'GET', '/me', { token: c.token }));
    expectRevoked(await call(api, 'GET', '/me', { token: d.token }));
    expect((await call(api, 'GET', '/me', { token: b.token })).status).toBe(200);
    // Nothing else to end: 0, and this session still works.
    expect((await call(api, 'POST', '/auth/logout', { token: b.token, body: { scope: 'others' } })).body).toEqual({
      revoked: 0,
    });
    // An empty JSON body is no body.
    const e = await signIn(api, wallet);
    const all = await call(api, 'POST', '/auth/logout', {
      token: e.token,
      rawBody: '',
      headers: { 'content-type': 'application/json' },
    });
    expect(all.body).toEqual({ revoked: 1 });
    // All: b (still live), f and g.
    const f = await signIn(api, wallet);
    const g = await signIn(api, wallet);
    expect((await call(api, 'POST', '/auth/logout', { token: g.token, body: { scope: 'all' } })).body).toEqual({
      revoked: 3,
    });
    for (const token of [b.token, f.token, g.token]) expectRevoked(await call(api, 'GET', '/me', { token }));
  });

  it('a bad scope → 400 VALIDATION_ERROR naming it, and nothing ends', async () => {
    const session = await signIn(api, evmWallet());
    const reply = await call(api, 'POST', '/auth/logout', { token: session.token, body: { scope: 'everyone' } });
    expect(expectError(reply, 400, 'VALIDATION_ERROR').issues?.[0]?.path).toEqual(['scope']);
    expect((await call(api, 'GET', '/me', { token: session.token })).status).toBe(200);
  });

  it('pages by number and by cursor, newest first, each session once', async () => {
    const wallet = solanaWallet();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.unshift((await signIn(api, wallet)).sessionId);
    const token = (await signIn(api, wallet)).token;
    const all = (await sessions(token, '?limit=100')).body.items.map((s: { id: string }) => s.id);
    expect(all.slice(1)).toEqual(ids);

    const byPage: string[] = [];
    for (let page = 1; page <= 3; page++) {
      byPage.push(...(await sessions(token, `?page=${page}&limit=2`)).body.items.map((s: { id: string }) => s.id));
    }
    expect(byPage).toEqual(all);

    const byCursor: string[] = [];
    let reply = await sessions(token, '?limit=2');
    for (;;) {
      byCursor.push(...reply.body.items.map((s: { id: string }) => s.id));
      if (!reply.body.nextCursor) break;
      reply = await sessions(token, `?limit=2&cursor=${encodeURIComponent(reply.body.nextCursor)}`);
      expect(reply.body.page).toBeNull();
    }
    expect(byCursor).toEqual(all);

    // A sessions cursor is bound to its user and listing.
    const cursor = (await sessions(token, '?limit=2')).body.nextCursor as string;
    const stranger = await signIn(api, evmWallet());
    expectError(await sessions(stranger.token, `?cursor=${encodeURIComponent(cursor)}`), 400, 'VALIDATION_ERROR');
    expectError(
      await call(api, 'GET', `/me/following?cursor=${encodeURIComponent(cursor)}`, { token }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(await sessions(token, `?page=1&cursor=${encodeURIComponent(cursor)}`), 400, 'VALIDATION_ERROR');
  });

  it('over tRPC: sessions.list, sessions.revoke, auth.logout, and SESSION_REVOKED as a typed error', async () => {
    const wallet = evmWallet();
    const first = await signIn(api, wallet);
    const second = await signIn(api, wallet);
    const client = trpcClient(api, first.token);
    const page = await client.sessions.list.query({ limit: 10 });
    expect(page.items.map((s) => [s.id, s.current])).toEqual([
      [second.sessionId, false],
      [first.sessionId, true],
    ]);
    expect(await client.sessions.revoke.mutate({ id: second.sessionId })).toEqual({
      id: second.sessionId,
      revoked: true,
    });
    const refused = await trpcFailure(trpcClient(api, second.token).me.get.query());
    expect(refused.data?.code).toBe('SESSION_REVOKED');
    expect(refused.data?.httpStatus).toBe(401);
    const notFound = await trpcFailure(client.sessions.revoke.mutate({ id: 'nope' }));
    expect(notFound.data?.code).toBe('SESSION_NOT_FOUND');
    expect(notFound.data?.httpStatus).toBe(404);
    expect(await client.auth.logout.mutate()).toEqual({ revoked: 1 });
    expect((await trpcFailure(client.me.get.query())).data?.code).toBe('SESSION_REVOKED');
  });

  it('expired sessions leave the list; ended ones are purged after the retention, their tokens still refused', async () => {
    const wallet = evmWallet();
    const old = await signIn(api, wallet);
    const ended = await signIn(api, wallet);
    expect((await call(api, 'DELETE', `/me/sessions/${ended.sessionId}`, { token: old.token })).status).toBe(200);
    api.advanceClock(31 * DAY);
    const fresh = await signIn(api, wallet);
    expect((await sessions(fresh.token)).body.items.map((s: { id: string }) => s.id)).toEqual([fresh.sessionId]);
    expectError(await call(api, 'GET', '/me', { token: old.token }), 401, 'TOKEN_EXPIRED');

    const rows = async (id: string) =>
      Number(
        (
          await api.db.db
            .selectFrom('sessions')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('id', '=', id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const purgeAt = (at: Date) => purgeExpiredAuthState(api.db.db, authStatePurgeCutoffs(at));
    // The retention counts from when a session ended: the signed-out one ended 31 days ago and
    // goes; the expired one ended a day ago and stays until a week has passed.
    await purgeAt(api.now());
    expect(await rows(ended.sessionId)).toBe(0);
    expect(await rows(old.sessionId)).toBe(1);
    expect(await rows(fresh.sessionId)).toBe(1);
    api.advanceClock(ENDED_SESSION_RETENTION_MS);
    await purgeAt(api.now());
    expect(await rows(old.sessionId)).toBe(0);
    expect(await rows(fresh.sessionId)).toBe(1);

    // A live session signed out and then purged: its token is still refused.
    const gone = await signIn(api, wallet);
    await call(api, 'POST', '/auth/logout', { token: gone.token });
    await api.db.db.deleteFrom('sessions').where('id', '=', gone.sessionId).execute();
    expectRevoked(await call(api, 'GET', '/me', { token: gone.token }));
  });
});

describe('sessions across two servers sharing one PostgreSQL database', () => {
  const { a, b } = useServerPair();

  it('a session ended on one server is refused on the other at the next request; the others go on', async () => {
    const wallet = evmWallet();
    const ended = await signIn(a, wallet);
    const kept = await signIn(b, wallet);
    // Both servers have verified (and cached) the token before it is signed out.
    expect((await call(a, 'GET', '/me', { token: ended.token })).status).toBe(200);
    expect((await call(b, 'GET', '/me', { token: ended.token })).status).toBe(200);
    expect((await call(a, 'DELETE', `/me/sessions/${ended.sessionId}`, { token: kept.token })).status).toBe(200);
    expectRevoked(await call(b, 'GET', '/me', { token: ended.token }));
    expectRevoked(await call(a, 'GET', '/me', { token: ended.token }));
    expect((await call(a, 'GET', '/me', { token: kept.token })).status).toBe(200);
    expect((await call(b, 'GET', '/me', { token: kept.token })).status).toBe(200);
    // Signing out everywhere else from b ends a session started on a.
    const third = await signIn(a, wallet);
    expect((await call(b, 'POST', '/auth/logout', { token: kept.token, body: { scope: 'others' } })).body).toEqual({
      revoked: 1,
    });
    expectRevoked(await call(a, 'GET', '/me/following', { token: third.token }));
  });

  it('requests in flight while a session ends: none sent after the revoking answer is accepted', async () => {
    const wallet = solanaWallet();
    const target = await signIn(a, wallet);
    const other = await signIn(b, wallet);
    const provider = 1;
    await a.db.db
      .insertInto('providers')
      .values({ id: provider, name: 'Race', description: null, avatar_url: null, created_at: new Date() })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();

    interface Sent {
      at: number;
      status: number;
      code?: string;
    }
    const sent: Sent[] = [];
    let revokedAt = Number.POSITIVE_INFINITY;
    let stop = false;
    // Six clients hammer both servers with the session's token: reads and follows.
    const loops = Array.from({ length: 6 }, async (_, i) => {
      const server = i % 2 === 0 ? a : b;
      for (let n = 0; !stop && n < 400; n++) {
        const at = performance.now();
        const reply =
          n % 3 === 2
            ? await call(server, n % 2 ? 'POST' : 'DELETE', `/providers/${provider}/follow`, { token: target.token })
            : await call(server, 'GET', '/me', { token: target.token });
        sent.push({ at, status: reply.status, code: reply.body?.code });
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const revoke = await call(b, 'DELETE', `/me/sessions/${target.sessionId}`, { token: other.token });
    revokedAt = performance.now();
    expect(revoke.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    stop = true;
    await Promise.all(loops);

    const before = sent.filter((r) => r.at < revokedAt);
    const after = sent.filter((r) => r.at > revokedAt);
    expect(before.filter((r) => r.status === 200).length).toBeGreaterThan(10);
    expect(after.length).toBeGreaterThan(10);
    expect(after.filter((r) => r.status !== 401 || r.code !== 'SESSION_REVOKED')).toEqual([]);
    // Only 200s and, around the revocation, 401s: nothing failed otherwise.
    expect(sent.filter((r) => r.status !== 200 && r.code !== 'SESSION_REVOKED')).toEqual([]);
    expect((await call(a, 'GET', '/me', { token: other.token })).status).toBe(200);
  });
});
