// An in-process cache of tiles with their interior hash levels, for a server answering proofs and
// tiles from its own store. A tile of a given level, index and width never changes (its hashes are
// fixed once written), so what is cached is never stale. A proof then reads O(log n) hashes out of
// cached levels instead of recomputing up to 255 SHA-256 hashes per tile on every request.
import { HASH_SIZE, nodeHash } from './hash.js';
import type { HashReader, SubtreeMemo } from './proofs.js';
import type { TileReader } from './tile-read.js';
import { type Tile, tileForIndex, tileKey, tileParent } from './tiles.js';

/** A tile's hashes and, once a hash inside it was asked, every level above them (levels[0] is the data). */
interface CachedTile {
  data: Uint8Array;
  levels?: Uint8Array[];
}

export interface TileCache {
  /** The tiles' data (width·32 bytes each), from the cache or read through `readTiles` (misses only). */
  tiles(tiles: Tile[], readTiles: TileReader): Promise<Uint8Array[]>;
  /** The tile's data if the cache holds it (then the tree held it: a tile never goes away). */
  peek(tile: Tile): Uint8Array | undefined;
  /** Reads stored hashes of the tree of `size` leaves as `storedHashReader` does, from cached levels. */
  hashReader(size: number, readTiles: TileReader): HashReader;
  /** Folded subtree hashes for proveRecord (a subtree's hash never changes either). */
  readonly subtrees: SubtreeMemo;
  /** How many tiles it holds now. */
  readonly size: number;
}

/** The hashes of each level of a tile, built bottom up: w, w/2, … hashes (a partial tile's odd last hash stays alone). */
function buildLevels(data: Uint8Array): Uint8Array[] {
  const levels = [data];
  let below = data;
  while (below.length >= 2 * HASH_SIZE) {
    const count = Math.floor(below.length / (2 * HASH_SIZE));
    const level = new Uint8Array(count * HASH_SIZE);
    for (let i = 0; i < count; i++) {
      const left = below.subarray(2 * i * HASH_SIZE, (2 * i + 1) * HASH_SIZE);
      const right = below.subarray((2 * i + 1) * HASH_SIZE, (2 * i + 2) * HASH_SIZE);
      level.set(nodeHash(left, right), i * HASH_SIZE);
    }
    levels.push(level);
    below = level;
  }
  return levels;
}

/** The stored hash `storedIndex` from the levels of the tile holding it (as hashFromTile gives it). */
function hashFromLevels(levels: Uint8Array[], storedIndex: number): Uint8Array {
  const { start, end } = tileForIndex(storedIndex);
  const run = (end - start) / HASH_SIZE;
  const levelInTile = Math.log2(run);
  const position = start / HASH_SIZE / run;
  const level = levels[levelInTile];
  if (!level || (position + 1) * HASH_SIZE > level.length) throw new Error(`tlog: bad math in tile cache`);
  return level.slice(position * HASH_SIZE, (position + 1) * HASH_SIZE);
}

/**
 * A bounded cache of at most `maxTiles` tiles (least recently used go first). A full tile with
 * its levels is 16 KB: 4,096 tiles (64 MB at most) hold every tile of a tree of 1M entries.
 */
export function createTileCache(maxTiles = 4_096): TileCache {
  const cached = new Map<string, CachedTile>();
  const touch = (key: string): CachedTile | undefined => {
    const hit = cached.get(key);
    if (hit) {
      cached.delete(key);
      cached.set(key, hit);
    }
    return hit;
  };
  const keep = (key: string, data: Uint8Array): CachedTile => {
    const entry: CachedTile = { data };
    cached.set(key, entry);
    while (cached.size > maxTiles) cached.delete(cached.keys().next().value as string);
    return entry;
  };
  const entries = async (tiles: Tile[], readTiles: TileReader): Promise<CachedTile[]> => {
    const found = tiles.map((tile) => touch(tileKey(tile)));
    const missing = tiles.filter((_, i) => !found[i]);
    if (missing.length === 0) return found as CachedTile[];
    const data = await readTiles(missing);
    if (data.length !== missing.length) {
      throw new Error(`TileReader returned bad result slice (len=${data.length}, want ${missing.length})`);
    }
    let next = 0;
    return tiles.map((tile, i) => {
      if (found[i]) return found[i];
      const bytes = data[next++]!;
      if (bytes.length !== tile.width * HASH_SIZE) {
        throw new Error(`TileReader returned ${bytes.length} bytes for tile ${tileKey(tile)}`);
      }
      return keep(tileKey(tile), bytes);
    });
  };
  // Bounded as the tiles are; a tree's right edge has at most 63 folds, so this is many trees'.
  const folds = new Map<string, Uint8Array>();
  const subtrees: SubtreeMemo = {
    get: (lo, hi) => folds.get(`${lo}-${hi}`),
    set: (lo, hi, hash) => {
      folds.set(`${lo}-${hi}`, hash);
      while (folds.size > maxTiles) folds.delete(folds.keys().next().value as string);
    },
  };
  return {
    subtrees,
    get size() {
      return cached.size;
    },
    peek: (tile) => touch(tileKey(tile))?.data,
    tiles: async (tiles, readTiles) => (await entries(tiles, readTiles)).map((entry) => entry.data),
    hashReader: (size, readTiles) => async (indexes) => {
      const tiles = indexes.map((x) => {
        const tile = tileParent(tileForIndex(x).tile, 0, size);
        if (tile === null) throw new Error(`stored hash ${x} is not in the tree of size ${size}`);
        return tile;
      });
      const unique = [...new Map(tiles.map((tile) => [tileKey(tile), tile])).values()];
      const found = await entries(unique, readTiles);
      const byKey = new Map(unique.map((tile, i) => [tileKey(tile), found[i]!]));
      return indexes.map((x, i) => {
        const entry = byKey.get(tileKey(tiles[i]!))!;
        entry.levels ??= buildLevels(entry.data);
        return hashFromLevels(entry.levels, x);
      });
    },
  };
}
