import { sql } from 'kysely';
import { statementsMigration } from './statements.js';

/**
 * The operator's catalogue (CONTRACT.md, Version 3): providers can be archived, and their
 * performance is a published daily NAV series with figures derived from it.
 *
 * Where the figures live: on the providers row itself, every one of them (the derived series
 * figures, the signal counters and when they were published), not in provider_stats. A list that
 * sorts or filters on a figure then reads one row per provider, the figure sits in the same row
 * as follower_count (so one index can serve a sort with a filter on another column), a write of
 * new figures bumps the provider's version (its ETag, migration 0007) by the same trigger as any
 * other change, and stats are one row read with no join. provider_stats, whose figures had no
 * series behind them, goes: its signal counters move over; its return and drawdown cannot be
 * derived from a series that does not exist, so they start from the unpublished defaults.
 *
 * Archived providers (archived_at set) are hidden from every public read, so the public sort
 * indexes become partial (`where archived_at is null`): a page still reads only its own index
 * entries, never an archived row's. Indexes added for new sorts should be partial the same way.
 */
export const { up } = statementsMigration([
  sql`alter table providers add column archived_at timestamptz`,
  sql`alter table providers add column roi_7d_pct double precision`,
  sql`alter table providers add column roi_30d_pct double precision`,
  sql`alter table providers add column roi_90d_pct double precision`,
  sql`alter table providers add column roi_all_pct double precision`,
  sql`alter table providers add column max_drawdown_pct double precision not null default 0`,
  sql`alter table providers add column trading_days integer not null default 0`,
  // The last point's date: every figure is computed from it.
  sql`alter table providers add column as_of date`,
  sql`alter table providers add column total_signals integer not null default 0 check (total_signals >= 0)`,
  sql`
    alter table providers add column winning_signals integer not null default 0
      check (winning_signals between 0 and total_signals)
  `,
  // winning_signals / total_signals (0 with none), stored so that lists sort and filter on it.
  sql`
    alter table providers add column win_rate double precision not null default 0 check (win_rate between 0 and 1)
  `,
  sql`alter table providers add column avg_return_pct double precision not null default 0`,
  sql`alter table providers add column last_signal_at timestamptz`,
  // When figures were last published (Stats.updatedAt); null: never, creation stands in.
  sql`alter table providers add column stats_updated_at timestamptz`,
  sql`
    update providers p
       set total_signals = s.total_signals,
           winning_signals = round(s.win_rate * s.total_signals)::int,
           win_rate = case when s.total_signals = 0 then 0 else round(s.win_rate * s.total_signals) / s.total_signals end,
           avg_return_pct = s.avg_return_pct,
           last_signal_at = s.last_signal_at,
           stats_updated_at = s.updated_at
      from provider_stats s
     where s.provider_id = p.id
  `,
  sql`drop table provider_stats`,
  sql`
    create table provider_nav (
      provider_id bigint not null references providers (id) on delete cascade,
      date date not null,
      nav double precision not null check (nav > 0),
      primary key (provider_id, date)
    )
  `,
  // Public sorts read only public providers, from partial indexes; `id` gets its own (the
  // primary key would have to visit the heap to skip archived rows).
  sql`drop index providers_follower_count_id_idx`,
  sql`drop index providers_created_at_id_idx`,
  sql`drop index providers_name_id_idx`,
  sql`create index providers_follower_count_id_idx on providers (follower_count, id) where archived_at is null`,
  sql`create index providers_created_at_id_idx on providers (created_at, id) where archived_at is null`,
  sql`create index providers_name_id_idx on providers (name, id) where archived_at is null`,
  sql`create index providers_public_id_idx on providers (id) where archived_at is null`,
  // catalogue_counters.provider_count counts public providers: inserts and deletes of archived
  // rows do not count, and archiving or restoring moves the count.
  sql`
    create or replace function providers_count_inserted() returns trigger language plpgsql as $$
    begin
      update catalogue_counters
         set provider_count = provider_count + (select count(*) from inserted_rows where archived_at is null);
      return null;
    end $$
  `,
  sql`
    create or replace function providers_count_deleted() returns trigger language plpgsql as $$
    begin
      update catalogue_counters
         set provider_count = provider_count - (select count(*) from deleted_rows where archived_at is null);
      return null;
    end $$
  `,
  sql`
    create function providers_count_archived() returns trigger language plpgsql as $$
    begin
      update catalogue_counters
         set provider_count = provider_count + case when new.archived_at is null then 1 else -1 end;
      return null;
    end $$
  `,
  // Row level with a WHEN, so the follows trigger's updates of follower_count never call it.
  sql`
    create trigger providers_count_archived after update of archived_at on providers
      for each row when ((old.archived_at is null) <> (new.archived_at is null))
      execute function providers_count_archived()
  `,
]);
