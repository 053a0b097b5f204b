import { sql } from 'kysely';
import { statementsMigration } from './statements.js';

export const { up } = statementsMigration([
  // Fixed-window request counters (the auth rate limit), shared by every server on the
  // database: one row per bucket (e.g. endpoint + client IP) and window, bumped by an upsert.
  sql`
    create table rate_limit_hits (
      bucket text not null,
      window_start timestamptz not null,
      hits integer not null,
      primary key (bucket, window_start)
    )
  `,
  // The purge deletes windows that have ended.
  sql`
    create index rate_limit_hits_window_start_idx on rate_limit_hits (window_start)
  `,
]);
