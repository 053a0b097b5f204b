import { randomUUID } from 'node:crypto';
import { describeBackends } from '@signal/test-support/vitest';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { findUserById, isNonceUsed, migrateToLatest, recordNonceUseAndLogin } from '../src/index.js';
import { freshNonce, useTestDatabase } from './support.js';

describeBackends('auth queries on %s', (backend) => {
  const t = useTestDatabase(backend);

  it('migrates from empty, and a second run applies nothing', async () => {
    expect(await migrateToLatest(t.db)).toEqual([]);
    const tables = await sql<{ table_name: string }>`
      select table_name from information_schema.tables where table_schema = 'public' order by table_name`.execute(t.db);
    expect(tables.rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining(['catalogue_counters', 'follows', 'provider_nav', 'providers', 'used_nonces', 'users']),
    );
  });

  const login = (
    nonce: string,
    wallet: string,
    now: Date,
    expiresAt = new Date(now.getTime() + 60_000),
    sessionId = randomUUID(),
  ) =>
    recordNonceUseAndLogin(t.db, {
      nonce,
      wallet,
      chain: 'evm',
      expiresAt,
      now,
      session: { id: sessionId, expiresAt: new Date(now.getTime() + 86_400_000), userAgent: 'test', ip: '127.0.0.1' },
    });
  const sessionsOf = (userId: number) =>
    t.db.selectFrom('sessions').selectAll().where('user_id', '=', userId).execute();

  it('records a nonce once: creates the user, then a second use gets nothing', async () => {
    const nonce = freshNonce();
    const now = new Date();
    const w = `0x${'1'.repeat(40)}`;
    expect(await isNonceUsed(t.db, nonce)).toBe(false);
    const first = await login(nonce, w, now);
    expect(first?.isNewUser).toBe(true);
    expect(first?.user).toMatchObject({ wallet: w, chain: 'evm', followingCount: 0 });
    expect(await isNonceUsed(t.db, nonce)).toBe(true);
    const [row] = await t.db.selectFrom('used_nonces').selectAll().where('nonce', '=', nonce).execute();
    expect(row).toEqual({ nonce, wallet: w, expires_at: new Date(now.getTime() + 60_000), used_at: now });
    expect(await login(nonce, w, now)).toBeNull();
    const user = await findUserById(t.db, first!.user.id);
    expect(user).toEqual(first!.user);
  });

  it('starts the session in the same statement: one per successful login, none for a used nonce', async () => {
    const w = `0x${'4'.repeat(40)}`;
    const now = new Date('2026-03-01T00:00:00Z');
    const nonce = freshNonce();
    const sessionId = randomUUID();
    const first = await login(nonce, w, now, undefined, sessionId);
    const [session] = await sessionsOf(first!.user.id);
    expect(session).toMatchObject({
      id: sessionId,
      created_at: now,
      last_used_at: now,
      expires_at: new Date(now.getTime() + 86_400_000),
      revoked_at: null,
      user_agent: 'test',
      ip: '127.0.0.1',
    });
    expect(await login(nonce, w, now)).toBeNull();
    expect(await sessionsOf(first!.user.id)).toHaveLength(1);
  });

  it('a second login of the same wallet updates lastLoginAt and keeps the user', async () => {
    const w = `0x${'2'.repeat(40)}`;
    const t0 = new Date('2026-01-01T00:00:00Z');
    const t1 = new Date('2026-01-02T00:00:00Z');
    const a = await login(freshNonce(), w, t0);
    const b = await login(freshNonce(), w, t1);
    expect(a?.isNewUser).toBe(true);
    expect(b?.isNewUser).toBe(false);
    expect(b?.user.id).toBe(a?.user.id);
    expect(b?.user.createdAt).toBe(t0.toISOString());
    expect(b?.user.lastLoginAt).toBe(t1.toISOString());
  });

  it('a used nonce changes nothing: no second login stamp', async () => {
    const w = `0x${'3'.repeat(40)}`;
    const nonce = freshNonce();
    const t0 = new Date('2026-02-01T00:00:00Z');
    const first = await login(nonce, w, t0);
    expect(await login(nonce, w, new Date(t0.getTime() + 1_000))).toBeNull();
    expect((await findUserById(t.db, first!.user.id))?.lastLoginAt).toBe(t0.toISOString());
  });

  it('100 concurrent uses of one nonce: exactly one wins, one user exists', async () => {
    const nonce = freshNonce();
    const w = `0x${'5'.repeat(40)}`;
    const now = new Date();
    const results = await Promise.all(Array.from({ length: 100 }, () => login(nonce, w, now)));
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    const users = await t.db.selectFrom('users').select('id').where('wallet', '=', w).execute();
    expect(users).toHaveLength(1);
    expect(await sessionsOf(users[0]!.id)).toHaveLength(1);
  });

  it('creates one user per wallet when many nonces of one new wallet are used at once', async () => {
    const w = `0x${'6'.repeat(40)}`;
    const now = new Date();
    const results = await Promise.all(Array.from({ length: 20 }, () => login(freshNonce(), w, now)));
    expect(results.every((r) => r !== null)).toBe(true);
    expect(results.filter((r) => r?.isNewUser)).toHaveLength(1);
    expect(new Set(results.map((r) => r?.user.id)).size).toBe(1);
  });
});
