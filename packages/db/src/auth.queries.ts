import type { Chain, User } from '@signal/core';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { runCompiled } from './compiled-query.js';
import { isUniqueViolation } from './errors.js';
import { eventRow } from './events.queries.js';
import { followingCount } from './follow.queries.js';
import type { Database } from './schema.js';
import { toUser } from './user.queries.js';
import { listWallets } from './wallet.queries.js';

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

/** The session a sign-in starts: its id is the token's `sid`, its expiry the token's `exp`. */
export interface NewSession {
  id: string;
  expiresAt: Date;
  userAgent: string | null;
  ip: string | null;
}

/**
 * The user row a sign-in answers, and whether the sign-in created it. Its following count is
 * added once, by the statement's last select, not in both RETURNING lists: with unnamed
 * statements PostgreSQL plans the whole statement at every sign-in, and each copy of the count's
 * join cost about 0.2 ms of planning (0.45 → 0.24 ms, BENCH.md "Where the per-request gaps went").
 */
const userColumns = (inserted: RawBuilder<boolean>) =>
  ['id', 'wallet', 'chain', 'created_at', 'last_login_at', inserted.as('inserted')] as const;

type LoginInput = { nonce: string; wallet: string; chain: Chain; expiresAt: Date; now: Date; session: NewSession };

/**
 * Records the nonce as used, logs the wallet in and starts its session (see loginStatement).
 * A wallet linked by another user between this statement's start and its insert makes it fail
 * on the wallet's key, with nothing written; run again, it signs that user in. Returns null
 * when the nonce was already used.
 */
export async function recordNonceUseAndLogin(db: Kysely<Database>, input: LoginInput): Promise<LoginResult | null> {
  let row: Awaited<ReturnType<typeof loginStatement>>;
  try {
    row = await loginStatement(db, input);
  } catch (error) {
    if (!isUniqueViolation(error, 'user_wallets_pkey')) throw error;
    row = await loginStatement(db, input);
  }
  if (!row) return null;
  const user = toUser({ ...row, wallets: await listWallets(db, row.id) });
  return { user, isNewUser: row.inserted };
}

/**
 * Records the nonce as used, logs the wallet in and starts its session, in one statement: the
 * insert into used_nonces takes the nonce's primary key, so of any number of concurrent calls
 * with one nonce (on one server or many) exactly one inserts, the others wait for it and insert
 * nothing. The user is created or stamped from the inserted row and the session from the user
 * row, so a nonce is never used without a login and a session, or the reverse. The wallet
 * signs in the user it is linked to (user_wallets), or a new one; the session records it.
 * The nonce's authenticity, wallet binding and expiry are the caller's (core's nonce codec).
 */
async function loginStatement(db: Kysely<Database>, input: LoginInput) {
  const { session } = input;
  const values = [
    input.nonce,
    input.wallet,
    input.chain,
    input.expiresAt,
    input.now,
    session.id,
    session.expiresAt,
    session.userAgent,
    session.ip,
  ] as const;
  const [row] = await runCompiled(
    db,
    'recordNonceUseAndLogin',
    values,
    (nonce, wallet, chain, expiresAt, at, sessionId, sessionExpiresAt, userAgent, ip) => {
      const now = sql<Date>`${at}::timestamptz`;
      return (
        db
          .with('consumed', (qb) =>
            qb
              .insertInto('used_nonces')
              .values({ nonce, wallet, expires_at: expiresAt, used_at: at })
              .onConflict((oc) => oc.column('nonce').doNothing())
              .returning('wallet'),
          )
          // A linked wallet signs its user in: its row is locked and stamped, so an unlink running
          // at the same time either waits for this sign-in (and then ends its session) or goes
          // first (and this finds no row, and signs a new user in).
          .with('known', (qb) =>
            qb
              .updateTable('user_wallets')
              .set({ last_login_at: at })
              .where('wallet', '=', (eb) => eb.selectFrom('consumed').select('consumed.wallet'))
              .returning('user_id'),
          )
          .with('stamped', (qb) =>
            qb
              .updateTable('users')
              .set({ last_login_at: at })
              .where('id', '=', (eb) => eb.selectFrom('known').select('known.user_id'))
              .returning(userColumns(sql<boolean>`false`)),
          )
          // A wallet no user has: a new user, whose wallet row the users trigger inserts (migration
          // 0011). When another user links the wallet meanwhile, that insert fails on the wallet's
          // key and the caller runs the statement again.
          .with('created', (qb) =>
            qb
              .insertInto('users')
              .columns(['wallet', 'chain', 'created_at', 'last_login_at'])
              .expression((eb) =>
                eb
                  .selectFrom('consumed')
                  .where((w) => w.not(w.exists(w.selectFrom('known').select('known.user_id'))))
                  .select([
                    'consumed.wallet',
                    sql<Chain>`${chain}::text`.as('chain'),
                    now.as('created_at'),
                    now.as('last_login_at'),
                  ]),
              )
              // Two first sign-ins of one wallet at once: the second stamps the user the first made.
              .onConflict((oc) =>
                oc.column('wallet').doUpdateSet({ last_login_at: (eb) => eb.ref('excluded.last_login_at') }),
              )
              // xmax is 0 on a freshly inserted row version and set on one the upsert updated.
              .returning(userColumns(sql<boolean>`xmax = 0`)),
          )
          .with('login', (qb) => qb.selectFrom('stamped').selectAll().unionAll(qb.selectFrom('created').selectAll()))
          .with('started', (qb) =>
            qb
              .insertInto('sessions')
              .columns(['id', 'user_id', 'created_at', 'last_used_at', 'expires_at', 'user_agent', 'ip', 'wallet'])
              .expression((eb) =>
                eb
                  .selectFrom('login')
                  .select([
                    sql<string>`${sessionId}::text`.as('id'),
                    'login.id',
                    now.as('created_at'),
                    now.as('last_used_at'),
                    sql<Date>`${sessionExpiresAt}::timestamptz`.as('expires_at'),
                    sql<string | null>`${userAgent}::text`.as('user_agent'),
                    sql<string | null>`${ip}::text`.as('ip'),
                    sql<string>`${wallet}::text`.as('wallet'),
                  ]),
              )
              .returning(['id', 'user_id']),
          )
          // The events of this sign-in, in the same statement: user.created for a new user,
          // session.created always (the nonce was used only if the user row came back).
          .with('announced', (qb) =>
            qb
              .insertInto('events')
              .columns(['type', 'data'])
              .expression((eb) =>
                eb
                  .selectFrom('login')
                  .where('login.inserted', '=', true)
                  .select(
                    eventRow('user.created', {
                      userId: sql.ref('login.id'),
                      wallet: sql.ref('login.wallet'),
                      chain: sql.ref('login.chain'),
                    }),
                  )
                  .unionAll(
                    eb.selectFrom('started').select(
                      eventRow('session.created', {
                        userId: sql.ref('started.user_id'),
                        sessionId: sql.ref('started.id'),
                      }),
                    ),
                  ),
              ),
          )
          .selectFrom('login')
          .selectAll()
          // Read in the statement's snapshot, like a count in RETURNING: a new user has no follows.
          .select(followingCount(sql.ref('login.id')).as('following_count'))
      );
    },
  );
  return row;
}
