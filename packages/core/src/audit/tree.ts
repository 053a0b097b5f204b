/**
 * The whole tree, recomputed from its entries: every level's hashes from the leaf hashes up, so
 * the auditor can compare the checkpoint's root, every tile the log serves, and the root of any
 * earlier size (a checkpoint kept from a previous run) with what the entries themselves give.
 * Nothing here trusts the server: tiles are compared, not used.
 */

import { emptyTreeHash, HASH_SIZE } from '../log/hash.js';
import { TILE_HEIGHT, TILE_WIDTH, type Tile } from '../log/tiles.js';

export interface ComputedTree {
  readonly size: number;
  /** The RFC 6962 root of the first `size` leaves (size ≤ this tree's). */
  rootAt(size: number): Uint8Array;
  /** The data a tile of this tree must have (width·32 bytes). */
  tileData(tile: Tile): Uint8Array;
  /** Every tile of this tree: the full ones and each level's right-edge partial tile. */
  tiles(): Tile[];
}

/**
 * Builds the tree's levels from its leaf hashes (`leaves`: size·32 bytes, leaf i at i·32), each
 * node hashed straight into its level by `hashInto` (SHA-256 of `data` written at `out[at]`).
 */
export function computeTree(
  leaves: Uint8Array,
  hashInto: (data: Uint8Array, out: Uint8Array, at: number) => void,
): ComputedTree {
  const pair = new Uint8Array(1 + 2 * HASH_SIZE);
  pair[0] = 0x01;
  // RFC 6962's interior node, SHA-256(0x01 ‖ left ‖ right).
  const nodeHash = (left: Uint8Array, right: Uint8Array) => {
    pair.set(left, 1);
    pair.set(right, 1 + HASH_SIZE);
    const out = new Uint8Array(HASH_SIZE);
    hashInto(pair, out, 0);
    return out;
  };
  const size = leaves.length / HASH_SIZE;
  const levels: Uint8Array[] = [leaves];
  for (let below = leaves; below.length >= 2 * HASH_SIZE; ) {
    const count = Math.floor(below.length / (2 * HASH_SIZE));
    const level = new Uint8Array(count * HASH_SIZE);
    for (let i = 0; i < count; i++) {
      // The two children are adjacent in the level below: one copy after the 0x01.
      pair.set(below.subarray(2 * i * HASH_SIZE, (2 * i + 2) * HASH_SIZE), 1);
      hashInto(pair, level, i * HASH_SIZE);
    }
    levels.push(level);
    below = level;
  }
  const hashAt = (level: number, index: number) => levels[level]!.subarray(index * HASH_SIZE, (index + 1) * HASH_SIZE);
  return {
    size,
    rootAt(n) {
      if (!Number.isSafeInteger(n) || n < 0 || n > size) throw new RangeError(`no tree of size ${n} in ${size}`);
      if (n === 0) return emptyTreeHash();
      // The complete subtrees of [0, n), largest first, folded from the right.
      const parts: Uint8Array[] = [];
      let start = 0;
      for (let level = 52; level >= 0; level--) {
        const span = 2 ** level;
        if (n - start >= span) {
          parts.push(hashAt(level, start / span));
          start += span;
        }
      }
      let root = parts[parts.length - 1]!;
      for (let i = parts.length - 2; i >= 0; i--) root = nodeHash(parts[i]!, root);
      return root.slice();
    },
    tileData(tile) {
      const level = levels[tile.level * TILE_HEIGHT];
      const start = tile.index * TILE_WIDTH * HASH_SIZE;
      const end = start + tile.width * HASH_SIZE;
      if (!level || end > level.length) throw new RangeError(`tile ${tile.level}/${tile.index} is beyond the tree`);
      return level.subarray(start, end);
    },
    tiles() {
      const tiles: Tile[] = [];
      for (let level = 0; level * TILE_HEIGHT < levels.length; level++) {
        const count = levels[level * TILE_HEIGHT]!.length / HASH_SIZE;
        for (let index = 0; index * TILE_WIDTH < count; index++) {
          tiles.push({ level, index, width: Math.min(TILE_WIDTH, count - index * TILE_WIDTH) });
        }
      }
      return tiles;
    },
  };
}
