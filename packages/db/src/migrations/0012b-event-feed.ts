import { sql } from 'kysely';
import { statementsMigration } from './statements.js';

/**
 * Feed positions given after commit, replacing 0012's (txid, seq) order.
 *
 * A transaction's id orders two writers of one row by when each took its id, which can be
 * before it waited for the other's row lock: the one that commits second could read first. So
 * an event's place in the feed is now `position`, given after it committed by the sequencer
 * (events.queries.ts), one batch at a time under the lock of event_feed_state's row: each batch
 * takes the committed events that have none, in `seq` order, and numbers them after the last
 * batch. A reader sees a batch whole or not at all, and a later batch only numbers higher, so no
 * event can appear behind a cursor once read past. `seq` is taken at the insert, after the
 * change's row locks, so a change waiting for another's lock gets the higher `seq` and,
 * committing later, the same or a later batch: the feed keeps commit order wherever an observer
 * could tell.
 */
export const { up } = statementsMigration([
  sql`
    alter table events drop constraint events_pkey
  `,
  sql`
    alter table events drop column txid
  `,
  sql`
    alter table events add primary key (seq)
  `,
  sql`
    alter table events add column position bigint
  `,
  sql`
    create unique index events_position_idx on events (position)
  `,
  // What the sequencer has yet to number: few rows at any time, so a small partial index.
  sql`
    create index events_unsequenced_idx on events (seq) where position is null
  `,
  // The sequencer's lock and the last position it gave.
  sql`
    create table event_feed_state (
      id boolean primary key default true check (id),
      last_position bigint not null default 0
    )
  `,
  sql`
    insert into event_feed_state (id, last_position) values (true, 0)
  `,
]);
