/**
 * What a `signals.live` stream needs when it opens (its admission in the API): the
 * providers a user follows now, archived ones included (their signals stop when they are
 * archived, and start again with a restore, without a reconnect).
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** The ids of the providers `userId` follows, in no particular order. */
export async function followedProviderIds(db: Kysely<Database>, userId: number): Promise<number[]> {
  const rows = await db.selectFrom('follows').select('provider_id').where('user_id', '=', userId).execute();
  return rows.map((row) => Number(row.provider_id));
}
