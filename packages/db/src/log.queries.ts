/**
 * The public log (migration 0017, docs/log.md): accepting entries in a change's transaction, and
 * reading what the tree holds. Integrating accepted entries into the tree is log-sequencer.ts's.
 *
 * Writers call `appendLogEntry` (or `appendLogEntries`) with the transaction that makes the change
 * they record, after the change's own writes: the entry commits with the change or not at all.
 * It is in the tree once a sequencer run has taken it (in acceptance order) and signed a
 * checkpoint over it; the appender learns its index with `findLogIndexes` from the acceptance id.
 */
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

/** An entry's length is a big-endian uint16 in an entry bundle (C2SP tlog-tiles). */
export const MAX_LOG_ENTRY_BYTES = 65_535;

/** What `appendLogEntry` gives back: the entry's acceptance, to wait for its index with. */
export interface LogAcceptance {
  /** The acceptance id (log_pending.id): the order in which entries go into the tree. */
  id: number;
  /**
   * The tree's size when the entry was accepted: its index will be at least this (the tree only
   * grows, and no sequencer can take the entry before its transaction commits).
   */
  minIndex: number;
}

/** A log entry is 1..MAX_LOG_ENTRY_BYTES bytes (else a RangeError). */
export function checkLogEntry(entry: Uint8Array): void {
  if (entry.length === 0 || entry.length > MAX_LOG_ENTRY_BYTES) {
    throw new RangeError(`a log entry is 1..${MAX_LOG_ENTRY_BYTES} bytes, not ${entry.length}`);
  }
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');

/**
 * Accepts one entry in the transaction `trx` (see the file's comment), in one statement. Given the
 * database handle itself instead, that statement is its own transaction: committed (and its WAL
 * flushed) before this returns, in one round trip instead of three (BEGIN, insert, COMMIT).
 */
export async function appendLogEntry(trx: Kysely<Database>, entry: Uint8Array): Promise<LogAcceptance> {
  checkLogEntry(entry);
  // One row: no array to unnest. Hex text, decoded by PostgreSQL, as appendLogEntries sends it.
  const result = await sql<{ id: number; min_index: number }>`
    insert into log_pending (entry) values (decode(${hex(entry)}, 'hex'))
    returning id, (select size from log_state) as min_index
  `.execute(trx);
  const row = result.rows[0]!;
  return { id: Number(row.id), minIndex: Number(row.min_index) };
}

/**
 * Accepts `entries` in the transaction `trx`, in this order, in one statement (bulk loads and
 * tests write thousands at once).
 */
export async function appendLogEntries(
  trx: Kysely<Database>,
  entries: readonly Uint8Array[],
): Promise<LogAcceptance[]> {
  if (entries.length === 0) return [];
  for (const entry of entries) checkLogEntry(entry);
  // Hex text, decoded by PostgreSQL: arrays of bytea travel the same way on pg and PGlite.
  const result = await sql<{ id: number; min_index: number }>`
    with accepted as (
      insert into log_pending (entry)
      select decode(e.hex, 'hex') from unnest(${entries.map(hex)}::text[]) with ordinality as e (hex, n)
      order by e.n
      returning id
    )
    select accepted.id, (select size from log_state) as min_index from accepted order by accepted.id
  `.execute(trx);
  return result.rows.map((row) => ({ id: Number(row.id), minIndex: Number(row.min_index) }));
}

/** The log's signed state as the database holds it now. */
export interface LogState {
  size: number;
  root: Uint8Array;
  /** The signed note over (origin, size, root); null until the first sequencer run. */
  checkpoint: string | null;
  verifierKey: string | null;
  /** Some accepted entry waits for a sequencer. */
  pending: boolean;
}

/**
 * One statement: the state row and whether anything waits (the sequencer's poll, every 100 ms in
 * every process). "Anything waits" is the first pending id by the primary key, not `exists`: the
 * planner runs an `exists` as a sequential scan, which reads every dead row the sequencer's
 * deletes left until a vacuum (the whole 195 MB of a million integrated entries, 280 ms a poll on
 * the bench's 1M log; 20 ms by the index, and nothing once vacuumed).
 */
export async function readLogState(db: Kysely<Database>): Promise<LogState> {
  const result = await sql<{
    size: number;
    root: Uint8Array;
    checkpoint: string | null;
    verifier_key: string | null;
    pending: boolean;
  }>`
    select size, root, checkpoint, verifier_key,
      (select id from log_pending order by id limit 1) is not null as pending
    from log_state
  `.execute(db);
  const row = result.rows[0];
  if (!row) throw new Error('log_state has no row: the database is not migrated');
  return {
    size: Number(row.size),
    root: new Uint8Array(row.root),
    checkpoint: row.checkpoint,
    verifierKey: row.verifier_key,
    pending: row.pending,
  };
}

/** The tree's size now (every size up to it has a signed checkpoint's tiles stored). */
export async function readLogSize(db: Kysely<Database>): Promise<number> {
  const result = await sql<{ size: number }>`select size from log_state`.execute(db);
  return Number(result.rows[0]?.size ?? 0);
}

/** A hash tile to read: its level, index and the width wanted (the first `width` hashes). */
export interface LogTileRef {
  level: number;
  index: number;
  width: number;
}

/**
 * The stored tiles, each cut to the width asked; undefined where the tile is not stored or holds
 * fewer hashes than asked. A tile's first hashes never change, so a narrower read of a tile
 * stored wider is the tile as a smaller tree had it.
 */
export async function readLogTiles(
  db: Kysely<Database>,
  tiles: readonly LogTileRef[],
): Promise<(Uint8Array | undefined)[]> {
  if (tiles.length === 0) return [];
  const result = await sql<{ level: number; idx: number; hashes: Uint8Array }>`
    select t.level, t.idx, t.hashes from log_tiles t
    join unnest(${tiles.map((t) => t.level)}::smallint[], ${tiles.map((t) => t.index)}::bigint[]) as w (level, idx)
      on t.level = w.level and t.idx = w.idx
  `.execute(db);
  const stored = new Map(result.rows.map((row) => [`${row.level}/${Number(row.idx)}`, new Uint8Array(row.hashes)]));
  return tiles.map((tile) => {
    const hashes = stored.get(`${tile.level}/${tile.index}`);
    const bytes = tile.width * 32;
    return hashes && hashes.length >= bytes ? hashes.subarray(0, bytes) : undefined;
  });
}

/** Entries `start` .. `start + count - 1` in index order (fewer when the tree holds fewer). */
export async function readLogEntries(db: Kysely<Database>, start: number, count: number): Promise<Uint8Array[]> {
  const result = await sql<{ entry: Uint8Array }>`
    select entry from log_entries where idx >= ${start} and idx < ${start + count} order by idx
  `.execute(db);
  return result.rows.map((row) => new Uint8Array(row.entry));
}

/**
 * The indexes of the entries accepted as `ids`, among those at `from` .. `to - 1` (a primary-key
 * range: every waiter's entry is at or after its acceptance's minIndex). Ids not yet there are
 * left out.
 */
export async function findLogIndexes(
  db: Kysely<Database>,
  range: { from: number; to: number; ids: readonly number[] },
): Promise<Map<number, number>> {
  if (range.ids.length === 0 || range.from >= range.to) return new Map();
  const result = await sql<{ idx: number; accepted_id: number }>`
    select idx, accepted_id from log_entries
    where idx >= ${range.from} and idx < ${range.to} and accepted_id = any(${[...range.ids]}::bigint[])
  `.execute(db);
  return new Map(result.rows.map((row) => [Number(row.accepted_id), Number(row.idx)]));
}
