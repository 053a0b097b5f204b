/**
 * Paging shared by every listing: the request (a page number, or a cursor's position), the
 * envelope of the answer, and the newest-first keyset walk of a user's follows and sessions.
 */
import { type SelectQueryBuilder, sql } from 'kysely';

export interface PageRequest {
  page: number;
  limit: number;
}

/** Where a cursor points: the sort key and id of the last item served. */
export interface CursorAt {
  /** null: the last item's sort key was null (nulls sort last). */
  key: string | number | null;
  id: number;
}

/**
 * Paging by page number, or after a cursor's position (`after`; then `page` is ignored and
 * answered as null). `seal` turns the last item's position into the next page's cursor; without
 * it there is none.
 */
export interface Paging {
  page?: number;
  limit: number;
  after?: CursorAt;
  seal?: (at: CursorAt) => string;
}

export interface PageResult<T> {
  items: T[];
  page: number | null;
  limit: number;
  total: number;
  totalPages: number;
  nextCursor: string | null;
}

/** The envelope of every paged listing; nextCursor null unless given (the last page, or no cursors). */
export function pageResult<T>(
  items: T[],
  request: { page?: number | null; limit: number },
  total: number,
  nextCursor: string | null = null,
): PageResult<T> {
  return {
    items,
    page: request.page ?? null,
    limit: request.limit,
    total,
    totalPages: Math.ceil(total / request.limit),
    nextCursor,
  };
}

/**
 * created_at as the database compares it (microseconds, which a JS Date would round), in a
 * form independent of the session's DateStyle and TimeZone: the cursor's key for that sort.
 */
export const exactTimestamp = (column: string) =>
  sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * A timestamp as the wire writes it, made by PostgreSQL: the same text as `toISOString()` of the
 * Date pg would parse it into (UTC, milliseconds, the microseconds cut off as that Date cuts them),
 * without the Date. pg's timestamp parser (a regex and a Date per value) then `toISOString()` cost
 * more than the rest of a catalogue row's reading (apps/bench/BENCH.md, issue 25's counts). A
 * provider's created_at, the feed's occurred_at and a user's wallets' dates are read this way.
 */
export const isoTimestamp = (column: string) =>
  sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * One page of `total` rows newest first: ordered by (`created`, `id`) descending, by page number
 * or after a cursor's position (keyset on an index of those two columns, one row more read to
 * know whether another page follows). `query` selects the rows, `cursor_key` among them
 * (exactTimestamp of `created`); `idOf` reads the tie-break of a row.
 */
export async function newestFirstPage<Row extends { cursor_key: string }, Item>(
  // biome-ignore lint/suspicious/noExplicitAny: the helper orders by column names given at run time.
  query: SelectQueryBuilder<any, any, Row>,
  request: Paging,
  total: number,
  keyset: { created: string; id: string; idOf: (row: Row) => number },
  toItem: (row: Row) => Item,
): Promise<PageResult<Item>> {
  const { limit, after, seal } = request;
  const page = after ? undefined : (request.page ?? 1);
  const offset = ((page ?? 1) - 1) * limit;
  if (!after && offset >= total) return pageResult([], { page, limit }, total);
  let ordered = query.orderBy(sql.ref(keyset.created), 'desc').orderBy(sql.ref(keyset.id), 'desc');
  if (after) {
    ordered = ordered
      .where(
        sql<boolean>`(${sql.ref(keyset.created)}, ${sql.ref(keyset.id)}) < (${after.key}::timestamptz, ${after.id})`,
      )
      .limit(limit + 1);
  } else {
    ordered = ordered.limit(limit).offset(offset);
  }
  const fetched = await ordered.execute();
  const more = after ? fetched.length > limit : offset + fetched.length < total;
  const rows = after && more ? fetched.slice(0, limit) : fetched;
  const last = rows.at(-1);
  const next = more && last && seal ? seal({ key: last.cursor_key, id: keyset.idOf(last) }) : null;
  return pageResult(rows.map(toItem), { page, limit }, total, next);
}
