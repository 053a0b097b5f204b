/**
 * The log's sequencer step (docs/log.md, "Sequencing"): one transaction that integrates a batch
 * of accepted entries into the tree and signs the checkpoint over it. Any server may run it at
 * any time; one at a time does:
 *
 * 1. lock the state row `FOR UPDATE SKIP LOCKED` (held by another server: skip, it is working);
 * 2. read, in a later statement (so after that lock, seeing every commit before it), the oldest
 *    pending entries in acceptance order;
 * 3. give them the indexes from the locked row's size on, hash them into the right-edge tiles
 *    and compute the new root (the core library's appendLeaves, which needs only the right edge);
 * 4. insert the entries, write the changed tiles, stamp the signal statements among them with
 *    their index and write their events (signal.queries.ts, `placeSignalStatements`), sign the
 *    checkpoint, update the state row and delete exactly the pending rows it took; commit.
 *
 * A server killed anywhere in it rolls all of it back (PostgreSQL ends the dead connection's
 * transaction): the pending rows are still there, the next run takes them. Each run extends
 * exactly the tree the previous run committed, so no two checkpoints ever disagree.
 */
import { appendLeaves, leafHash, rightEdgeTiles, tileHashes } from '@signal/core/log';
import { type Kysely, sql } from 'kysely';
import { readLogTiles } from './log.queries.js';
import type { Database } from './schema.js';
import { placeSignalStatements } from './signal.queries.js';

/** Signs a checkpoint over (size, root): the note's text, and the verifier key that checks it. */
export type CheckpointSigner = (size: number, root: Uint8Array) => { checkpoint: string; verifierKey: string };

export interface IntegrationOptions {
  batchSize: number;
  sign: CheckpointSigner;
  /** The signer's verifier key: a log signed by another key is left alone ('foreign-key'). */
  verifierKey: string;
}

export type IntegrationOutcome =
  /** Another server holds the state row (it is integrating): nothing done. */
  | { kind: 'busy' }
  /** The log was signed by another key than this server's: it does not sign here (docs/log.md). */
  | { kind: 'foreign-key'; verifierKey: string }
  /** Done (`integrated` entries, maybe 0 when only the first checkpoint was signed) or nothing to do. */
  | { kind: 'signed' | 'idle'; size: number; checkpoint: string; integrated: number };

const hex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
const tileKey = (tile: { level: number; index: number }) => `${tile.level}/${tile.index}`;

/** Runs the step once over at most `batchSize` pending entries (see the file's comment). */
export async function integrateLogEntries(
  db: Kysely<Database>,
  options: IntegrationOptions,
): Promise<IntegrationOutcome> {
  return db.transaction().execute(async (trx) => {
    const locked = await sql<{ size: number; checkpoint: string | null; verifier_key: string | null }>`
      select size, checkpoint, verifier_key from log_state for update skip locked
    `.execute(trx);
    const state = locked.rows[0];
    if (!state) return { kind: 'busy' as const };
    if (state.verifier_key !== null && state.verifier_key !== options.verifierKey) {
      return { kind: 'foreign-key' as const, verifierKey: state.verifier_key };
    }
    const size = Number(state.size);
    const pending = await sql<{ id: number; entry: Uint8Array }>`
      select id, entry from log_pending order by id limit ${options.batchSize}
    `.execute(trx);
    if (pending.rows.length === 0 && state.checkpoint !== null) {
      return { kind: 'idle' as const, size, checkpoint: state.checkpoint, integrated: 0 };
    }
    const entries = pending.rows.map((row) => new Uint8Array(row.entry));
    // The right edge (each level's partial tile) is all an append needs of the tree.
    const edge = rightEdgeTiles(size);
    const edgeData = await readLogTiles(trx, edge);
    const edgeByLevel = new Map(
      edge.map((tile, i) => {
        const data = edgeData[i];
        if (!data) throw new Error(`log tile ${tileKey(tile)} of the right edge at size ${size} is missing`);
        return [tile.level, tileHashes(data)];
      }),
    );
    const appended = appendLeaves(size, (level) => edgeByLevel.get(level) ?? [], entries.map(leafHash));
    const changed = appended.tiles;
    const newSize = appended.size;
    const root = appended.rootHash;
    if (entries.length > 0) {
      await sql`
        insert into log_entries (idx, entry, accepted_id)
        select ${size}::bigint + e.n - 1, decode(e.hex, 'hex'), e.id
        from unnest(${entries.map(hex)}::text[], ${pending.rows.map((row) => Number(row.id))}::bigint[])
          with ordinality as e (hex, id, n)
      `.execute(trx);
      await sql`
        insert into log_tiles (level, idx, hashes)
        select t.level, t.idx, decode(t.hex, 'hex')
        from unnest(${changed.map((c) => c.tile.level)}::smallint[], ${changed.map((c) => c.tile.index)}::bigint[],
          ${changed.map((c) => hex(c.data))}::text[]) as t (level, idx, hex)
        on conflict (level, idx) do update set hashes = excluded.hashes
      `.execute(trx);
      // Signal statements learn their index, and their events are written, with the tree.
      await placeSignalStatements(trx, size);
    }
    const { checkpoint, verifierKey } = options.sign(newSize, root);
    await sql`
      update log_state set size = ${newSize}, root = decode(${hex(root)}, 'hex'), checkpoint = ${checkpoint},
        verifier_key = ${verifierKey}, signed_at = now()
    `.execute(trx);
    if (entries.length > 0) {
      await sql`delete from log_pending where id = any(${pending.rows.map((row) => Number(row.id))}::bigint[])`.execute(
        trx,
      );
    }
    return { kind: 'signed' as const, size: newSize, checkpoint, integrated: entries.length };
  });
}
