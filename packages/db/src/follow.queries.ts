/**
 * Follows: a user follows and unfollows public providers (the follows trigger keeps each
 * provider's follower_count in the same transaction), lists what it follows, and a provider's
 * followers are walked for fan-out.
 */
import type { Chain, FollowedProvider, Follower, FollowResult, UnfollowResult } from '@signal/core';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { runCompiled } from './compiled-query.js';
import { isForeignKeyViolation } from './errors.js';
import { exactTimestamp, newestFirstPage, type PageResult, type Paging } from './paging.js';
import { PROVIDER_COLUMNS, PUBLIC_PROVIDER, providerOfRow } from './provider.queries.js';
import type { Database } from './schema.js';

/** The number of public providers a user follows (archived ones are not counted). */
export function followingCount(userId: RawBuilder<unknown>) {
  return sql<number>`(select count(*) from follows f join providers p on p.id = f.provider_id where f.user_id = ${userId} and ${PUBLIC_PROVIDER})`;
}

/** A follow's (FollowResult) or an unfollow's (UnfollowResult) answer, or why there is none. */
export type FollowOutcome<Result = FollowResult | UnfollowResult> = Result | 'provider-not-found' | 'user-not-found';

/**
 * Reads the provider's count after a follow change, and whether the user still exists. An
 * archived provider cannot be followed (not found), but its followers may still unfollow it.
 */
async function followState<const Following extends boolean>(
  db: Kysely<Database>,
  userId: number,
  providerId: number,
  following: Following,
): Promise<FollowOutcome<{ providerId: number; following: Following; followerCount: number }>> {
  const [row] = await runCompiled(db, 'followState', [userId, providerId], (user, provider) =>
    db
      .selectFrom('providers')
      .select([
        'follower_count',
        sql<boolean>`archived_at is not null`.as('archived'),
        sql<boolean>`exists (select 1 from users u where u.id = ${user})`.as('user_exists'),
      ])
      .where('id', '=', provider),
  );
  if (!row || (following && row.archived)) return 'provider-not-found';
  if (!row.user_exists) return 'user-not-found';
  return { providerId, following, followerCount: row.follower_count };
}

/**
 * Follows a public provider; repeating it changes nothing. The follows trigger raises the count
 * in the same transaction as the insert, and only when a row really was inserted. An archived
 * provider gets no new follow row (the insert selects nothing).
 */
export async function followProvider(
  db: Kysely<Database>,
  input: { userId: number; providerId: number; now: Date },
): Promise<FollowOutcome<FollowResult>> {
  try {
    await runCompiled(db, 'followProvider', [input.userId, input.providerId, input.now], (user, provider, at) =>
      db
        .insertInto('follows')
        .columns(['user_id', 'provider_id', 'created_at'])
        .expression((eb) =>
          eb
            .selectFrom('providers as p')
            .select([eb.val(user).as('user_id'), 'p.id', eb.val(at).as('created_at')])
            .where('p.id', '=', provider)
            .where(PUBLIC_PROVIDER),
        )
        .onConflict((oc) => oc.columns(['user_id', 'provider_id']).doNothing()),
    );
  } catch (error) {
    if (!isForeignKeyViolation(error)) throw error;
    // The provider or the user does not exist; followState says which.
  }
  return followState(db, input.userId, input.providerId, true);
}

/** Unfollows a provider; repeating it changes nothing. */
export async function unfollowProvider(
  db: Kysely<Database>,
  input: { userId: number; providerId: number },
): Promise<FollowOutcome<UnfollowResult>> {
  await runCompiled(db, 'unfollowProvider', [input.userId, input.providerId], (user, provider) =>
    db.deleteFrom('follows').where('user_id', '=', user).where('provider_id', '=', provider),
  );
  return followState(db, input.userId, input.providerId, false);
}

/**
 * The public providers a user follows, newest follow first (ties by provider id), by page number
 * or after a cursor (keyset on the user's (created_at, provider_id) index). Follows of archived
 * providers are kept but neither listed nor counted.
 */
export async function listFollowing(
  db: Kysely<Database>,
  request: Paging & { userId: number },
): Promise<PageResult<FollowedProvider> | 'user-not-found'> {
  const counted = await db
    .selectFrom('users as u')
    .select(followingCount(sql.ref('u.id')).as('total'))
    .where('u.id', '=', request.userId)
    .executeTakeFirst();
  if (!counted) return 'user-not-found';
  const query = db
    .selectFrom('follows as f')
    .innerJoin('providers as p', 'p.id', 'f.provider_id')
    .select([...PROVIDER_COLUMNS, 'f.created_at as followed_at', exactTimestamp('f.created_at').as('cursor_key')])
    .where('f.user_id', '=', request.userId)
    .where(PUBLIC_PROVIDER);
  return newestFirstPage(
    query,
    request,
    Number(counted.total),
    { created: 'f.created_at', id: 'f.provider_id', idOf: (row) => Number(row.id) },
    (row) => ({ ...providerOfRow(row), followedAt: row.followed_at.toISOString() }),
  );
}

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
export interface FollowerSlice {
  items: Follower[];
  total: number;
}

/** A followers page's statement, without its select list (listFollowers, listFollowersForKey). */
function followersPage(db: Kysely<Database>, providerId: number, after: number, limit: number) {
  return db
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
    .where('p.id', '=', providerId)
    .orderBy('f.user_id');
}

const FOLLOWER_COLUMNS = ['p.follower_count', 'f.user_id', 'f.wallet', 'f.chain', 'f.created_at'] as const;

interface FollowerRow {
  follower_count: number | string;
  user_id: number | string | null;
  wallet: string | null;
  chain: string | null;
  created_at: Date | null;
}

function followerSlice(rows: readonly FollowerRow[]): FollowerSlice | undefined {
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

/** Followers with a user id above `afterUserId`, ascending, at most `limit`; undefined: no such provider. */
export async function listFollowers(
  db: Kysely<Database>,
  request: { providerId: number; afterUserId: number; limit: number },
): Promise<FollowerSlice | undefined> {
  const values = [request.providerId, request.afterUserId, request.limit] as const;
  const rows = await runCompiled(db, 'listFollowers', values, (providerId, after, limit) =>
    followersPage(db, providerId, after, limit).select(FOLLOWER_COLUMNS),
  );
  return followerSlice(rows);
}

/**
 * listFollowers for a request with a service key, the key's check in the same statement (one
 * round trip instead of two, BENCH.md "Operators' rows"): the page comes back only when the key
 * with this digest exists, is not revoked, has not expired at `now` and holds `scope`, with the
 * key's id. Undefined when no row comes back: no such provider, or a key that does not pass,
 * which the caller tells apart with the key's own lookup (findServiceKeyByHash).
 */
export async function listFollowersForKey(
  db: Kysely<Database>,
  request: { providerId: number; afterUserId: number; limit: number },
  key: { secretHash: string; scope: string; now: Date },
): Promise<{ slice: FollowerSlice; keyId: string } | undefined> {
  const values = [request.providerId, request.afterUserId, request.limit, key.secretHash, key.now, key.scope] as const;
  const rows = await runCompiled(db, 'listFollowersForKey', values, (providerId, after, limit, hash, now, scope) =>
    followersPage(db, providerId, after, limit)
      .innerJoin('service_keys as k', (join) =>
        join
          .on('k.secret_hash', '=', hash)
          .on('k.revoked_at', 'is', null)
          .on((eb) => eb.or([eb('k.expires_at', 'is', null), eb('k.expires_at', '>', now)]))
          .on(sql<boolean>`${scope}::text = any(k.scopes)`),
      )
      .select([...FOLLOWER_COLUMNS, 'k.id as key_id']),
  );
  const slice = followerSlice(rows);
  return slice && { slice, keyId: (rows[0] as { key_id: string }).key_id };
}
