import { sql } from 'kysely';
import { statementsMigration } from './statements.js';

export const { up } = statementsMigration([
  // Nonces authenticate themselves now (@signal/core/nonce): issuing one writes nothing, so the
  // table of issued nonces and the per-wallet cap that kept it bounded go.
  sql`
    drop function if exists issue_nonce_within_cap(text, text, timestamptz, timestamptz, integer)
  `,
  sql`
    drop table if exists auth_nonces
  `,
  // One row per successful sign-in, written in the statement that logs the user in: the
  // primary key lets exactly one of any number of concurrent verifies of a nonce through.
  // Kept until the nonce expires (after which the nonce itself is refused), then purged.
  sql`
    create table used_nonces (
      nonce text primary key,
      wallet text not null,
      expires_at timestamptz not null,
      used_at timestamptz not null
    )
  `,
  sql`
    create index used_nonces_expires_at_idx on used_nonces (expires_at)
  `,
]);
