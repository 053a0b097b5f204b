// C2SP tlog-tiles of height 8 over Go's stored hashes, ported from Go's
// golang.org/x/mod/sumdb/tlog (tile.go), BSD-3-Clause, Copyright 2019 The Go Authors.
// Go's tiles carry their height; here it is always 8 (C2SP's), so a Tile is level, index, width.
import { HASH_SIZE, nodeHash } from './hash.js';
import { shiftLeft, shiftRight, splitStoredHashIndex } from './tree-math.js';

export const TILE_HEIGHT = 8;
/** Hashes in a full tile (2^TILE_HEIGHT). */
export const TILE_WIDTH = 256;

/**
 * A tile: `width` (1..256) consecutive hashes of tree level 8·`level`, starting at hash
 * 256·`index` of that level. Width 256 is a full tile, anything less the right edge of a tree.
 */
export interface Tile {
  level: number;
  index: number;
  width: number;
}

/** The tile's hash data with it: width·32 bytes, the hashes in order. */
export interface TileData {
  tile: Tile;
  data: Uint8Array;
}

export function tileKey(tile: Tile): string {
  return `${tile.level}/${tile.index}/${tile.width}`;
}

/**
 * The smallest tile holding the stored hash `index`, and where in its data the bytes that hash to
 * it lie (a stored hash of a level inside the tile is the hash of a run of the tile's hashes).
 * Go's tileForIndex.
 */
export function tileForIndex(storedIndex: number): { tile: Tile; start: number; end: number } {
  const split = splitStoredHashIndex(storedIndex);
  let n = split.n;
  const level = Math.floor(split.level / TILE_HEIGHT);
  const levelInTile = split.level - level * TILE_HEIGHT;
  const index = shiftRight(shiftLeft(n, levelInTile), TILE_HEIGHT);
  n -= shiftRight(shiftLeft(index, TILE_HEIGHT), levelInTile);
  const width = shiftLeft(n + 1, levelInTile);
  return {
    tile: { level, index, width },
    start: shiftLeft(n, levelInTile) * HASH_SIZE,
    end: shiftLeft(n + 1, levelInTile) * HASH_SIZE,
  };
}

/** The Merkle hash of a power-of-two run of hashes inside a tile. Go's tileHash. */
export function tileHash(data: Uint8Array): Uint8Array {
  if (data.length === 0) throw new Error('tlog: bad math in tileHash');
  if (data.length === HASH_SIZE) return data.slice();
  const half = data.length / 2;
  return nodeHash(tileHash(data.subarray(0, half)), tileHash(data.subarray(half)));
}

function isValidTile(tile: Tile): boolean {
  return (
    Number.isSafeInteger(tile.level) &&
    tile.level >= 0 &&
    tile.level < 64 &&
    Number.isSafeInteger(tile.index) &&
    tile.index >= 0 &&
    Number.isSafeInteger(tile.width) &&
    tile.width >= 1 &&
    tile.width <= TILE_WIDTH
  );
}

/** The stored hash `storedIndex` read out of `tile`'s data. Go's HashFromTile. */
export function hashFromTile(tile: Tile, data: Uint8Array, storedIndex: number): Uint8Array {
  if (!isValidTile(tile)) throw new Error(`invalid tile ${tileKey(tile)}`);
  if (data.length < tile.width * HASH_SIZE) {
    throw new Error(`data len ${data.length} too short for tile ${tileKey(tile)}`);
  }
  const { tile: needed, start, end } = tileForIndex(storedIndex);
  if (tile.level !== needed.level || tile.index !== needed.index || tile.width < needed.width) {
    throw new Error(`index ${storedIndex} is in tile ${tileKey(needed)}, not ${tileKey(tile)}`);
  }
  return tileHash(data.subarray(start, end));
}

/**
 * The tile `k` levels above `tile`, as wide as the tree of `size` leaves has it; null when that
 * tile does not exist yet. Go's tileParent.
 */
export function tileParent(tile: Tile, k: number, size: number): Tile | null {
  const level = tile.level + k;
  const index = shiftRight(tile.index, k * TILE_HEIGHT);
  let width = TILE_WIDTH;
  const max = shiftRight(size, level * TILE_HEIGHT);
  if (index * TILE_WIDTH + width >= max) {
    if (index * TILE_WIDTH >= max) return null;
    width = max - index * TILE_WIDTH;
  }
  return { level, index, width };
}

/** The tiles a tree of `size` leaves has at its right edge: each level's partial tile (width < 256). */
export function rightEdgeTiles(size: number): Tile[] {
  const tiles: Tile[] = [];
  for (let level = 0; shiftRight(size, level * TILE_HEIGHT) > 0; level++) {
    const count = shiftRight(size, level * TILE_HEIGHT);
    const width = count % TILE_WIDTH;
    if (width > 0) tiles.push({ level, index: Math.floor(count / TILE_WIDTH), width });
  }
  return tiles;
}

/** How many hashes level `level` of tiles holds in a tree of `size` leaves (size >> 8·level). */
export function hashesAtTileLevel(size: number, level: number): number {
  return shiftRight(size, level * TILE_HEIGHT);
}
