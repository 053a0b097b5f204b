import { sql } from 'kysely';
import { statementsMigration } from './statements.js';

/**
 * A session per sign-in: the token names it (`sid`), and every authenticated request checks it
 * here, so a signed-out session is refused on every server from the next request on.
 */
export const { up } = statementsMigration([
  sql`
    create table sessions (
      id text primary key,
      -- The cursor's tie-break among sessions started in the same microsecond (ids are random).
      seq bigint generated always as identity unique,
      user_id bigint not null references users (id) on delete cascade,
      created_at timestamptz not null,
      -- Written at most once a minute per session (see touchAndCheckSession).
      last_used_at timestamptz not null,
      -- The token's exp: a session never outlives its token.
      expires_at timestamptz not null,
      revoked_at timestamptz,
      user_agent text,
      ip text
    )
  `,
  // A user's sessions newest first (the listing and its cursor), and the scopes of sign-out.
  sql`
    create index sessions_user_created_idx on sessions (user_id, created_at desc, seq desc)
  `,
  // The purge finds ended sessions by when they ended.
  sql`
    create index sessions_expires_at_idx on sessions (expires_at)
  `,
  sql`
    create index sessions_revoked_at_idx on sessions (revoked_at) where revoked_at is not null
  `,
]);
