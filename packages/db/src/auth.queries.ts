import type { Chain, User } from '@signal/core';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';
import { followingCountColumn, toUser } from './user.queries.js';

export interface NonceRecord {
  wallet: string;
  expiresAt: Date;
  usedAt: Date | null;
}

export async function issueNonce(
  db: Kysely<Database>,
  input: { nonce: string; wallet: string; issuedAt: Date; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('auth_nonces')
    .values({ nonce: input.nonce, wallet: input.wallet, issued_at: input.issuedAt, expires_at: input.expiresAt })
    .execute();
}

/** Reads a nonce without consuming it, so a failed signature check can leave it usable. */
export async function findNonce(db: Kysely<Database>, nonce: string): Promise<NonceRecord | undefined> {
  const row = await db
    .selectFrom('auth_nonces')
    .select(['wallet', 'expires_at', 'used_at'])
    .where('nonce', '=', nonce)
    .executeTakeFirst();
  return row && { wallet: row.wallet, expiresAt: row.expires_at, usedAt: row.used_at };
}

export interface LoginResult {
  user: User;
  isNewUser: boolean;
}

/**
 * Consumes the nonce and logs the wallet in, in one statement: the UPDATE only matches an
 * unused, unexpired nonce of this wallet, and row locking lets exactly one of any number of
 * concurrent calls match it (on one server or many). The user is created or stamped in the
 * same statement, so a nonce is never used without a login or the reverse.
 * Returns null when the nonce was not consumable (a concurrent verify won the race).
 */
export async function consumeNonceAndLogin(
  db: Kysely<Database>,
  input: { nonce: string; wallet: string; chain: Chain; now: Date },
): Promise<LoginResult | null> {
  const now = sql<Date>`${input.now}::timestamptz`;
  const row = await db
    .with('consumed', (qb) =>
      qb
        .updateTable('auth_nonces')
        .set({ used_at: input.now })
        .where('nonce', '=', input.nonce)
        .where('wallet', '=', input.wallet)
        .where('used_at', 'is', null)
        .where('expires_at', '>', input.now)
        .returning('wallet'),
    )
    .insertInto('users')
    .columns(['wallet', 'chain', 'created_at', 'last_login_at'])
    .expression((eb) =>
      eb
        .selectFrom('consumed')
        .select([
          'consumed.wallet',
          sql<Chain>`${input.chain}::text`.as('chain'),
          now.as('created_at'),
          now.as('last_login_at'),
        ]),
    )
    .onConflict((oc) => oc.column('wallet').doUpdateSet({ last_login_at: (eb) => eb.ref('excluded.last_login_at') }))
    .returning([
      'id',
      'wallet',
      'chain',
      'created_at',
      'last_login_at',
      // xmax is 0 on a freshly inserted row version and set on one the upsert updated.
      sql<boolean>`xmax = 0`.as('inserted'),
      followingCountColumn,
    ])
    .executeTakeFirst();
  if (!row) return null;
  return { user: toUser(row), isNewUser: row.inserted };
}
