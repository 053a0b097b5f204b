// Reading stored hashes out of tiles: unchecked for the server (its own database), checked against
// a signed tree for clients. The checked reader is Go's tileHashReader (golang.org/x/mod/sumdb/tlog,
// tile.go, BSD-3-Clause, Copyright 2019 The Go Authors), ported.
import { bytesEqual } from './bytes.js';
import { HASH_SIZE, nodeHash } from './hash.js';
import { type HashReader, proveRecord, proveTree, treeHashFrom } from './proofs.js';
import { hashFromTile, TILE_WIDTH, type Tile, tileForIndex, tileHash, tileKey, tileParent } from './tiles.js';
import { storedHashIndex, subTreeIndex } from './tree-math.js';

/**
 * Returns each requested tile's data (width·32 bytes), in the order asked. A store holding a wider
 * tile (the same level and index) answers with its first width·32 bytes.
 */
export type TileReader = (tiles: Tile[]) => Promise<Uint8Array[]>;

/** A tree as a checkpoint states it. */
export interface TreeHead {
  size: number;
  rootHash: Uint8Array;
}

async function readTilesExactly(readTiles: TileReader, tiles: Tile[]): Promise<Uint8Array[]> {
  const data = await readTiles(tiles);
  if (data.length !== tiles.length) {
    throw new Error(`TileReader returned bad result slice (len=${data.length}, want ${tiles.length})`);
  }
  for (const [i, tile] of tiles.entries()) {
    if (data[i]!.length !== tile.width * HASH_SIZE) {
      throw new Error(`TileReader returned ${data[i]!.length} bytes for tile ${tileKey(tile)}`);
    }
  }
  return data;
}

/**
 * Reads stored hashes of the tree of `size` leaves from its tiles, trusting them (the server's own
 * store). Each hash comes from its tile as wide as that tree has it, so one read per tile.
 */
export function storedHashReader(size: number, readTiles: TileReader): HashReader {
  return async (indexes) => {
    const tiles: Tile[] = [];
    const order = new Map<string, number>();
    const where: number[] = [];
    for (const x of indexes) {
      const tile = tileParent(tileForIndex(x).tile, 0, size);
      if (tile === null) throw new Error(`stored hash ${x} is not in the tree of size ${size}`);
      const key = tileKey(tile);
      let j = order.get(key);
      if (j === undefined) {
        j = tiles.length;
        order.set(key, j);
        tiles.push(tile);
      }
      where.push(j);
    }
    const data = await readTilesExactly(readTiles, tiles);
    return indexes.map((x, i) => hashFromTile(tiles[where[i]!]!, data[where[i]!]!, x));
  };
}

/**
 * Reads stored hashes through tiles, checking every tile against `tree` before any hash of it is
 * used: the right-edge tiles must hash to the tree's root, and each other tile to the hash its
 * parent tile holds. Throws "downloaded inconsistent tile" otherwise. Go's TileHashReader.
 */
export function tileHashReader(tree: TreeHead, readTiles: TileReader): HashReader {
  return async (indexes) => {
    if (tree.size === 0) {
      if (indexes.length > 0) throw new Error('indexes not in tree');
      return [];
    }
    const tileOrder = new Map<string, number>();
    const tiles: Tile[] = [];

    // The tiles holding the tree's complete subtrees, which together hash to its root.
    const stx = subTreeIndex(0, tree.size, []);
    const stxTileOrder: number[] = [];
    for (const x of stx) {
      const tile = tileParent(tileForIndex(x).tile, 0, tree.size)!;
      const key = tileKey(tile);
      const j = tileOrder.get(key);
      if (j !== undefined) {
        stxTileOrder.push(j);
        continue;
      }
      stxTileOrder.push(tiles.length);
      tileOrder.set(key, tiles.length);
      tiles.push(tile);
    }

    // Each requested hash's tile, plus the chain of full parent tiles up to one already read.
    const indexTileOrder: number[] = [];
    for (const x of indexes) {
      if (x >= storedHashIndex(0, tree.size)) throw new Error('indexes not in tree');
      const tile = tileForIndex(x).tile;
      let k = 0;
      for (; ; k++) {
        const parent = tileParent(tile, k, tree.size);
        if (parent === null) throw new Error(`bad math in tileHashReader: ${tree.size} ${x}`);
        const j = tileOrder.get(tileKey(parent));
        if (j !== undefined) {
          if (k === 0) indexTileOrder.push(j);
          break;
        }
      }
      for (k--; k >= 0; k--) {
        const parent = tileParent(tile, k, tree.size)!;
        if (parent.width !== TILE_WIDTH) throw new Error(`bad math in tileHashReader: ${tree.size} ${x}`);
        tileOrder.set(tileKey(parent), tiles.length);
        if (k === 0) indexTileOrder.push(tiles.length);
        tiles.push(parent);
      }
    }

    const data = await readTilesExactly(readTiles, tiles);

    const last = stx.length - 1;
    let th = hashFromTile(tiles[stxTileOrder[last]!]!, data[stxTileOrder[last]!]!, stx[last]!);
    for (let i = last - 1; i >= 0; i--) {
      th = nodeHash(hashFromTile(tiles[stxTileOrder[i]!]!, data[stxTileOrder[i]!]!, stx[i]!), th);
    }
    if (!bytesEqual(th, tree.rootHash)) throw new Error('downloaded inconsistent tile');

    // Then every other tile against its parent. (Go 0.7.0 starts this loop at len(stx), which skips
    // the first tiles after the right edge whenever two subtree roots share a tile; this starts
    // right after the right-edge tiles, so every tile read is checked.)
    for (let i = new Set(stxTileOrder).size; i < tiles.length; i++) {
      const tile = tiles[i]!;
      const parent = tileParent(tile, 1, tree.size);
      const j = parent === null ? undefined : tileOrder.get(tileKey(parent));
      if (parent === null || j === undefined) throw new Error('bad math in tileHashReader: lost parent');
      const expected = hashFromTile(parent, data[j]!, storedHashIndex(parent.level * 8, tile.index));
      if (!bytesEqual(expected, tileHash(data[i]!))) throw new Error('downloaded inconsistent tile');
    }

    return indexes.map((x, i) => hashFromTile(tiles[indexTileOrder[i]!]!, data[indexTileOrder[i]!]!, x));
  };
}

/** The root hash of the tree of `size` leaves, read from its tiles. */
export function treeHash(size: number, readTiles: TileReader): Promise<Uint8Array> {
  return treeHashFrom(size, storedHashReader(size, readTiles));
}

/** The inclusion proof of leaf `index` in the tree of `size` leaves, read from its tiles (RFC 9162 order). */
export function inclusionProof(index: number, size: number, readTiles: TileReader): Promise<Uint8Array[]> {
  return proveRecord(size, index, storedHashReader(size, readTiles));
}

/** The consistency proof from size `from` to size `to` (1 ≤ from ≤ to), read from the tiles of `to`. */
export function consistencyProof(from: number, to: number, readTiles: TileReader): Promise<Uint8Array[]> {
  return proveTree(to, from, storedHashReader(to, readTiles));
}
