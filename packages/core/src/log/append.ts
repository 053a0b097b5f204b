// Appending leaves to a tiled tree, knowing only its right edge. This is the sequencer's step: the
// hashes of each level's right-edge partial tile (never the whole tree) and the new leaf hashes
// give every tile the batch changes and the new root. Go's server writes the same tiles
// (tlog.NewTiles + ReadTileData), keeping every intermediate width; here a partial tile is one
// growing row, since a narrower tile is always a prefix of a wider one.
import { concatBytes } from './bytes.js';
import { emptyTreeHash, HASH_SIZE, nodeHash } from './hash.js';
import { TILE_HEIGHT, TILE_WIDTH, type TileData, tileHash } from './tiles.js';
import { assertTreeSize, shiftLeft, shiftRight } from './tree-math.js';

/** What an append produced: the tiles to persist (replacing narrower ones) and the new tree head. */
export interface AppendResult {
  size: number;
  rootHash: Uint8Array;
  /** Each changed tile once, at its new width: full tiles completed by the batch and the new right edge. */
  tiles: TileData[];
}

/**
 * The hashes of the right-edge partial tile at `level` of the tree before the append, in order
 * ((size >> 8·level) mod 256 of them; asked only for levels where that is > 0). `rightEdgeTiles(size)`
 * lists them, so a caller can load them all before calling.
 */
export type RightEdgeReader = (level: number) => Uint8Array[];

function checkedEdge(rightEdge: RightEdgeReader, size: number, level: number): Uint8Array[] {
  const width = shiftRight(size, level * TILE_HEIGHT) % TILE_WIDTH;
  if (width === 0) return [];
  const hashes = rightEdge(level);
  if (hashes.length !== width || !hashes.every((h) => h.length === HASH_SIZE)) {
    throw new Error(`right edge at level ${level} must be ${width} hashes of 32 bytes, got ${hashes.length}`);
  }
  return hashes;
}

/**
 * Appends `newLeafHashes` to the tree of `size` leaves. Pure: reads the old right edge through
 * `rightEdge`, returns the tiles that changed and the new root hash.
 */
export function appendLeaves(size: number, rightEdge: RightEdgeReader, newLeafHashes: Uint8Array[]): AppendResult {
  assertTreeSize('size', size);
  const newSize = size + newLeafHashes.length;
  assertTreeSize('new size', newSize);
  for (const h of newLeafHashes) {
    if (h.length !== HASH_SIZE) throw new Error('leaf hashes must be 32 bytes');
  }

  const tiles: TileData[] = [];
  // The new right edge, level by level, to compute the root from.
  const edges: Uint8Array[][] = [];
  let added = newLeafHashes;
  let level = 0;
  for (; added.length > 0; level++) {
    const before = shiftRight(size, level * TILE_HEIGHT);
    const row = [...checkedEdge(rightEdge, size, level), ...added];
    let index = Math.floor(before / TILE_WIDTH);
    const completed: Uint8Array[] = [];
    let at = 0;
    for (; row.length - at >= TILE_WIDTH; at += TILE_WIDTH, index++) {
      const data = concatBytes(...row.slice(at, at + TILE_WIDTH));
      tiles.push({ tile: { level, index, width: TILE_WIDTH }, data });
      // A full tile's root is the next tile level's next hash.
      completed.push(tileHash(data));
    }
    const rest = row.slice(at);
    if (rest.length > 0) tiles.push({ tile: { level, index, width: rest.length }, data: concatBytes(...rest) });
    edges.push(rest);
    added = completed;
  }
  // Levels above the last one touched keep their old right edge.
  for (; shiftRight(newSize, level * TILE_HEIGHT) > 0; level++) edges.push(checkedEdge(rightEdge, size, level));

  return { size: newSize, rootHash: rootFromRightEdge(newSize, edges), tiles };
}

/**
 * The root of the tree of `size` leaves from its right-edge partial tiles (`edges[level]`, the
 * hashes of level 8·level from the last full tile on). Each complete subtree of the tree (one per
 * set bit k of `size`) is a run of 2^(k mod 8) hashes in the edge of level ⌊k/8⌋.
 */
export function rootFromRightEdge(size: number, edges: Uint8Array[][]): Uint8Array {
  if (size === 0) return emptyTreeHash();
  const subtrees: Uint8Array[] = [];
  let lo = 0;
  for (let k = Math.floor(Math.log2(size)) + 1; k >= 0; k--) {
    const span = 2 ** k;
    if (lo + span > size) continue;
    const level = Math.floor(k / TILE_HEIGHT);
    const count = shiftRight(size, level * TILE_HEIGHT);
    const edgeStart = Math.floor(count / TILE_WIDTH) * TILE_WIDTH;
    const from = shiftRight(lo, level * TILE_HEIGHT) - edgeStart;
    const run = shiftLeft(1, k - level * TILE_HEIGHT);
    const edge = edges[level] ?? [];
    if (from < 0 || from + run > edge.length) throw new Error('tlog: bad math in rootFromRightEdge');
    subtrees.push(tileHash(concatBytes(...edge.slice(from, from + run))));
    lo += span;
  }
  let h = subtrees[subtrees.length - 1]!;
  for (let i = subtrees.length - 2; i >= 0; i--) h = nodeHash(subtrees[i]!, h);
  return h;
}

/** The hashes in a tile's data, 32 bytes each (to hand back as a right edge). */
export function tileHashes(data: Uint8Array): Uint8Array[] {
  if (data.length % HASH_SIZE !== 0) throw new Error('tile data must be a multiple of 32 bytes');
  const hashes: Uint8Array[] = [];
  for (let at = 0; at < data.length; at += HASH_SIZE) hashes.push(data.slice(at, at + HASH_SIZE));
  return hashes;
}
