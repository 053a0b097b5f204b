/**
 * An entry's inclusion proof in a tree size, from the stored tiles (the tiles' cached levels, so a
 * proof reads O(log n) stored hashes and hashes nothing once its tiles are cached: docs/log.md,
 * "Cost"); and the receipt of an accepted statement (CONTRACT.md, Version 4, "Signals"): its
 * index, the signed checkpoint that holds it and its proof in that checkpoint.
 */
import type { SignalReceipt } from '@signal/core';
import { proveRecord, storedHashIndex, toBase64 } from '@signal/core/log';
import { type Database, logTileCache, storedLogTiles } from '@signal/db';
import type { Kysely } from 'kysely';
import type { LogInclusion } from '../context.js';

/** The leaf hash of entry `index` and its inclusion proof in the tree of `size` entries, base64. */
export async function proveInclusion(
  db: Kysely<Database>,
  index: number,
  size: number,
): Promise<{ leafHash: string; proof: string[] }> {
  const cache = logTileCache(db);
  const hashes = cache.hashReader(size, storedLogTiles(db));
  const [leafHash] = await hashes([storedHashIndex(0, index)]);
  const proof = await proveRecord(size, index, hashes, cache.subtrees);
  return { leafHash: toBase64(leafHash!), proof: proof.map(toBase64) };
}

/** The receipt of an entry in a signed checkpoint. */
export async function receiptOf(db: Kysely<Database>, inclusion: LogInclusion): Promise<SignalReceipt> {
  const { proof } = await proveInclusion(db, inclusion.logIndex, inclusion.checkpoint.size);
  return { logIndex: inclusion.logIndex, checkpoint: inclusion.checkpoint.note, proof };
}
