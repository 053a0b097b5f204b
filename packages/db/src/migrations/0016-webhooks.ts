import { sql } from 'kysely';
import { statementsMigration } from './statements.js';

/**
 * Webhooks (docs/events.md, "Webhooks"): endpoints, one delivery per (event, endpoint), and the
 * log of attempts.
 *
 * Fan-out: the delivery workers of every server walk the feed (event positions, 0012b) under the
 * lock of webhook_fanout_state's row, FOR UPDATE SKIP LOCKED, and insert one delivery per
 * matching enabled endpoint; the row keeps the last position fanned out. (A row lock, not an
 * advisory lock or LISTEN: both are lost behind a transaction-mode pooler such as PgBouncer.)
 *
 * Delivery: a worker claims due deliveries in one short statement (FOR UPDATE SKIP LOCKED) by
 * setting a lease (`lease` and a `next_attempt_at` past the attempt's timeout), makes the HTTP
 * attempt outside any transaction, then records the outcome where the lease is still its own. A
 * server killed mid-attempt leaves the lease to run out; another server then claims it.
 */
export const { up } = statementsMigration([
  sql`
    create table webhook_endpoints (
      id text primary key,
      url text not null,
      types text[] not null,
      description text,
      secret text not null,
      enabled boolean not null default true,
      -- Events that occurred before this (creation, or the last re-enabling) are not delivered.
      enabled_since timestamptz not null default now(),
      -- The first failed attempt since the last success: WEBHOOK_DISABLE_AFTER counts from here.
      failing_since timestamptz,
      disabled_reason text,
      created_at timestamptz not null default now()
    )
  `,
  sql`
    create table webhook_deliveries (
      id bigint generated always as identity primary key,
      endpoint_id text not null references webhook_endpoints (id) on delete cascade,
      event_id text not null,
      event_occurred_at timestamptz not null,
      status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
      attempts integer not null default 0,
      next_attempt_at timestamptz not null default now(),
      -- Set while a worker holds it for an attempt (its token); null otherwise.
      lease text,
      -- When it last became pending (fan-out, or the failed attempt before this retry).
      scheduled_at timestamptz not null default now(),
      last_response_status integer,
      last_error text,
      finished_at timestamptz,
      unique (endpoint_id, event_id)
    )
  `,
  // What is due, per endpoint (the claim walks the enabled endpoints and takes each one's oldest).
  sql`
    create index webhook_deliveries_due_idx on webhook_deliveries (endpoint_id, next_attempt_at)
      where status = 'pending'
  `,
  // The oldest undelivered event's age (metrics), and the purge of finished deliveries.
  sql`
    create index webhook_deliveries_pending_age_idx on webhook_deliveries (event_occurred_at)
      where status = 'pending'
  `,
  sql`
    create index webhook_deliveries_finished_idx on webhook_deliveries (finished_at)
      where finished_at is not null
  `,
  sql`
    create table webhook_attempts (
      id bigint generated always as identity primary key,
      delivery_id bigint not null references webhook_deliveries (id) on delete cascade,
      endpoint_id text not null,
      event_id text not null,
      attempt integer not null,
      status text not null check (status in ('succeeded', 'failed')),
      response_status integer,
      error text,
      at timestamptz not null default now()
    )
  `,
  // The deliveries log, newest first, per endpoint.
  sql`
    create index webhook_attempts_log_idx on webhook_attempts (endpoint_id, at desc, id desc)
  `,
  sql`
    create index webhook_attempts_delivery_idx on webhook_attempts (delivery_id)
  `,
  sql`
    create table webhook_fanout_state (
      id boolean primary key default true check (id),
      last_position bigint not null default 0
    )
  `,
  // From the feed's head: events from before webhooks existed go to nobody.
  sql`
    insert into webhook_fanout_state (id, last_position)
      select true, last_position from event_feed_state
  `,
]);
