import { sql } from 'kysely';
import { statementsMigration } from './statements.js';

/**
 * Service keys (CONTRACT.md, "Service keys"): the credentials of internal services. The secret
 * itself is never stored: only its SHA-256 (the secret carries 256 random bits, so a digest
 * without a server-side pepper cannot be reversed by guessing), and `start`, its first
 * characters, for an operator to recognise a key. Every request with a key reads its row
 * (revocation holds from the next request on every server); last_used_at is written in
 * batches, not per request (apps/api/src/procedures/service-key-usage.ts).
 */
export const { up } = statementsMigration([
  sql`
    create table service_keys (
      id text primary key,
      -- The listing's tie-break among keys created in the same microsecond (ids are random).
      seq bigint generated always as identity unique,
      name text not null,
      scopes text[] not null,
      -- base64url of SHA-256(secret): the lookup on every request with a key.
      secret_hash text not null unique,
      start text not null,
      created_at timestamptz not null,
      expires_at timestamptz,
      last_used_at timestamptz,
      revoked_at timestamptz
    )
  `,
  sql`
    create index service_keys_created_idx on service_keys (created_at desc, seq desc)
  `,
  // A provider's followers by user id (GET /providers/{id}/followers, keyset-paged): each page
  // starts with one index descent whatever its depth, and followed_at comes from the index.
  sql`
    create index follows_provider_user_idx on follows (provider_id, user_id) include (created_at)
  `,
]);
