import { sql } from 'kysely';
import { statementsMigration } from './statements.js';

/**
 * Signals (CONTRACT.md, Version 4, "Signals"; docs/signals.md):
 * - `signals`: one row per `signal.open`, by (provider, the open's id), with what the write
 *   checks need under the provider's lock (the status written by statements, `open_pct`,
 *   `expires_at`) and what never moves (`published_at`, `reveal_at`). `expired` is never
 *   stored: it is judged at read time from `expires_at`. `open_log_index` is set by the log's
 *   sequencer in the transaction that puts the open into the tree (signal.queries.ts,
 *   `placeSignalStatements`): until then the signal is in no read.
 * - `signal_statements`: every accepted signal statement, whole (text, signer, signature), with
 *   its commitment, `received_at` and its log acceptance; its primary key (provider, id) is the
 *   one id namespace opens and updates share. `log_index` is set with the entry's place in the tree.
 *
 * Indexes: a provider's list newest first (`published_at desc, open_log_index desc`, the
 * contract's order) as an index-only key walk; the same index serves `GET /me/signals`, read as
 * one short walk per followed provider merged by the planner (docs/design.md, "Follower feeds");
 * a signal's statements in log order; the sequencer's lookup by acceptance id.
 */
export const { up } = statementsMigration([
  sql`
    create table signals (
      provider_id bigint not null references providers (id),
      id text not null,
      published_at timestamptz not null,
      reveal_at timestamptz not null,
      expires_at timestamptz,
      status text not null default 'open' check (status in ('open', 'closed', 'cancelled')),
      open_pct text not null default '100',
      open_acceptance_id bigint not null,
      open_log_index bigint,
      primary key (provider_id, id)
    )
  `,
  sql`
    create index signals_provider_newest_idx
      on signals (provider_id, published_at desc, open_log_index desc) include (id)
      where open_log_index is not null
  `,
  sql`
    create table signal_statements (
      provider_id bigint not null,
      id text not null,
      signal_id text not null,
      type text not null
        check (type in ('signal.open', 'signal.update', 'signal.close', 'signal.cancel')),
      statement text not null,
      signer text not null,
      signature text not null,
      commitment text not null,
      received_at timestamptz not null,
      acceptance_id bigint not null,
      min_index bigint not null,
      log_index bigint,
      primary key (provider_id, id),
      foreign key (provider_id, signal_id) references signals (provider_id, id)
    )
  `,
  sql`create index signal_statements_signal_idx on signal_statements (provider_id, signal_id, acceptance_id)`,
  sql`create unique index signal_statements_acceptance_idx on signal_statements (acceptance_id)`,
  sql`create unique index signal_statements_log_index_idx on signal_statements (log_index) where log_index is not null`,
]);
