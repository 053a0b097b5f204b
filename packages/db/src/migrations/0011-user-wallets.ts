import { sql } from 'kysely';
import { statementsMigration } from './statements.js';

/**
 * Several wallets per user. Each user's wallet becomes its first linked wallet; `users.wallet`
 * and `users.chain` stay, and keep naming the primary wallet (the oldest linked one), so servers
 * of the previous release, which read and write only `users`, keep working during a rolling
 * deploy (docs/deployment.md, "Several wallets: the rolling deploy").
 *
 * Written so that writers wait as little as possible while it runs (the migrator runs in one
 * transaction, so every lock lasts until the commit): the copy and the index builds take no lock
 * that blocks writes to `users`; only the last statements do, from the trigger on. Measured on
 * 1M users: docs/deployment.md.
 */
export const { up } = statementsMigration([
  sql`
    create table user_wallets (
      wallet text not null,
      chain text not null check (chain in ('evm', 'solana')),
      user_id bigint not null,
      linked_at timestamptz not null,
      -- Null until the wallet signs in after it was linked.
      last_login_at timestamptz
    )
  `,
  sql`
    insert into user_wallets (wallet, chain, user_id, linked_at, last_login_at)
    select wallet, chain, id, created_at, last_login_at from users
  `,
  // Indexes after the copy: one sorted build each instead of a million index insertions.
  sql`
    alter table user_wallets add constraint user_wallets_pkey primary key (wallet)
  `,
  sql`
    create index user_wallets_user_idx on user_wallets (user_id, linked_at, wallet)
  `,
  // Every user row gets its wallet row in the statement that creates the user, whichever
  // release wrote it: the new sign-in statement creates users through this too. A wallet
  // already linked to someone fails the insert (the primary key), so a sign-in can never make a
  // second user for a linked wallet.
  sql`
    create function user_wallets_of_new_user() returns trigger language plpgsql as $$
    begin
      insert into user_wallets (wallet, chain, user_id, linked_at, last_login_at)
      values (new.wallet, new.chain, new.id, new.created_at, new.last_login_at);
      return null;
    end
    $$
  `,
  // From here to the commit, writes to users wait (the trigger's lock). Users created or
  // deleted by running servers since the copy are caught up under it.
  sql`
    create trigger users_wallet_row after insert on users
    for each row execute function user_wallets_of_new_user()
  `,
  sql`
    insert into user_wallets (wallet, chain, user_id, linked_at, last_login_at)
    select u.wallet, u.chain, u.id, u.created_at, u.last_login_at from users u
    where not exists (select 1 from user_wallets w where w.user_id = u.id)
  `,
  sql`
    delete from user_wallets w where not exists (select 1 from users u where u.id = w.user_id)
  `,
  // Holds for every row by the two statements above, so it is not checked again (NOT VALID
  // skips that scan; new rows are checked as always).
  sql`
    alter table user_wallets add constraint user_wallets_user_id_fkey
    foreign key (user_id) references users (id) on delete cascade not valid
  `,
  // The wallet that signed the session in, so unlinking it ends exactly its sessions. Null on
  // sessions started before this migration (or by a previous-release server during the deploy):
  // those were signed by the user's primary wallet, and end when it is unlinked. Last, as it
  // blocks every authenticated request until the commit.
  sql`
    alter table sessions add column wallet text
  `,
]);
