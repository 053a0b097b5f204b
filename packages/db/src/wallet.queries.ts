/**
 * The wallets of a user (user_wallets, migration 0011): listed, linked, unlinked. A wallet
 * belongs to one user at most (the table's key); the primary one is also `users.wallet`.
 */
import type { Chain, LinkedWallet } from '@signal/core';
import { type Kysely, sql } from 'kysely';
import { runCompiled } from './compiled-query.js';
import { appendEvents } from './events.queries.js';
import { isoTimestamp } from './paging.js';
import type { Database } from './schema.js';

/**
 * A user's wallets as wire items, oldest first, built in SQL so `/me` stays one statement:
 * the correlated subquery of a select from `users`.
 */
const walletItems = sql<LinkedWallet[]>`coalesce((
  select json_agg(json_build_object(
    'wallet', w.wallet, 'chain', w.chain, 'linkedAt', ${isoTimestamp('w.linked_at')},
    'primary', w.wallet = users.wallet, 'lastLoginAt', ${isoTimestamp('w.last_login_at')}
  ) order by w.linked_at, w.wallet)
  from user_wallets w where w.user_id = users.id), '[]')`;

export const walletsColumn = walletItems.as('wallets');

/** The user's wallets, oldest first; empty when the user does not exist. */
export async function listWallets(db: Kysely<Database>, userId: number): Promise<LinkedWallet[]> {
  const [row] = await runCompiled(db, 'listWallets', [userId], (id) =>
    db.selectFrom('users').select(walletsColumn).where('id', '=', id),
  );
  return row?.wallets ?? [];
}

export type LinkOutcome =
  | { status: 'linked' | 'already-linked'; wallet: LinkedWallet }
  | { status: 'nonce-used' | 'linked-elsewhere' | 'user-not-found' };

/**
 * Links a wallet to a user and records its link nonce as used, in one transaction, with its
 * wallet.linked event: the nonce is used only when the wallet ends up linked to this user (a
 * wallet of another user writes nothing). The wallet's key decides races: of concurrent links
 * of one wallet, one inserts; the others wait for it and find it taken (or theirs already). A
 * sign-in creating a user for the wallet at the same time is decided by the same key (see
 * recordNonceUseAndLogin). The event is appended after the change's writes (events.queries.ts
 * on ordering).
 */
export async function linkWallet(
  db: Kysely<Database>,
  input: { userId: number; wallet: string; chain: Chain; nonce: string; expiresAt: Date; now: Date },
): Promise<LinkOutcome> {
  const link = async (trx: Kysely<Database>): Promise<LinkOutcome> => {
    const inserted = await trx
      .insertInto('user_wallets')
      .columns(['wallet', 'chain', 'user_id', 'linked_at'])
      .expression((eb) =>
        eb
          .selectFrom('users')
          .select([
            sql<string>`${input.wallet}::text`.as('wallet'),
            sql<Chain>`${input.chain}::text`.as('chain'),
            'id',
            sql<Date>`${input.now}::timestamptz`.as('linked_at'),
          ])
          .where('id', '=', input.userId),
      )
      .onConflict((oc) => oc.column('wallet').doNothing())
      .returning('user_id')
      .executeTakeFirst();
    if (!inserted) {
      const owner = await trx
        .selectFrom('user_wallets')
        .select('user_id')
        .where('wallet', '=', input.wallet)
        .executeTakeFirst();
      if (owner === undefined) return rollback({ status: 'user-not-found' });
      if (Number(owner.user_id) !== input.userId) return rollback({ status: 'linked-elsewhere' });
    }
    const used = await trx
      .insertInto('used_nonces')
      .values({ nonce: input.nonce, wallet: input.wallet, expires_at: input.expiresAt, used_at: input.now })
      .onConflict((oc) => oc.column('nonce').doNothing())
      .returning('nonce')
      .executeTakeFirst();
    if (!used) return rollback({ status: 'nonce-used' });
    const item = (await listWallets(trx, input.userId)).find((w) => w.wallet === input.wallet);
    if (!item) throw new Error('a linked wallet is missing from its user');
    if (inserted) {
      await appendEvents(trx, [
        { type: 'wallet.linked', data: { userId: input.userId, wallet: input.wallet, chain: input.chain } },
      ]);
    }
    return { status: inserted ? 'linked' : 'already-linked', wallet: item };
  };
  // In the caller's transaction (an Idempotency-Key's) when given one: a refusal then rolls back
  // with the caller's error; else in one of its own.
  return (db.isTransaction ? link(db) : db.transaction().execute(link)).catch((error: unknown) => {
    if (error instanceof Rollback) return error.outcome;
    throw error;
  });
}

/** Thrown to roll a transaction back with an answer. */
class Rollback extends Error {
  constructor(readonly outcome: LinkOutcome) {
    super('rolled back');
  }
}
const rollback = (outcome: LinkOutcome): never => {
  throw new Rollback(outcome);
};

export type UnlinkOutcome = { status: 'unlinked' } | { status: 'not-linked' | 'last-wallet' };

/**
 * Unlinks a wallet from a user and ends the sessions it signed in, in one transaction. Locks in
 * the order a sign-in takes them (auth.queries.ts: the wallet's row, then its user's), so the
 * two never wait for each other in a cycle (before, the unlink took the user's row first, and
 * eight sign-ins racing one unlink on two servers met 15 deadlocks in 10 rounds, issue 42). The
 * user's row is then locked too, so two unlinks of one user's last two wallets cannot both pass
 * the "not the last" check. Unlinking the primary makes the oldest remaining wallet primary
 * (`users.wallet`, which the previous release still reads). A session with no wallet recorded
 * was signed in by the primary of its time (migration 0011), so it ends with the primary.
 * Announces wallet.unlinked and a session.revoked per session it ended, in the transaction.
 */
export async function unlinkWallet(
  db: Kysely<Database>,
  input: { userId: number; wallet: string; now: Date },
): Promise<UnlinkOutcome> {
  return db.transaction().execute(async (trx): Promise<UnlinkOutcome> => {
    const linked = await trx
      .selectFrom('user_wallets')
      .select('wallet')
      .where('wallet', '=', input.wallet)
      .where('user_id', '=', input.userId)
      .forUpdate()
      .executeTakeFirst();
    if (!linked) return { status: 'not-linked' };
    const user = await trx
      .selectFrom('users')
      .select('wallet')
      .where('id', '=', input.userId)
      .forUpdate()
      .executeTakeFirst();
    if (!user) return { status: 'not-linked' };
    const wallets = await trx
      .selectFrom('user_wallets')
      .select(['wallet', 'chain'])
      .where('user_id', '=', input.userId)
      .orderBy('linked_at')
      .orderBy('wallet')
      .execute();
    const target = wallets.find((w) => w.wallet === input.wallet);
    if (!target) return { status: 'not-linked' };
    const rest = wallets.filter((w) => w !== target);
    const next = rest[0];
    if (!next) return { status: 'last-wallet' };
    await trx.deleteFrom('user_wallets').where('wallet', '=', input.wallet).execute();
    const wasPrimary = user.wallet === input.wallet;
    if (wasPrimary) {
      await trx
        .updateTable('users')
        .set({ wallet: next.wallet, chain: next.chain })
        .where('id', '=', input.userId)
        .execute();
    }
    const revoked = await trx
      .updateTable('sessions')
      .set({ revoked_at: input.now })
      .where('user_id', '=', input.userId)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', input.now)
      .where((eb) =>
        wasPrimary
          ? eb.or([eb('wallet', '=', input.wallet), eb('wallet', 'is', null)])
          : eb('wallet', '=', input.wallet),
      )
      .returning('id')
      .execute();
    const { userId } = input;
    await appendEvents(trx, [
      { type: 'wallet.unlinked', data: { userId, wallet: target.wallet, chain: target.chain } },
      ...revoked.map((r) => ({ type: 'session.revoked' as const, data: { userId, sessionId: r.id } })),
    ]);
    return { status: 'unlinked' };
  });
}
