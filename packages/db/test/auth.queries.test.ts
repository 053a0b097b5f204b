import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { consumeNonceAndLogin, findNonce, findUserById, issueNonce, migrateToLatest } from '../src/index.js';
import { BACKENDS, type TestDatabase } from '../src/testing.js';
import { freshNonce, useTestDatabase } from './support.js';

const wallet = '0x52908400098527886E0F7030069857D2E4169EE7';

describe.each(BACKENDS)('auth queries on %s', (backend) => {
  const db = useTestDatabase(backend);
  let t: TestDatabase;
  beforeAll(() => {
    t = db();
  });

  it('migrates from empty, and a second run applies nothing', async () => {
    expect(await migrateToLatest(t.db)).toEqual([]);
    const tables = await sql<{ table_name: string }>`
      select table_name from information_schema.tables where table_schema = 'public' order by table_name`.execute(t.db);
    expect(tables.rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining(['auth_nonces', 'catalogue_counters', 'follows', 'provider_stats', 'providers', 'users']),
    );
  });

  it('issues a nonce and reads it back unused', async () => {
    const nonce = freshNonce();
    const now = new Date();
    await issueNonce(t.db, { nonce, wallet, issuedAt: now, expiresAt: new Date(now.getTime() + 300_000) });
    const found = await findNonce(t.db, nonce);
    expect(found?.wallet).toBe(wallet);
    expect(found?.usedAt).toBeNull();
    expect(found?.expiresAt.getTime()).toBe(now.getTime() + 300_000);
    expect(await findNonce(t.db, 'missing')).toBeUndefined();
  });

  it('consumes a nonce once: creates the user, then a second consume gets nothing', async () => {
    const nonce = freshNonce();
    const now = new Date();
    const w = `0x${'1'.repeat(40)}`;
    await issueNonce(t.db, { nonce, wallet: w, issuedAt: now, expiresAt: new Date(now.getTime() + 60_000) });
    const first = await consumeNonceAndLogin(t.db, { nonce, wallet: w, chain: 'evm', now });
    expect(first?.isNewUser).toBe(true);
    expect(first?.user).toMatchObject({ wallet: w, chain: 'evm', followingCount: 0 });
    expect((await findNonce(t.db, nonce))?.usedAt).not.toBeNull();
    expect(await consumeNonceAndLogin(t.db, { nonce, wallet: w, chain: 'evm', now })).toBeNull();
    const user = await findUserById(t.db, first!.user.id);
    expect(user).toEqual(first!.user);
  });

  it('a second login of the same wallet updates lastLoginAt and keeps the user', async () => {
    const w = `0x${'2'.repeat(40)}`;
    const t0 = new Date('2026-01-01T00:00:00Z');
    const t1 = new Date('2026-01-02T00:00:00Z');
    const n1 = freshNonce();
    const n2 = freshNonce();
    await issueNonce(t.db, { nonce: n1, wallet: w, issuedAt: t0, expiresAt: new Date(t0.getTime() + 60_000) });
    await issueNonce(t.db, { nonce: n2, wallet: w, issuedAt: t1, expiresAt: new Date(t1.getTime() + 60_000) });
    const a = await consumeNonceAndLogin(t.db, { nonce: n1, wallet: w, chain: 'evm', now: t0 });
    const b = await consumeNonceAndLogin(t.db, { nonce: n2, wallet: w, chain: 'evm', now: t1 });
    expect(a?.isNewUser).toBe(true);
    expect(b?.isNewUser).toBe(false);
    expect(b?.user.id).toBe(a?.user.id);
    expect(b?.user.createdAt).toBe(t0.toISOString());
    expect(b?.user.lastLoginAt).toBe(t1.toISOString());
  });

  it('refuses an expired nonce and a nonce of another wallet', async () => {
    const now = new Date();
    const expired = freshNonce();
    const foreign = freshNonce();
    const w = `0x${'3'.repeat(40)}`;
    await issueNonce(t.db, {
      nonce: expired,
      wallet: w,
      issuedAt: new Date(now.getTime() - 120_000),
      expiresAt: new Date(now.getTime() - 1),
    });
    await issueNonce(t.db, {
      nonce: foreign,
      wallet: `0x${'4'.repeat(40)}`,
      issuedAt: now,
      expiresAt: new Date(now.getTime() + 60_000),
    });
    expect(await consumeNonceAndLogin(t.db, { nonce: expired, wallet: w, chain: 'evm', now })).toBeNull();
    expect(await consumeNonceAndLogin(t.db, { nonce: foreign, wallet: w, chain: 'evm', now })).toBeNull();
    // Nothing was half-written: no user for the wallet, the foreign nonce still unused.
    const users = await t.db.selectFrom('users').select('id').where('wallet', '=', w).execute();
    expect(users).toEqual([]);
    expect((await findNonce(t.db, foreign))?.usedAt).toBeNull();
  });

  it('100 concurrent consumptions of one nonce: exactly one wins, one user exists', async () => {
    const nonce = freshNonce();
    const w = `0x${'5'.repeat(40)}`;
    const now = new Date();
    await issueNonce(t.db, { nonce, wallet: w, issuedAt: now, expiresAt: new Date(now.getTime() + 60_000) });
    const results = await Promise.all(
      Array.from({ length: 100 }, () => consumeNonceAndLogin(t.db, { nonce, wallet: w, chain: 'evm', now })),
    );
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    const users = await t.db.selectFrom('users').select('id').where('wallet', '=', w).execute();
    expect(users).toHaveLength(1);
  });

  it('creates one user per wallet when many nonces of one new wallet are consumed at once', async () => {
    const w = `0x${'6'.repeat(40)}`;
    const now = new Date();
    const nonces = Array.from({ length: 20 }, freshNonce);
    for (const nonce of nonces) {
      await issueNonce(t.db, { nonce, wallet: w, issuedAt: now, expiresAt: new Date(now.getTime() + 60_000) });
    }
    const results = await Promise.all(
      nonces.map((nonce) => consumeNonceAndLogin(t.db, { nonce, wallet: w, chain: 'evm', now })),
    );
    expect(results.every((r) => r !== null)).toBe(true);
    expect(results.filter((r) => r?.isNewUser)).toHaveLength(1);
    expect(new Set(results.map((r) => r?.user.id)).size).toBe(1);
  });
});
