import type { Chain, User } from '@signal/core';
import { type Kysely, sql } from 'kysely';
import { runCompiled } from './compiled-query.js';
import type { Database } from './schema.js';
import { followingCountColumn, toUser } from './user.queries.js';

/**
 * Whether a nonce has already signed someone in (and has not expired since). Only read when a
 * signature fails, so that a used nonce answers INVALID_NONCE before INVALID_SIGNATURE, as the
 * contract orders the checks; a sign-in that succeeds never reads it.
 */
export async function isNonceUsed(db: Kysely<Database>, nonce: string): Promise<boolean> {
  const rows = await runCompiled(db, 'isNonceUsed', [nonce], (value) =>
    db.selectFrom('used_nonces').select('nonce').where('nonce', '=', value),
  );
  return rows.length > 0;
}

export interface LoginResult {
  user: User;
  isNewUser: boolean;
}

/**
 * Records the nonce as used and logs the wallet in, in one statement: the insert into
 * used_nonces takes the nonce's primary key, so of any number of concurrent calls with one
 * nonce (on one server or many) exactly one inserts, the others wait for it and insert nothing.
 * The user is created or stamped from the inserted row, so a nonce is never used without a
 * login or the reverse. Returns null when the nonce was already used.
 * The nonce's authenticity, wallet binding and expiry are the caller's (core's nonce codec).
 */
export async function recordNonceUseAndLogin(
  db: Kysely<Database>,
  input: { nonce: string; wallet: string; chain: Chain; expiresAt: Date; now: Date },
): Promise<LoginResult | null> {
  const values = [input.nonce, input.wallet, input.chain, input.expiresAt, input.now] as const;
  const [row] = await runCompiled(db, 'recordNonceUseAndLogin', values, (nonce, wallet, chain, expiresAt, at) => {
    const now = sql<Date>`${at}::timestamptz`;
    return db
      .with('consumed', (qb) =>
        qb
          .insertInto('used_nonces')
          .values({ nonce, wallet, expires_at: expiresAt, used_at: at })
          .onConflict((oc) => oc.column('nonce').doNothing())
          .returning('wallet'),
      )
      .insertInto('users')
      .columns(['wallet', 'chain', 'created_at', 'last_login_at'])
      .expression((eb) =>
        eb
          .selectFrom('consumed')
          .select([
            'consumed.wallet',
            sql<Chain>`${chain}::text`.as('chain'),
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
      ]);
  });
  if (!row) return null;
  return { user: toUser(row), isNewUser: row.inserted };
}
