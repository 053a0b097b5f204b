import { randomUUID } from 'node:crypto';
import { createScratchDatabase, type ScratchDatabase } from '@signal/test-support';
import { describeBackends } from '@signal/test-support/vitest';
import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  createDatabase,
  type DatabaseHandle,
  findUserById,
  linkWallet,
  migrateToLatest,
  recordNonceUseAndLogin,
} from '../src/index.js';
import { migrations } from '../src/migrations/index.js';
import { freshNonce } from './support.js';

const evm = (digit: string) => `0x${digit.repeat(40)}`;

/**
 * Migration 0011 on a database that already has users: opened at the schema before it (every
 * migration numbered below 0011), given users and sessions as the previous release writes them,
 * then migrated.
 */
describeBackends('wallets per user on %s', (backend) => {
  let handle: DatabaseHandle;
  let scratch: ScratchDatabase | undefined;
  beforeAll(async () => {
    scratch = backend === 'postgres' ? await createScratchDatabase() : undefined;
    handle = createDatabase(scratch ? { url: scratch.url } : {});
  });
  afterAll(async () => {
    await handle.close();
    await scratch?.drop();
  });

  const login = (wallet: string, now = new Date(), chain: 'evm' | 'solana' = 'evm') =>
    recordNonceUseAndLogin(handle.db, {
      nonce: freshNonce(),
      wallet,
      chain,
      expiresAt: new Date(now.getTime() + 60_000),
      now,
      session: { id: randomUUID(), expiresAt: new Date(now.getTime() + 86_400_000), userAgent: null, ip: null },
    });
  const link = (userId: number, wallet: string, now = new Date()) =>
    linkWallet(handle.db, {
      userId,
      wallet,
      chain: 'evm',
      nonce: freshNonce(),
      expiresAt: new Date(now.getTime() + 60_000),
      now,
    });
  // What a server of the previous release runs to sign a wallet in (0008's statement, reduced).
  const previousReleaseLogin = (wallet: string) =>
    sql`
    insert into users (wallet, chain, created_at, last_login_at) values (${wallet}, 'evm', now(), now())
    on conflict (wallet) do update set last_login_at = excluded.last_login_at returning id`.execute(handle.db);

  it('makes each existing user\u2019s wallet its first, primary wallet, and keeps its sessions', async () => {
    const before = new Migrator({
      db: handle.db,
      provider: {
        getMigrations: async () => Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0011')),
      },
      allowUnorderedMigrations: true,
    });
    expect((await before.migrateToLatest()).error).toBeUndefined();
    const created = new Date('2026-01-02T03:04:05.678Z');
    const lastLogin = new Date('2026-02-03T04:05:06.789Z');
    const users = await handle.db
      .insertInto('users')
      .values(
        [1, 2, 3].map((n) => ({
          wallet: evm(String(n)),
          chain: 'evm' as const,
          created_at: created,
          last_login_at: lastLogin,
        })),
      )
      .returning(['id', 'wallet'])
      .execute();
    const sessionId = randomUUID();
    await sql`insert into sessions (id, user_id, created_at, last_used_at, expires_at)
      values (${sessionId}, ${users[0]!.id}, now(), now(), now() + interval '1 day')`.execute(handle.db);

    expect(await migrateToLatest(handle.db)).toContain('0011-user-wallets');

    for (const user of users) {
      const found = await findUserById(handle.db, Number(user.id));
      expect(found).toMatchObject({ wallet: user.wallet, chain: 'evm', createdAt: created.toISOString() });
      expect(found?.wallets).toEqual([
        {
          wallet: user.wallet,
          chain: 'evm',
          linkedAt: created.toISOString(),
          primary: true,
          lastLoginAt: lastLogin.toISOString(),
        },
      ]);
    }
    const [session] = await handle.db.selectFrom('sessions').select(['id', 'wallet']).execute();
    expect(session).toEqual({ id: sessionId, wallet: null });
    // The same wallet signs the same user in afterwards.
    const again = await login(evm('1'));
    expect(again).toMatchObject({ isNewUser: false, user: { id: Number(users[0]!.id) } });
    // Two migration runs from empty: PGlite on a busy machine may need longer than the default.
  }, 120_000);

  it('a user the previous release creates during the deploy gets its wallet row', async () => {
    const { rows } = await previousReleaseLogin(evm('4'));
    const user = await findUserById(handle.db, Number((rows[0] as { id: string }).id));
    expect(user?.wallets.map((w) => [w.wallet, w.primary])).toEqual([[evm('4'), true]]);
  });

  it('a linked wallet can never become a second user, whichever release signs it in', async () => {
    const owner = (await login(evm('5')))!.user;
    expect(await link(owner.id, evm('6'))).toMatchObject({ status: 'linked' });
    await expect(previousReleaseLogin(evm('6'))).rejects.toMatchObject({ code: '23505' });
    const signedIn = await login(evm('6'));
    expect(signedIn).toMatchObject({ isNewUser: false, user: { id: owner.id, wallet: evm('5') } });
    expect(signedIn?.user.wallets.map((w) => [w.wallet, w.primary, w.lastLoginAt !== null])).toEqual([
      [evm('5'), true, true],
      [evm('6'), false, true],
    ]);
  });

  it.runIf(backend === 'postgres')(
    'a link racing a first sign-in of the same wallet: one user owns it, and the sign-in reaches that user',
    async () => {
      for (let round = 0; round < 15; round++) {
        const wallet = `0x${round.toString(16).padStart(2, '0')}${'a'.repeat(38)}`;
        const linker = (await login(`0x${round.toString(16).padStart(2, '0')}${'b'.repeat(38)}`))!.user;
        const [linked, signedIn] = await Promise.all([link(linker.id, wallet), login(wallet)]);
        const owners = await handle.db
          .selectFrom('user_wallets')
          .select('user_id')
          .where('wallet', '=', wallet)
          .execute();
        expect(owners).toHaveLength(1);
        const ownerId = Number(owners[0]!.user_id);
        expect(signedIn?.user.id).toBe(ownerId);
        expect(linked.status === 'linked').toBe(ownerId === linker.id);
        if (ownerId !== linker.id) expect(linked.status).toBe('linked-elsewhere');
        const users = await handle.db.selectFrom('users').select('id').where('wallet', '=', wallet).execute();
        expect(users.length).toBe(ownerId === linker.id ? 0 : 1);
      }
    },
  );
});
