import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

export interface PurgeOptions {
  /** Used nonces that expired before this are deleted (their nonces are refused as expired anyway). */
  noncesExpiredBefore: Date;
  /** Rate-limit windows that started before this are over and deleted. */
  windowsBefore: Date;
  /** Sessions that expired or were signed out before this are deleted (their tokens stay refused). */
  sessionsEndedBefore: Date;
  /** Rows per DELETE: short statements that hold few locks and never hit the statement timeout. */
  batchSize?: number;
  /** Upper bound on statements per table and run; the next run carries on. */
  maxBatches?: number;
}

export interface PurgeResult {
  nonces: number;
  rateLimitWindows: number;
  sessions: number;
}

/**
 * Deletes the records of used nonces that have expired (an expired nonce is refused before
 * anyone looks for its record), ended rate-limit windows and sessions ended long enough ago, in
 * bounded batches. Safe to run from several
 * servers at once: SKIP LOCKED lets each take rows the others are not deleting.
 */
export async function purgeExpiredAuthState(db: Kysely<Database>, options: PurgeOptions): Promise<PurgeResult> {
  const batchSize = options.batchSize ?? 1_000;
  const maxBatches = options.maxBatches ?? 100;
  const nonces = await inBatches(maxBatches, batchSize, async () => {
    const result = await db
      .deleteFrom('used_nonces')
      .where('nonce', 'in', (eb) =>
        eb
          .selectFrom('used_nonces')
          .select('nonce')
          .where('expires_at', '<', options.noncesExpiredBefore)
          .limit(batchSize)
          .forUpdate()
          .skipLocked(),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  });
  const rateLimitWindows = await inBatches(maxBatches, batchSize, async () => {
    const result = await sql`
      delete from rate_limit_hits where (bucket, window_start) in (
        select bucket, window_start from rate_limit_hits where window_start < ${options.windowsBefore}
        limit ${batchSize} for update skip locked)
    `.execute(db);
    return Number(result.numAffectedRows ?? 0);
  });
  // A token whose session row is gone is refused like a signed-out one (session.queries.ts), so
  // purging an ended session changes no answer but the code's wording.
  const sessions = await inBatches(maxBatches, batchSize, async () => {
    const result = await sql`
      delete from sessions where id in (
        select id from sessions
        where expires_at < ${options.sessionsEndedBefore} or revoked_at < ${options.sessionsEndedBefore}
        limit ${batchSize} for update skip locked)
    `.execute(db);
    return Number(result.numAffectedRows ?? 0);
  });
  return { nonces, rateLimitWindows, sessions };
}

export async function inBatches(maxBatches: number, batchSize: number, batch: () => Promise<number>): Promise<number> {
  let total = 0;
  for (let i = 0; i < maxBatches; i++) {
    const deleted = await batch();
    total += deleted;
    if (deleted < batchSize) break;
  }
  return total;
}
