/**
 * Reading signals (migrations 0019, 0022; CONTRACT.md, Version 4, "Signals"): `readSignals`, the one
 * reader of the wire Signal (by keys or by log indexes) for any reader class, which the routes,
 * `signals.live` and an auditor call; and the newest-first pages of signal keys, a provider's and
 * a follower's. Reads show what the tree holds: a signal once its open is in the tree, each
 * statement once it is (signal.queries.ts writes them; the sequencer places them).
 */
import type { Signal, SignalStatus } from '@signal/core';
import { projectSignal, type SignalStatementRecord, type SignalStatementType } from '@signal/core/statements';
import { type Kysely, sql } from 'kysely';
import { exactTimestamp, isoTimestamp } from './paging.js';
import type { Database } from './schema.js';

/** A signal by its provider and id. */
export interface SignalKey {
  providerId: number;
  id: string;
}

export type SignalQuery =
  | { keys: readonly SignalKey[] }
  | {
      /**
       * Each index is a signal statement's: its signal as that statement left it (the statements
       * up to it), for a stream replaying the log. Other indexes are left out.
       */
      logIndexes: readonly number[];
    };

/** Who reads: `full` for everything (a `signals:read` key, a statement's answer) or per provider (a follower's). */
export interface SignalReadAs {
  full: boolean | ((providerId: number) => boolean);
  /** The read's clock: the reveal and the expiry are judged at it. */
  now: Date;
}

interface StatementRow {
  at: number;
  provider_id: number;
  signal_id: string;
  published_at: string;
  reveal_at: string;
  log_index: number;
  type: SignalStatementType;
  received_at: string;
  commitment: string;
  statement: string;
  signer: string;
  signature: string;
}

const STATEMENT_COLUMNS = sql`
  g.provider_id, g.id as signal_id, ${isoTimestamp('g.published_at')} as published_at,
  ${isoTimestamp('g.reveal_at')} as reveal_at, st.log_index, st.type, ${isoTimestamp('st.received_at')} as received_at,
  st.commitment, st.statement, st.signer, st.signature
`;

/**
 * The wire Signals of `query` as `as` sees them (see the file's comment): only signals of live
 * providers whose open is in the tree, each with its statements in the tree, in log order. By
 * keys: in the keys' order, the missing ones left out. By log indexes: `Map` from each index
 * found to its signal then.
 */
export async function readSignals(
  db: Kysely<Database>,
  query: { keys: readonly SignalKey[] },
  as: SignalReadAs,
): Promise<Signal[]>;
export async function readSignals(
  db: Kysely<Database>,
  query: { logIndexes: readonly number[] },
  as: SignalReadAs,
): Promise<Map<number, Signal>>;
export async function readSignals(
  db: Kysely<Database>,
  query: SignalQuery,
  as: SignalReadAs,
): Promise<Signal[] | Map<number, Signal>> {
  const rows =
    'keys' in query
      ? query.keys.length === 0
        ? []
        : (
            await sql<StatementRow>`
              select w.n as at, ${STATEMENT_COLUMNS}
              from unnest(${query.keys.map((k) => k.providerId)}::bigint[], ${query.keys.map((k) => k.id)}::text[])
                with ordinality as w (provider_id, id, n)
              join signals g on g.provider_id = w.provider_id and g.id = w.id and g.open_log_index is not null
              join providers p on p.id = g.provider_id and p.archived_at is null
              join signal_statements st on st.provider_id = g.provider_id and st.signal_id = g.id
                and st.log_index is not null
              order by w.n, st.log_index
            `.execute(db)
          ).rows
      : query.logIndexes.length === 0
        ? []
        : (
            await sql<StatementRow>`
              select w.log_index as at, ${STATEMENT_COLUMNS}
              from signal_statements w
              join signals g on g.provider_id = w.provider_id and g.id = w.signal_id
              join providers p on p.id = g.provider_id and p.archived_at is null
              join signal_statements st on st.provider_id = g.provider_id and st.signal_id = g.id
                and st.log_index <= w.log_index
              where w.log_index = any(${query.logIndexes.map(Number)}::bigint[])
              order by w.log_index, st.log_index
            `.execute(db)
          ).rows;
  const groups = new Map<number, StatementRow[]>();
  for (const row of rows) {
    const at = Number(row.at);
    const group = groups.get(at);
    if (group) group.push(row);
    else groups.set(at, [row]);
  }
  const now = as.now.getTime();
  const signals = new Map<number, Signal>();
  for (const [at, group] of groups) {
    const first = group[0]!;
    const providerId = Number(first.provider_id);
    const full = typeof as.full === 'function' ? as.full(providerId) : as.full;
    signals.set(
      at,
      projectSignal(
        {
          id: first.signal_id,
          providerId,
          publishedAt: first.published_at,
          revealAt: first.reveal_at,
          statements: group.map(
            (row): SignalStatementRecord => ({
              logIndex: Number(row.log_index),
              type: row.type,
              receivedAt: row.received_at,
              commitment: row.commitment,
              statement: row.statement,
              signer: row.signer,
              signature: row.signature,
            }),
          ),
        },
        { full, now },
      ),
    );
  }
  return 'keys' in query ? [...signals.values()] : signals;
}

/** A signal's place in the newest-first order: its `publishedAt` as the database compares it, its open's index. */
export interface SignalPosition {
  /** `published_at` to the microsecond (exactTimestamp). */
  publishedAt: string;
  logIndex: number;
}

export interface SignalPageRequest {
  limit: number;
  after?: SignalPosition;
  /** Only these statuses (all when absent); `expired` and `open` are judged at `now`. */
  statuses?: readonly SignalStatus[];
  now: Date;
}

/** A page of signal keys newest first, and the position of the last when another page follows. */
export interface SignalKeyPage {
  keys: { providerId: number; id: string }[];
  next: SignalPosition | null;
}

interface KeyRow {
  provider_id: number;
  id: string;
  position: string;
  open_log_index: number;
}

function statusCondition(statuses: readonly SignalStatus[] | undefined, now: Date) {
  if (!statuses || statuses.length === 0) return sql`true`;
  const parts = statuses.map((status) => {
    switch (status) {
      case 'open':
        return sql`(s.status = 'open' and (s.expires_at is null or s.expires_at > ${now}))`;
      case 'expired':
        return sql`(s.status = 'open' and s.expires_at <= ${now})`;
      default:
        return sql`s.status = ${status}`;
    }
  });
  return sql`(${sql.join(parts, sql` or `)})`;
}

const afterCondition = (after: SignalPosition | undefined) =>
  after
    ? sql`(s.published_at, s.open_log_index) < (${after.publishedAt}::timestamptz, ${after.logIndex}::bigint)`
    : sql`true`;

function keyPage(rows: KeyRow[], limit: number): SignalKeyPage {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    keys: page.map((row) => ({ providerId: Number(row.provider_id), id: row.id })),
    next: rows.length > limit && last ? { publishedAt: last.position, logIndex: Number(last.open_log_index) } : null,
  };
}

/**
 * A page of a live provider's signals newest first (`published_at desc, open_log_index desc`,
 * keyset after `after`); null when the provider is unknown or archived.
 */
export async function listProviderSignalKeys(
  db: Kysely<Database>,
  providerId: number,
  request: SignalPageRequest,
): Promise<SignalKeyPage | null> {
  const result = await sql<KeyRow>`
    select s.provider_id, s.id, ${exactTimestamp('s.published_at')} as position, s.open_log_index
    from signals s
    where s.provider_id = ${providerId}
      and exists (select 1 from providers p where p.id = ${providerId} and p.archived_at is null)
      and s.open_log_index is not null
      and ${afterCondition(request.after)} and ${statusCondition(request.statuses, request.now)}
    order by s.published_at desc, s.open_log_index desc
    limit ${request.limit + 1}
  `.execute(db);
  if (result.rows.length === 0 && !(await isLiveProvider(db, providerId))) return null;
  return keyPage(result.rows, request.limit);
}

/** Everyone's signals walked per key of a page by `listFollowedSignalKeys`'s first strategy. */
export const FOLLOWED_WINDOW_PER_KEY = 100;

/**
 * A page of the signals of the live providers `userId` follows now, newest first; one statement,
 * two strategies (docs/design.md, "Follower feeds"): (1) signals_newest_idx from the position,
 * (limit + 1) × FOLLOWED_WINDOW_PER_KEY entries at most, keeping the followed providers': limit +
 * 1 found are the page; (2) only when fewer are (quiet follows, the history's end), one walk of
 * signals_provider_newest_idx per followed provider, limit + 1 keys each, merged. The position is
 * a row comparison in each walk's index condition, never an offset: the depth costs nothing.
 */
export async function listFollowedSignalKeys(
  db: Kysely<Database>,
  userId: number,
  request: SignalPageRequest,
): Promise<SignalKeyPage> {
  const keys = request.limit + 1;
  const result = await sql<KeyRow>`
    with followed as materialized (select f.provider_id from follows f where f.user_id = ${userId}), recent as (
      -- offset 0: the archived check runs on the sorted hits until the page is full; the order by
      -- again beside the limit, which the planner's join for that check may reorder (an audit).
      select h.provider_id, h.id, h.published_at, h.open_log_index
      from (
        select w.provider_id, w.id, w.published_at, w.open_log_index
        from (
          select s.provider_id, s.id, s.published_at, s.open_log_index
          from signals s
          where s.open_log_index is not null and ${afterCondition(request.after)}
          order by s.published_at desc, s.open_log_index desc
          limit ${keys * FOLLOWED_WINDOW_PER_KEY}
        ) w
        where w.provider_id in (select provider_id from followed)
        order by w.published_at desc, w.open_log_index desc
        offset 0
      ) h
      where exists (select 1 from providers p where p.id = h.provider_id and p.archived_at is null)
      order by h.published_at desc, h.open_log_index desc
      limit ${keys}
    ), merged as (
      select x.provider_id, x.id, x.published_at, x.open_log_index
      from followed f
      join providers p on p.id = f.provider_id and p.archived_at is null
      cross join lateral (
        select s.provider_id, s.id, s.published_at, s.open_log_index
        from signals s
        where s.provider_id = f.provider_id and s.open_log_index is not null and ${afterCondition(request.after)}
        order by s.published_at desc, s.open_log_index desc
        limit ${keys}
      ) x
      where (select count(*) from recent) < ${keys}
      order by x.published_at desc, x.open_log_index desc
      limit ${keys}
    )
    select r.provider_id, r.id, ${exactTimestamp('r.published_at')} as position, r.open_log_index
    from (select * from recent where (select count(*) from recent) >= ${keys} union all select * from merged) r
    order by r.published_at desc, r.open_log_index desc
  `.execute(db);
  return keyPage(result.rows, request.limit);
}

/** Whether `userId` follows `providerId` now (a signal read's reader class). */
export async function followsProvider(db: Kysely<Database>, userId: number, providerId: number): Promise<boolean> {
  const result = await sql`select 1 from follows where user_id = ${userId} and provider_id = ${providerId}`.execute(db);
  return result.rows.length > 0;
}

/** Whether the provider exists and is not archived (a signal read's 404s tell the two apart). */
export async function isLiveProvider(db: Kysely<Database>, providerId: number): Promise<boolean> {
  const result = await sql`select 1 from providers where id = ${providerId} and archived_at is null`.execute(db);
  return result.rows.length > 0;
}
