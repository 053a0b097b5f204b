import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface RateLimitHit {
  /** Hits in the current window, this one included. */
  hits: number;
  /** When the current window ends and the count starts again from zero. */
  resetAt: Date;
}

/**
 * Counts one hit in the bucket's current fixed window and returns the count so far. One upsert,
 * so concurrent hits on one server or many sharing the database are each counted exactly once
 * (the row lock of ON CONFLICT DO UPDATE serialises them).
 */
export async function hitRateLimit(
  db: Kysely<Database>,
  input: { bucket: string; now: Date; windowMs: number },
): Promise<RateLimitHit> {
  const start = Math.floor(input.now.getTime() / input.windowMs) * input.windowMs;
  const row = await db
    .insertInto('rate_limit_hits')
    .values({ bucket: input.bucket, window_start: new Date(start), hits: 1 })
    .onConflict((oc) =>
      oc.columns(['bucket', 'window_start']).doUpdateSet({ hits: (eb) => eb('rate_limit_hits.hits', '+', 1) }),
    )
    .returning('hits')
    .executeTakeFirstOrThrow();
  return { hits: row.hits, resetAt: new Date(start + input.windowMs) };
}
