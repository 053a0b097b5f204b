import { sql } from 'kysely';
import { statementsMigration } from './statements.js';

/**
 * Publisher wallets of a provider (CONTRACT.md, Version 4, "Publishers and their keys"): one row
 * per addition; a removal stamps `removed_at`, and adding the wallet again makes a new row. At
 * most one current (not removed) row per provider and wallet, which the unique index holds under
 * concurrent adds.
 */
export const { up } = statementsMigration([
  sql`
    create table provider_publishers (
      id bigint generated always as identity primary key,
      provider_id bigint not null references providers (id),
      wallet text not null,
      chain text not null,
      added_at timestamptz not null default now(),
      removed_at timestamptz
    )
  `,
  sql`
    create unique index provider_publishers_current_idx on provider_publishers (provider_id, wallet)
      where removed_at is null
  `,
  sql`create index provider_publishers_provider_idx on provider_publishers (provider_id, id)`,
]);
