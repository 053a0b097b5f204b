import { sql } from 'kysely';
import { statementsMigration } from './statements.js';

/**
 * The outbox: every event is a row written in the transaction of the change it announces, so it
 * exists if and only if that change committed (docs/events.md).
 *
 * Its place in the feed is (txid, seq): the id of the transaction that wrote it, then its order
 * within that transaction. A reader returns only rows whose transaction id is below its
 * snapshot's xmin, the oldest transaction still running anywhere: every transaction below it has
 * finished, so no row can appear behind a cursor once read past (a serial id alone would let a
 * transaction that took id 10 commit after one with id 11 had been read). Transaction ids are
 * cluster-wide and never reused (xid8, 64 bits), so they only grow.
 */
export const { up } = statementsMigration([
  sql`
    create table events (
      txid bigint not null default (pg_current_xact_id()::text::bigint),
      seq bigint generated always as identity,
      id text not null default ('evt_' || replace(gen_random_uuid()::text, '-', '')),
      type text not null,
      data jsonb not null,
      occurred_at timestamptz not null default now(),
      primary key (txid, seq)
    )
  `,
  // An event by its id: a stream resumed after lastEventId, a delivery's event.
  sql`
    create unique index events_id_idx on events (id)
  `,
  // The retention purge by age; rows arrive in time order, so a block range index is enough.
  sql`
    create index events_occurred_at_idx on events using brin (occurred_at)
  `,
  // follow.created and follow.deleted from the trigger that already moves follower_count, in
  // the same statement as the follow row's insert or delete: a repeated follow or unfollow
  // changes no row and fires nothing, and the count is the one this change left (the update
  // holds the provider's row lock). The demo seed disables this trigger, so it emits none.
  sql`
    create or replace function follows_keep_follower_count() returns trigger language plpgsql as $$
    declare
      count_after integer;
    begin
      if tg_op = 'INSERT' then
        update providers set follower_count = follower_count + 1 where id = new.provider_id
          returning follower_count into count_after;
        insert into events (type, data) values ('follow.created', jsonb_build_object(
          'userId', new.user_id, 'providerId', new.provider_id, 'followerCount', count_after));
      else
        update providers set follower_count = follower_count - 1 where id = old.provider_id
          returning follower_count into count_after;
        -- A provider deleted with its follows (the cascade) announces no follow of its own.
        if count_after is not null then
          insert into events (type, data) values ('follow.deleted', jsonb_build_object(
            'userId', old.user_id, 'providerId', old.provider_id, 'followerCount', count_after));
        end if;
      end if;
      return null;
    end $$
  `,
]);
