import { sql } from 'kysely';
import { statementsMigration } from './statements.js';

/**
 * Idempotency-Key (CONTRACT.md, Version 3): the first answer of each (credential, key), kept 24 h.
 * The row is written in the transaction of the request's own change, so it exists exactly when
 * the change committed, and a concurrent retry's insert waits on it (see idempotency.queries.ts).
 */
export const { up } = statementsMigration([
  sql`
    create table idempotency_keys (
      -- Whose key: 'key:<service key id>' or 'user:<user id>'; keys are per credential.
      credential text not null,
      key text not null,
      -- The procedure (the same for its REST route and its tRPC path) and a digest of the request.
      route text not null,
      request_hash text not null,
      -- The JSON of the first answer. Only successes are kept: a failure rolls the row back with
      -- the rest of its transaction (it changed nothing, so a retry runs again), and a success's
      -- status is its route's.
      answer text not null,
      created_at timestamptz not null,
      primary key (credential, key)
    )
  `,
  sql`create index idempotency_keys_created_at_idx on idempotency_keys (created_at)`,
]);
