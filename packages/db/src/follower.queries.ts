/**
 * A provider's followers for fan-out (GET /providers/{id}/followers): keyset pages by user id,
 * each one statement. The provider's row gives the total (its follower_count, kept by a
 * trigger) and tells an unknown provider apart; the lateral subquery walks the index
 * follows(provider_id, user_id) from the cursor on (migration 0009), so a page costs one index
 * descent and `limit` rows whatever its depth. Archived providers are not filtered out.
 *
 * Exact under concurrent follows and unfollows: each page is one snapshot, and a user's
 * position (its id) never moves, so a user who follows for the whole walk is on exactly one page.
 */
import type { Chain, Follower } from '@signal/core';
import type { Kysely } from 'kysely';
import { runCompiled } from './compiled-query.js';
import type { Database } from './schema.js';

export interface FollowerSlice {
  items: Follower[];
  total: number;
}

/** Followers with a user id above `afterUserId`, ascending, at most `limit`; undefined: no such provider. */
export async function listFollowers(
  db: Kysely<Database>,
  request: { providerId: number; afterUserId: number; limit: number },
): Promise<FollowerSlice | undefined> {
  const values = [request.providerId, request.afterUserId, request.limit] as const;
  const rows = await runCompiled(db, 'listFollowers', values, (providerId, after, limit) =>
    db
      .selectFrom('providers as p')
      .leftJoinLateral(
        (eb) =>
          eb
            .selectFrom('follows as f')
            .innerJoin('users as u', 'u.id', 'f.user_id')
            .select(['f.user_id', 'u.wallet', 'u.chain', 'f.created_at'])
            .whereRef('f.provider_id', '=', 'p.id')
            .where('f.user_id', '>', after)
            .orderBy('f.user_id')
            .limit(limit)
            .as('f'),
        (join) => join.onTrue(),
      )
      .select(['p.follower_count', 'f.user_id', 'f.wallet', 'f.chain', 'f.created_at'])
      .where('p.id', '=', providerId)
      .orderBy('f.user_id'),
  );
  const [first] = rows;
  if (!first) return undefined;
  const items: Follower[] = [];
  for (const row of rows) {
    // The provider's row alone (no follower past the cursor): a null-extended join row.
    if (row.user_id === null || row.created_at === null) continue;
    items.push({
      userId: Number(row.user_id),
      wallet: row.wallet as string,
      chain: row.chain as Chain,
      followedAt: row.created_at.toISOString(),
    });
  }
  return { items, total: Number(first.follower_count) };
}
