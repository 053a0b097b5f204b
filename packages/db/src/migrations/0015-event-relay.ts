import { sql } from 'kysely';
import { statementsMigration } from './statements.js';

/**
 * Relays of the event feed to a message bus (docs/events.md, "NATS JetStream"): one row per
 * relay, holding the last feed position it published. The relay of every API process claims it
 * with `FOR UPDATE SKIP LOCKED` (one publishes at a time, the others skip; a transaction-mode
 * pooler keeps a row lock for the transaction, unlike an advisory lock or LISTEN), publishes the
 * events after it in feed order, and moves it forward in the same transaction.
 */
export const { up } = statementsMigration([
  sql`
    create table event_relays (
      name text primary key,
      last_position bigint not null default 0,
      relayed_at timestamptz
    )
  `,
]);
