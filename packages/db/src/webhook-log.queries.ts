/**
 * What webhook deliveries leave behind (migration 0016; docs/events.md, "Webhooks"): an
 * endpoint's deliveries log, newest first, its purge, and the figures /metrics shows. The
 * deliveries themselves are made and attempted in webhook-delivery.queries.ts.
 */
import { type Kysely, sql } from 'kysely';
import { inBatches } from './purge.queries.js';
import type { Database } from './schema.js';

export interface DeliveryLogPosition {
  atMicros: string;
  /** 0: an attempt made; 1: a pending one. */
  kind: 0 | 1;
  id: string;
}

export interface DeliveryLogRow {
  position: DeliveryLogPosition;
  eventId: string;
  attempt: number;
  status: 'succeeded' | 'failed' | 'pending';
  responseStatus: number | null;
  at: string;
  nextAttemptAt: string | null;
}

/**
 * An endpoint's attempts, newest first, after `before`: the attempts made, and its pending
 * deliveries as the attempt waiting to run (the next attempt's number, scheduled when it became
 * pending). Up to `limit` rows.
 */
export async function readDeliveryLog(
  db: Kysely<Database>,
  request: { endpointId: string; before?: DeliveryLogPosition; limit: number },
): Promise<DeliveryLogRow[]> {
  const before = request.before;
  const cursor = (at: ReturnType<typeof sql>, kind: 0 | 1, id: ReturnType<typeof sql>) =>
    before
      ? sql`and (${at}, ${kind}::int, ${id}) < (
          'epoch'::timestamptz + ${before.atMicros}::bigint * interval '1 microsecond', ${before.kind}::int,
          ${before.id}::bigint)`
      : sql``;
  const result = await sql<{
    at_micros: string;
    kind: 0 | 1;
    id: string;
    event_id: string;
    attempt: number;
    status: DeliveryLogRow['status'];
    response_status: number | null;
    at: Date;
    next_attempt_at: Date | null;
  }>`
    select (extract(epoch from x.at) * 1000000)::bigint::text as at_micros, x.kind, x.id::text as id, x.event_id,
      x.attempt, x.status, x.response_status, x.at, x.next_attempt_at
    from (
      (select a.at, 0 as kind, a.id, a.event_id, a.attempt, a.status, a.response_status,
         null::timestamptz as next_attempt_at
       from webhook_attempts a
       where a.endpoint_id = ${request.endpointId} ${cursor(sql`a.at`, 0, sql`a.id`)}
       order by a.at desc, a.id desc limit ${request.limit})
      union all
      (select d.scheduled_at, 1, d.id, d.event_id, d.attempts + 1, 'pending', null, d.next_attempt_at
       from webhook_deliveries d
       where d.endpoint_id = ${request.endpointId} and d.status = 'pending'
         ${cursor(sql`d.scheduled_at`, 1, sql`d.id`)}
       order by d.scheduled_at desc, d.id desc limit ${request.limit})
    ) x
    order by x.at desc, x.kind desc, x.id desc
    limit ${request.limit}
  `.execute(db);
  return result.rows.map((row) => ({
    position: { atMicros: row.at_micros, kind: Number(row.kind) as 0 | 1, id: row.id },
    eventId: row.event_id,
    attempt: row.attempt,
    status: row.status,
    responseStatus: row.response_status,
    at: row.at.toISOString(),
    nextAttemptAt: row.next_attempt_at ? row.next_attempt_at.toISOString() : null,
  }));
}

/** Deletes deliveries (with their log) finished before `before`, in bounded batches; how many. */
export async function purgeWebhookDeliveries(
  db: Kysely<Database>,
  options: { before: Date; batchSize?: number; maxBatches?: number },
): Promise<number> {
  const batchSize = options.batchSize ?? 1_000;
  return inBatches(options.maxBatches ?? 100, batchSize, async () => {
    const result = await sql`
      delete from webhook_deliveries where id in (
        select id from webhook_deliveries where finished_at < ${options.before}
        limit ${batchSize} for update skip locked)
    `.execute(db);
    return Number(result.numAffectedRows ?? 0);
  });
}

/**
 * For the metrics: deliveries waiting (pending), and the age in seconds of the oldest event one
 * of them carries (0 when none waits).
 */
export async function webhookFigures(db: Kysely<Database>): Promise<{ pending: number; oldestAgeSeconds: number }> {
  const result = await sql<{ pending: string; age: number | null }>`
    select (select count(*) from webhook_deliveries where status = 'pending')::text as pending,
      (select extract(epoch from now() - min(event_occurred_at))::float8 from webhook_deliveries
       where status = 'pending') as age
  `.execute(db);
  const row = result.rows[0];
  return { pending: Number(row?.pending ?? 0), oldestAgeSeconds: Math.max(0, row?.age ?? 0) };
}
