/**
 * Reading the feed from outside a page: where an event is, where the feed's head is (events.stream),
 * and the relays of the feed to a message bus (migration 0015): a relay publishes the feed's events in
 * feed order after the last position it recorded, and records how far it got.
 *
 * One relay at a time per name: `relayBatch` claims the relay's row with `FOR UPDATE SKIP
 * LOCKED` in a transaction that lasts for the batch's publishing, so a second server skips
 * ('busy') instead of publishing the same events, and a server that dies mid-batch releases the
 * row with its connection (the next one republishes from the recorded position; the bus drops
 * those duplicates by event id). A row lock lives as long as its transaction, which a
 * transaction-mode pooler (PgBouncer) keeps on one server connection; advisory locks and
 * LISTEN/NOTIFY do not survive such a pooler. On PGlite (one process owns the database) the
 * batch is published outside any transaction, so the single connection stays free for requests
 * while a publish waits.
 */
import type { Event } from '@signal/core';
import { type Kysely, sql } from 'kysely';
import type { Backend } from './connect.js';
import { toEvent } from './events.queries.js';
import type { Database } from './schema.js';

/** An event with its feed position. */
export interface PositionedEvent {
  position: string;
  event: Event;
}

/** What a batch's publishing got done: the position of the last event published, and its failure. */
export interface PublishOutcome {
  /** The last position published (in order, from the first); undefined when none was. */
  last: string | undefined;
  /** Set when publishing stopped on a failure; `relayBatch` records `last`, then throws it. */
  error?: unknown;
}

export type RelayBatchResult = 'busy' | { published: number; position: string };

/** Makes the relay's row (at position 0: it starts from the oldest event kept) if it has none. */
export async function ensureRelay(db: Kysely<Database>, name: string): Promise<void> {
  await db
    .insertInto('event_relays')
    .values({ name })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

/**
 * One batch: up to `batchSize` numbered events after the relay's position, handed to `publish`
 * in feed order; the position moves to the last one `publish` reports done. 'busy' when another
 * server holds the relay. A failure reported by `publish` is thrown after its progress is kept.
 */
export async function relayBatch(
  db: Kysely<Database>,
  backend: Backend,
  options: { name: string; batchSize: number },
  publish: (events: PositionedEvent[]) => Promise<PublishOutcome>,
): Promise<RelayBatchResult> {
  const run = async (trx: Kysely<Database>, lock: boolean): Promise<RelayBatchResult> => {
    const claimed = await sql<{ last_position: string }>`
      select last_position::text as last_position from event_relays where name = ${options.name}
      ${lock ? sql`for update skip locked` : sql``}
    `.execute(trx);
    const from = claimed.rows[0]?.last_position;
    if (from === undefined) return 'busy';
    const rows = await sql<{ id: string; type: string; data: unknown; occurred_at: Date; position: string }>`
      select e.id, e.type, e.data, e.occurred_at, e.position::text as position from events e
      where e.position > ${from}::bigint order by e.position limit ${options.batchSize}
    `.execute(trx);
    if (rows.rows.length === 0) return { published: 0, position: from };
    const outcome = await publish(rows.rows.map((row) => ({ position: row.position, event: toEvent(row) })));
    const published = outcome.last === undefined ? 0 : rows.rows.findIndex((row) => row.position === outcome.last) + 1;
    if (outcome.last !== undefined) {
      await sql`
        update event_relays set last_position = ${outcome.last}::bigint, relayed_at = now()
        where name = ${options.name} and last_position < ${outcome.last}::bigint
      `.execute(trx);
    }
    if (outcome.error !== undefined) throw new RelayPublishError(published, outcome.error);
    return { published, position: outcome.last ?? from };
  };
  if (backend === 'pglite') return run(db, false);
  // The progress of a failed batch must commit: the throw comes after the transaction.
  let failure: RelayPublishError | undefined;
  const result = await db.transaction().execute(async (trx) => {
    try {
      return await run(trx, true);
    } catch (error) {
      if (!(error instanceof RelayPublishError)) throw error;
      failure = error;
      return 'busy' as const;
    }
  });
  if (failure) throw failure;
  return result;
}

/** A batch that stopped on a publish failure, after `published` events went out (and were recorded). */
export class RelayPublishError extends Error {
  constructor(
    readonly published: number,
    override readonly cause: unknown,
  ) {
    super(`publishing stopped after ${published} events: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'RelayPublishError';
  }
}

/**
 * The feed position of the event `id` (where events.stream resumes after it), or undefined
 * when there is none (unknown, purged, or not numbered yet).
 */
export async function eventPosition(db: Kysely<Database>, id: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('events')
    .select(sql<string | null>`position::text`.as('position'))
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.position ?? undefined;
}

/**
 * The feed pump's poll (apps/api/src/ops/feed-pump.ts), one statement without a lock: the last
 * position given, and whether committed events wait for one (then `sequenceEvents` has work).
 */
export async function feedState(db: Kysely<Database>): Promise<{ head: string; unnumbered: boolean }> {
  const row = await sql<{ head: string | null; unnumbered: boolean }>`
    select (select last_position::text from event_feed_state) as head,
      exists (select 1 from events where position is null) as unnumbered
  `.execute(db);
  return { head: row.rows[0]?.head ?? '0', unnumbered: row.rows[0]?.unnumbered === true };
}

/**
 * Up to `limit` numbered events after `after`, with their positions, in feed order: the pump's
 * one read of a new page for every stream of its process.
 */
export async function readFeedAfter(db: Kysely<Database>, after: string, limit: number): Promise<PositionedEvent[]> {
  const rows = await sql<{ id: string; type: string; data: unknown; occurred_at: Date; position: string }>`
    select e.id, e.type, e.data, e.occurred_at, e.position::text as position from events e
    where e.position > ${after}::bigint order by e.position limit ${limit}
  `.execute(db);
  return rows.rows.map((row) => ({ position: row.position, event: toEvent(row) }));
}

/** The last position the feed has given (0 before any). */
export async function feedHead(db: Kysely<Database>): Promise<string> {
  const row = await db
    .selectFrom('event_feed_state')
    .select(sql<string>`last_position::text`.as('position'))
    .executeTakeFirst();
  return row?.position ?? '0';
}

/**
 * For the metrics: the relay's position (events published, since the database began) and how
 * long the oldest numbered event it has not published has waited, in seconds (0 when none).
 */
export async function relayFigures(
  db: Kysely<Database>,
  name: string,
): Promise<{ published: number; lagSeconds: number }> {
  const result = await sql<{ published: string | null; lag: number | null }>`
    select r.last_position::text as published,
      (select extract(epoch from now() - e.occurred_at)::float8 from events e
       where e.position > coalesce(r.last_position, 0) order by e.position limit 1) as lag
    from (select 1) one left join event_relays r on r.name = ${name}
  `.execute(db);
  const row = result.rows[0];
  return { published: Number(row?.published ?? 0), lagSeconds: Math.max(0, row?.lag ?? 0) };
}
