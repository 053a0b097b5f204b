import type { Chain, User } from '@signal/core';
import { type Kysely, sql } from 'kysely';
import { runCompiled } from './compiled-query.js';
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

export type CappedNonceOutcome = { issued: true } | { issued: false; live: number; oldestExpiresAt: Date };

/**
 * Issues a nonce unless the wallet already holds `maxUnused` live (unused, unexpired) ones, so
 * nobody can fill the table with nonces of one wallet. One call of the database function
 * `issue_nonce_within_cap` (migration 0004): a transaction-scoped advisory lock on the wallet
 * serialises issuers of that wallet across every server on the database, and the count and
 * insert run after it, each with a new snapshot, so the count sees every nonce committed before
 * the lock was granted: the cap is exact, not "roughly 10 plus however many raced".
 */
export async function issueNonceWithinCap(
  db: Kysely<Database>,
  input: { nonce: string; wallet: string; issuedAt: Date; expiresAt: Date; maxUnused: number },
): Promise<CappedNonceOutcome> {
  const [row] = await runCompiled(
    db,
    'issueNonceWithinCap',
    [input.nonce, input.wallet, input.issuedAt, input.expiresAt, input.maxUnused],
    (nonce, wallet, issuedAt, expiresAt, maxUnused) => {
      const call = sql<{ issued: boolean; live: number; oldest_expires_at: Date | null }>`
        select issued, live, oldest_expires_at
        from issue_nonce_within_cap(${nonce}::text, ${wallet}::text, ${issuedAt}::timestamptz,
                                    ${expiresAt}::timestamptz, ${maxUnused}::integer)
      `;
      return { compile: () => call.compile(db) };
    },
  );
  if (!row) throw new Error('issue_nonce_within_cap returned no row');
  if (row.issued) return { issued: true };
  return { issued: false, live: row.live, oldestExpiresAt: row.oldest_expires_at ?? input.expiresAt };
}

export async function findNonce(db: Kysely<Database>, nonce: string): Promise<NonceRecord | undefined> {
  const [row] = await runCompiled(db, 'findNonce', [nonce], (value) =>
    db.selectFrom('auth_nonces').select(['wallet', 'expires_at', 'used_at']).where('nonce', '=', value),
  );
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
  const values = [input.nonce, input.wallet, input.chain, input.now] as const;
  const [row] = await runCompiled(db, 'consumeNonceAndLogin', values, (nonce, wallet, chain, at) => {
    const now = sql<Date>`${at}::timestamptz`;
    return db
      .with('consumed', (qb) =>
        qb
          .updateTable('auth_nonces')
          .set({ used_at: at })
          .where('nonce', '=', nonce)
          .where('wallet', '=', wallet)
          .where('used_at', 'is', null)
          .where('expires_at', '>', at)
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
