/**
 * Webhook deliveries (migration 0016; docs/events.md, "Webhooks"): the fan-out of sequenced
 * events into deliveries, the claim and the outcome of delivery attempts
 * (its log, purge and figures: webhook-log.queries.ts). The endpoints are in webhook.queries.ts.
 *
 * Every statement here is short (one statement, or a few in one transaction, never across an
 * HTTP call) and takes row locks only, so it works behind a transaction-mode pooler.
 */
import { type Kysely, sql } from 'kysely';
import { runCompiled } from './compiled-query.js';
import type { Database } from './schema.js';
import { failPendingDeliveries } from './webhook-pending.js';

/** What a worker's poll may find to do; each false means that step would find nothing now. */
export interface PendingWork {
  /** The feed numbered past the last fan-out: `fanOutEvents` has work. */
  behind: boolean;
  /** A pending delivery of an enabled endpoint is due: `claimDeliveries` may claim it. */
  due: boolean;
}

/**
 * An idle worker's poll in one compiled statement (two index probes, no lock, no
 * transaction): whether fan-out or a claim would find anything (numbering is the feed pump's:
 * apps/api/src/ops/feed-pump.ts). Each step's own
 * statement decides under its lock; a change committed after this read is found by the next
 * poll, as it would be had it come right after those statements. Without it an idle worker ran
 * two transactions (eight round trips) and a claim five times a second on every server.
 */
export async function pendingWork(db: Kysely<Database>): Promise<PendingWork> {
  const [row] = await runCompiled(db, 'pendingWork', [], () =>
    db.selectNoFrom([
      sql<boolean>`coalesce((select last_position from event_feed_state) > (select last_position from webhook_fanout_state), false)`.as(
        'behind',
      ),
      sql<boolean>`exists (
        select 1 from webhook_endpoints w join webhook_deliveries d on d.endpoint_id = w.id
        where w.enabled and d.status = 'pending' and d.next_attempt_at <= now())`.as('due'),
    ]),
  );
  return { behind: row?.behind === true, due: row?.due === true };
}

/**
 * Turns the events the feed has numbered since the last fan-out into deliveries: one per
 * enabled endpoint whose types match, for events that occurred while it was enabled. One server
 * at a time (the others skip while one holds the state row); up to `batchSize` events.
 */
export async function fanOutEvents(
  db: Kysely<Database>,
  batchSize = 1_000,
): Promise<{ events: number; deliveries: number }> {
  return db.transaction().execute(async (trx) => {
    const state = await sql<{ last_position: string }>`
      select last_position::text from webhook_fanout_state for update skip locked
    `.execute(trx);
    const last = state.rows[0]?.last_position;
    if (last === undefined) return { events: 0, deliveries: 0 };
    // A fresh statement after the lock: it sees every batch numbered before the last fan-out.
    const result = await sql<{ events: string; deliveries: string }>`
      with batch as (
        select e.id, e.type, e.occurred_at, e.position from events e
        where e.position > ${last}::bigint order by e.position limit ${batchSize}
      ), inserted as (
        insert into webhook_deliveries (endpoint_id, event_id, event_occurred_at)
        select w.id, b.id, b.occurred_at from batch b
        join webhook_endpoints w on w.enabled and b.occurred_at >= w.enabled_since
          and (w.types = array['*'] or b.type = any(w.types))
        on conflict (endpoint_id, event_id) do nothing
        returning 1
      ), moved as (
        update webhook_fanout_state set last_position = (select max(position) from batch)
        where exists (select 1 from batch) returning 1
      )
      select (select count(*) from batch)::text as events, (select count(*) from inserted)::text as deliveries,
        (select count(*) from moved) as moved
    `.execute(trx);
    const row = result.rows[0];
    return { events: Number(row?.events ?? 0), deliveries: Number(row?.deliveries ?? 0) };
  });
}

export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  url: string;
  secret: string;
  /** Attempts made before this one. */
  attempts: number;
  eventId: string;
  /** The event; undefined when it is no longer kept (purged before its delivery ran). */
  event?: { type: string; occurredAt: string; data: unknown };
}

/**
 * Claims up to `limit` due deliveries for attempts by this worker (`token`), oldest due first per
 * endpoint: for an endpoint named in `rooms`, at most that many (the worker's slots left for it);
 * for every other enabled endpoint, at most `otherRoom` (0: none). The worker chooses the rooms
 * (webhook-worker.ts: fair shares, so slow endpoints never take every slot). Endpoints are
 * walked in random order, so none is always last. Each claimed row gets a lease: it is due again
 * `leaseMs` from now unless its outcome is recorded first.
 */
export async function claimDeliveries(
  db: Kysely<Database>,
  options: {
    token: string;
    limit: number;
    rooms: ReadonlyMap<string, number>;
    otherRoom: number;
    leaseMs: number;
  },
): Promise<ClaimedDelivery[]> {
  if (options.limit <= 0) return [];
  const roomIds = [...options.rooms.keys()];
  const roomCounts = roomIds.map((id) => Math.max(0, options.rooms.get(id) ?? 0));
  const result = await sql<{
    id: string;
    endpoint_id: string;
    url: string;
    secret: string;
    attempts: number;
    event_id: string;
    type: string | null;
    data: unknown;
    occurred_at: Date | null;
  }>`
    with rooms as (
      select * from unnest(${roomIds}::text[], ${roomCounts}::int[]) as r(endpoint_id, room)
    ), picked as (
      select d.id from (
        select w.id as endpoint_id, coalesce(r.room, ${Math.max(0, options.otherRoom)}::int) as room
        from webhook_endpoints w left join rooms r on r.endpoint_id = w.id
        where w.enabled and coalesce(r.room, ${Math.max(0, options.otherRoom)}::int) > 0
        order by random()
      ) w
      cross join lateral (
        select d.id from webhook_deliveries d
        where d.endpoint_id = w.endpoint_id and d.status = 'pending' and d.next_attempt_at <= now()
        order by d.next_attempt_at
        limit w.room
        for update skip locked
      ) d
      limit ${options.limit}
    ), claimed as (
      update webhook_deliveries d set lease = ${options.token},
        next_attempt_at = now() + ${options.leaseMs}::bigint * interval '1 millisecond'
      from picked where d.id = picked.id
      returning d.id, d.endpoint_id, d.event_id, d.attempts
    )
    select c.id::text as id, c.endpoint_id, w.url, w.secret, c.attempts, c.event_id, e.type, e.data, e.occurred_at
    from claimed c
    join webhook_endpoints w on w.id = c.endpoint_id
    left join events e on e.id = c.event_id
  `.execute(db);
  return result.rows.map((row) => ({
    id: row.id,
    endpointId: row.endpoint_id,
    url: row.url,
    secret: row.secret,
    attempts: row.attempts,
    eventId: row.event_id,
    ...(row.type && row.occurred_at
      ? { event: { type: row.type, occurredAt: row.occurred_at.toISOString(), data: row.data } }
      : {}),
  }));
}

export interface DeliveryOutcome {
  id: string;
  endpointId: string;
  /** succeeded: a 2xx; retry: failed, try again in `retryInMs`; failed: failed, no more attempts. */
  outcome: 'succeeded' | 'retry' | 'failed';
  retryInMs?: number;
  responseStatus: number | null;
  error: string | null;
  /** The receiver answered 410 Gone: disable the endpoint. */
  gone?: boolean;
}

export type RecordedStatus = 'succeeded' | 'pending' | 'failed';

/**
 * Records the outcomes of attempts this worker (`token`) made, in one transaction: each one's
 * delivery (only where the lease is still this worker's: one that ran out and was claimed again
 * belongs to the new holder) and a row of the log; endpoints that answered 410, or that have
 * failed every attempt since `disableAfterMs` ago, are disabled, and their pending deliveries
 * fail. Returns the status each recorded delivery has now, and the endpoints disabled.
 */
export async function recordDeliveryOutcomes(
  db: Kysely<Database>,
  token: string,
  outcomes: readonly DeliveryOutcome[],
  disableAfterMs: number,
): Promise<{ statuses: RecordedStatus[]; disabled: string[] }> {
  if (outcomes.length === 0) return { statuses: [], disabled: [] };
  const byEndpoint = new Map<string, { ok: boolean; gone: boolean }>();
  for (const outcome of outcomes) {
    const seen = byEndpoint.get(outcome.endpointId) ?? { ok: false, gone: false };
    seen.ok ||= outcome.outcome === 'succeeded';
    seen.gone ||= outcome.gone === true;
    byEndpoint.set(outcome.endpointId, seen);
  }
  // Sorted: every writer locks endpoints in id order, so two servers never deadlock.
  const endpointIds = [...byEndpoint.keys()].sort();
  return db.transaction().execute(async (trx) => {
    await sql`
      select id from webhook_endpoints where id = any(${endpointIds}::text[]) order by id for update
    `.execute(trx);
    // A success ends a failing streak; a failure starts one (or continues it).
    await sql`
      update webhook_endpoints w
      set failing_since = case when o.ok then null else coalesce(w.failing_since, now()) end
      from unnest(${endpointIds}::text[], ${endpointIds.map((id) => byEndpoint.get(id)!.ok)}::boolean[]) as o(id, ok)
      where w.id = o.id
    `.execute(trx);
    const disabled = await sql<{ id: string }>`
      update webhook_endpoints w
      set enabled = false,
        disabled_reason = case when o.gone then 'the receiver answered 410 Gone' else 'failing every attempt' end
      from unnest(${endpointIds}::text[], ${endpointIds.map((id) => byEndpoint.get(id)!.gone)}::boolean[]) as o(id, gone)
      where w.id = o.id and w.enabled and (o.gone or w.failing_since <= now() - ${disableAfterMs}::bigint * interval '1 millisecond')
      returning w.id
    `.execute(trx);
    const disabledIds = disabled.rows.map((row) => row.id);
    if (disabledIds.length > 0) await failPendingDeliveries(trx, disabledIds, 'endpoint disabled');
    const recorded = await sql<{ id: string; status: RecordedStatus }>`
      with r as (
        select * from unnest(
          ${outcomes.map((o) => o.id)}::bigint[], ${outcomes.map((o) => o.outcome)}::text[],
          ${outcomes.map((o) => Math.round(o.retryInMs ?? 0))}::bigint[],
          ${outcomes.map((o) => o.responseStatus)}::int[], ${outcomes.map((o) => o.error)}::text[]
        ) as r(id, outcome, retry_ms, response_status, error)
      ), s as (
        select r.*, case
          when r.outcome = 'succeeded' then 'succeeded'
          when r.outcome = 'failed' or not w.enabled or d.status = 'failed' then 'failed'
          else 'pending' end as status
        from r join webhook_deliveries d on d.id = r.id join webhook_endpoints w on w.id = d.endpoint_id
      ), updated as (
        update webhook_deliveries d set
          attempts = d.attempts + 1, status = s.status, lease = null, scheduled_at = now(),
          next_attempt_at = case when s.status = 'pending' then now() + s.retry_ms * interval '1 millisecond'
            else d.next_attempt_at end,
          finished_at = case when s.status = 'pending' then null else now() end,
          last_response_status = s.response_status, last_error = s.error
        from s where d.id = s.id and d.lease = ${token}
        returning d.id, d.endpoint_id, d.event_id, d.attempts, s.outcome, s.status, s.response_status, s.error
      ), logged as (
        -- A data-modifying CTE runs whether or not it is read.
        insert into webhook_attempts (delivery_id, endpoint_id, event_id, attempt, status, response_status, error)
        select id, endpoint_id, event_id, attempts, case when outcome = 'succeeded' then 'succeeded' else 'failed' end,
          response_status, error
        from updated
      )
      select id::text as id, status from updated
    `.execute(trx);
    return { statuses: recorded.rows.map((row) => row.status), disabled: disabledIds };
  });
}

/** Gives deliveries this worker holds back, due at once (another server may take them). */
export async function releaseDeliveries(db: Kysely<Database>, token: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await sql`
    update webhook_deliveries set lease = null, next_attempt_at = now()
    where id = any(${[...ids]}::bigint[]) and lease = ${token}
  `.execute(db);
}

/** A position in the deliveries log: the row's time in microseconds, its kind, its id. */
