import { sql } from 'kysely';
import { statementsMigration } from './statements.js';

/**
 * Every sequenced signal newest first across providers (`published_at desc, open_log_index desc`,
 * the contract's order, with `provider_id` and `id` so the walk is index-only): the first
 * strategy of `GET /me/signals` (signal-read.queries.ts, `listFollowedSignalKeys`): a bounded walk
 * from the cursor kept where the provider is followed, before one walk of
 * `signals_provider_newest_idx` (0019) per followed provider. docs/design.md, "Follower feeds".
 */
export const { up } = statementsMigration([
  sql`
    create index signals_newest_idx
      on signals (published_at desc, open_log_index desc) include (provider_id, id)
      where open_log_index is not null
  `,
]);
