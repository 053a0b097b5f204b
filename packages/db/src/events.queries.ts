/**
 * The outbox (migration 0012): events written in the transaction of the change they announce.
 *
 * Writers call `appendEvents` with the transaction that makes the change (never with the
 * handle's own `db` on its own: the event must commit or roll back with its change). A hot
 * single statement may instead insert into `events` from one of its CTEs, as sign-in does, with
 * `eventRow` for the columns: either way the type is a value typed by core's EventType and the
 * data's fields are its schema's (EVENT_DATA_SCHEMAS), never an SQL literal the compiler cannot check.
 *
 * Ordering (migration 0012): an event's `seq` is taken when it is inserted; the sequencer below
 * gives it its feed position once it committed. Call `appendEvents` after the change's own
 * writes in its transaction (so after its row locks): two transactions changing the same row
 * then announce it in the order they commit.
 */
import type { Event, EventData, EventDraft, EventType } from '@signal/core';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { runCompiled } from './compiled-query.js';
import { isoTimestamp } from './paging.js';
import type { Database } from './schema.js';

/**
 * Writes `events` in the transaction `trx`, in this order. Nothing for an empty list (a change
 * that changed nothing announces nothing).
 */
export async function appendEvents(trx: Kysely<Database>, events: readonly EventDraft[]): Promise<void> {
  if (events.length === 0) return;
  // One compiled shape per list length: a change writes one or a few events.
  const values = events.flatMap((event) => [event.type, JSON.stringify(event.data)]);
  await runCompiled(trx, `appendEvents:${events.length}`, values, (...list) =>
    trx
      .insertInto('events')
      .values(events.map((_, i) => ({ type: list[2 * i] as string, data: list[2 * i + 1] as string }))),
  );
}

/**
 * The `type` and `data` columns of an event of type `T` made from a statement's own rows: one
 * SQL expression per field of T's data (its schema's keys, each required, none more), e.g.
 * `eventRow('session.revoked', { userId: sql.ref('ended.user_id'), sessionId: sql.ref('ended.id') })`
 * in the select that feeds an `insertInto('events')`. The type and the keys are parameters.
 */
export function eventRow<T extends EventType>(type: T, data: { [K in keyof EventData<T>]-?: RawBuilder<unknown> }) {
  const fields = Object.entries(data as Record<string, RawBuilder<unknown>>).map(
    ([key, value]) => sql`${key}::text, ${value}`,
  );
  return [
    sql<string>`${type}::text`.as('type'),
    sql<string>`jsonb_build_object(${sql.join(fields)})`.as('data'),
  ] as const;
}

/**
 * Numbers the committed events that have no feed position yet, in `seq` order, after the last
 * position given; up to `batchSize` of them. One server at a time: the others skip (0) while one
 * holds the state row, and the batch is read after that lock is taken, so it never numbers an
 * event twice and each batch numbers above the last. Returns how many it numbered.
 */
export async function sequenceEvents(db: Kysely<Database>, batchSize = 5_000): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const state = await trx
      .selectFrom('event_feed_state')
      .select('last_position')
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    if (!state) return 0;
    const result = await sql<{ numbered: string }>`
      with batch as (
        select seq, row_number() over (order by seq) as n
        from events where position is null order by seq limit ${batchSize}
      ), numbered as (
        update events e set position = ${state.last_position}::bigint + batch.n
        from batch where e.seq = batch.seq returning 1
      )
      update event_feed_state set last_position = last_position + (select count(*) from numbered)
      returning last_position - ${state.last_position}::bigint as numbered
    `.execute(trx);
    return Number(result.rows[0]?.numbered ?? 0);
  });
}

export interface FeedRequest {
  /** The position read up to (exclusive); '0' for the start of the feed. */
  after: string;
  limit: number;
  /** Only these types; all when undefined. */
  types?: readonly EventType[];
}

export interface FeedPage {
  items: Event[];
  /** The position to read after next: the last item's, or past what the type filter skipped. */
  last: string;
}

interface EventRow {
  id: string;
  type: string;
  data: unknown;
  occurred_at: Date;
  position: string;
}

/** The one place a stored event becomes a wire Event. */
export function toEvent(row: Pick<EventRow, 'id' | 'type' | 'data' | 'occurred_at'>): Event {
  return { id: row.id, type: row.type, occurredAt: row.occurred_at.toISOString(), data: row.data } as Event;
}

/**
 * `occurred_at` as the wire's ISO 8601 text, made by PostgreSQL: the same string as
 * `toISOString()` of the Date pg would give (UTC, milliseconds, the microseconds cut off as the
 * Date cuts them), without pg's Date parsing, which was a third of a feed page's CPU in the API
 * (apps/bench/LAB-NOTES.md, "Events: the feed").
 */
const OCCURRED_AT_ISO = isoTimestamp('e.occurred_at');

/**
 * Up to `limit` sequenced events after the position `after`, in feed order. Read in one statement
 * (one snapshot) with the last position given so far, so a filtered page that comes back short
 * can move its cursor past everything the filter skipped, and nothing that arrives meanwhile.
 */
export async function readFeed(db: Kysely<Database>, request: FeedRequest): Promise<FeedPage> {
  const types = request.types ? sql`and e.type = any(${[...request.types]}::text[])` : sql``;
  const result = await sql<Omit<EventRow, 'occurred_at'> & { occurred_at: string; last_position: string }>`
    select p.*, m.last_position
    from (select coalesce(max(position), 0)::text as last_position from events) m
    left join lateral (
      select e.id, e.type, e.data, ${OCCURRED_AT_ISO} as occurred_at, e.position::text as position from events e
      where e.position > ${request.after}::bigint ${types}
      order by e.position limit ${request.limit}
    ) p on true
  `.execute(db);
  const rows = result.rows.filter((row) => row.position !== null);
  const lastGiven = result.rows[0]?.last_position ?? '0';
  const full = rows.length === request.limit;
  let last = full ? rows.at(-1)!.position : lastGiven;
  // Never back: after a purge of everything, the last position given may read as 0.
  if (BigInt(last) < BigInt(request.after)) last = request.after;
  const items = rows.map(
    (row) => ({ id: row.id, type: row.type, occurredAt: row.occurred_at, data: row.data }) as Event,
  );
  return { items, last };
}

/** Deletes events older than `before`, in bounded batches; how many. */
export async function purgeEvents(
  db: Kysely<Database>,
  options: { before: Date; batchSize?: number; maxBatches?: number },
): Promise<number> {
  const batchSize = options.batchSize ?? 1_000;
  let total = 0;
  for (let i = 0; i < (options.maxBatches ?? 100); i++) {
    const result = await sql`
      delete from events where seq in (
        select seq from events where occurred_at < ${options.before} and position is not null
        limit ${batchSize} for update skip locked)
    `.execute(db);
    const deleted = Number(result.numAffectedRows ?? 0);
    total += deleted;
    if (deleted < batchSize) break;
  }
  return total;
}

/**
 * For the metrics: how many events the feed has numbered (every committed event, since the
 * database began), and how long the oldest committed event not yet numbered has waited, in
 * seconds (0 when none waits): the feed's lag.
 */
export async function feedFigures(db: Kysely<Database>): Promise<{ numbered: number; lagSeconds: number }> {
  const row = await sql<{ numbered: string; lag: number | null }>`
    select (select last_position from event_feed_state)::text as numbered,
      (select extract(epoch from now() - min(occurred_at))::float8 from events where position is null) as lag
  `.execute(db);
  const figures = row.rows[0];
  return { numbered: Number(figures?.numbered ?? 0), lagSeconds: Math.max(0, figures?.lag ?? 0) };
}
