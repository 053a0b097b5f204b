import { sql } from 'kysely';
import { statementsMigration } from './statements.js';

/**
 * Signed statements (CONTRACT.md, Version 4, "Signed statements", "Publishers and their keys"),
 * and the providers' `reveal_delay_seconds` ("Signals"):
 * - `signed_statements`: every accepted statement by the hex SHA-256 of its body's three strings, with
 *   the first answer (its log index left out: it is read back from the log) and the log acceptance
 *   it made, so that a byte-identical retry gets the first answer and appends nothing; the primary
 *   key holds that under concurrent duplicates on many servers.
 * - `publisher_keys`: the Ed25519 keys a publisher wallet delegated, one per provider and key
 *   (a key is delegated once), stamped `revoked_at` by the first revoke.
 */
export const { up } = statementsMigration([
  // How long a provider's signals stay for followers before they are public (0: at once).
  sql`
    alter table providers add column reveal_delay_seconds integer not null default 0
      check (reveal_delay_seconds between 0 and 2592000)
  `,
  sql`
    create table signed_statements (
      digest text primary key,
      provider_id bigint not null references providers (id),
      type text not null,
      answer jsonb not null,
      acceptance_id bigint not null,
      min_index bigint not null,
      received_at timestamptz not null
    )
  `,
  sql`
    create table publisher_keys (
      id bigint generated always as identity primary key,
      provider_id bigint not null references providers (id),
      key text not null,
      wallet text not null,
      delegated_at timestamptz not null,
      issued_at timestamptz not null,
      expires_at timestamptz not null,
      revoked_at timestamptz,
      delegate_acceptance_id bigint not null,
      delegate_min_index bigint not null,
      revoke_acceptance_id bigint,
      revoke_min_index bigint,
      unique (provider_id, key)
    )
  `,
]);
