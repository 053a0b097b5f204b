/**
 * Idempotency keys, in the transaction of the request they protect (the API's
 * write-transaction.ts): `claimIdempotencyKey` first, then the request's change, then
 * `recordIdempotentAnswer`, all committed together. A retry with the same key finds the answer;
 * a retry that arrives while the first request runs has its insert wait on the first one's
 * uncommitted row, and then finds its answer (committed) or takes the key over (rolled back:
 * nothing happened). So a key never leads to a second effect, on one server or many.
 */
import { type Kysely, sql } from 'kysely';
import { inBatches } from './purge.queries.js';
import type { Database } from './schema.js';

export interface IdempotencyClaim {
  credential: string;
  key: string;
  route: string;
  requestHash: string;
  now: Date;
  /** Rows created before this are expired: the key may be used afresh. */
  expiredBefore: Date;
}

export type ClaimOutcome = { kind: 'claimed' } | { kind: 'replay'; answer: string } | { kind: 'conflict' };

/**
 * Claims the key in `trx`, or says what the earlier request with it answered. The claim is a
 * row without its answer yet, which recordIdempotentAnswer completes before the commit (no other
 * transaction ever sees it before); a rollback removes it.
 */
export async function claimIdempotencyKey(trx: Kysely<Database>, claim: IdempotencyClaim): Promise<ClaimOutcome> {
  await trx
    .deleteFrom('idempotency_keys')
    .where('credential', '=', claim.credential)
    .where('key', '=', claim.key)
    .where('created_at', '<', claim.expiredBefore)
    .execute();
  const inserted = await trx
    .insertInto('idempotency_keys')
    .values({
      credential: claim.credential,
      key: claim.key,
      route: claim.route,
      request_hash: claim.requestHash,
      answer: '',
      created_at: claim.now,
    })
    .onConflict((oc) => oc.columns(['credential', 'key']).doNothing())
    .returning(sql<number>`1`.as('one'))
    .executeTakeFirst();
  if (inserted) return { kind: 'claimed' };
  const earlier = await trx
    .selectFrom('idempotency_keys')
    .select(['route', 'request_hash', 'answer'])
    .where('credential', '=', claim.credential)
    .where('key', '=', claim.key)
    .executeTakeFirst();
  // Gone meanwhile (purged between the two statements): as good as another request's key.
  if (!earlier || earlier.route !== claim.route || earlier.request_hash !== claim.requestHash) {
    return { kind: 'conflict' };
  }
  return { kind: 'replay', answer: earlier.answer };
}

/** Completes the claim with the answer, in the same transaction as the change it answers. */
export async function recordIdempotentAnswer(
  trx: Kysely<Database>,
  claim: Pick<IdempotencyClaim, 'credential' | 'key'>,
  answer: string,
): Promise<void> {
  await trx
    .updateTable('idempotency_keys')
    .set({ answer })
    .where('credential', '=', claim.credential)
    .where('key', '=', claim.key)
    .execute();
}

/** Deletes keys created before `before`, in bounded batches (the maintenance job). */
export async function purgeIdempotencyKeys(db: Kysely<Database>, before: Date, batchSize = 1_000): Promise<number> {
  return inBatches(100, batchSize, async () => {
    const result = await sql`
      delete from idempotency_keys where (credential, key) in (
        select credential, key from idempotency_keys where created_at < ${before}
        limit ${batchSize} for update skip locked)
    `.execute(db);
    return Number(result.numAffectedRows ?? 0);
  });
}
