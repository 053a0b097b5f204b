import type { Chain, LinkedWallet, User } from '@signal/core';
import { type Kysely, sql } from 'kysely';
import { runCompiled } from './compiled-query.js';
import { followingCount } from './follow.queries.js';
import type { Database } from './schema.js';
import { walletsColumn } from './wallet.queries.js';

interface UserRow {
  id: number;
  wallet: string;
  chain: Chain;
  created_at: Date;
  last_login_at: Date;
  following_count: number;
  wallets: LinkedWallet[];
}

/** The one place a user row becomes a wire User; fields are listed so no column leaks. */
export function toUser(row: UserRow): User {
  return {
    id: row.id,
    wallet: row.wallet,
    chain: row.chain,
    createdAt: row.created_at.toISOString(),
    lastLoginAt: row.last_login_at.toISOString(),
    followingCount: row.following_count,
    wallets: row.wallets,
  };
}

/**
 * Users with their following count: a count over the user's follows index (public providers
 * only), no stored copy.
 */
export const followingCountColumn = followingCount(sql.ref('users.id')).as('following_count');

export async function findUserById(db: Kysely<Database>, id: number): Promise<User | undefined> {
  const [row] = await runCompiled(db, 'findUserById', [id], (userId) =>
    db
      .selectFrom('users')
      .select(['id', 'wallet', 'chain', 'created_at', 'last_login_at', followingCountColumn, walletsColumn])
      .where('id', '=', userId),
  );
  return row && toUser(row);
}
