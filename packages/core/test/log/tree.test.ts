// The log's tree hashes and proofs, read from tiles written by appendLeaves, against RFC 6962's
// definitions written independently in ./rfc6962.ts (node:crypto SHA-256).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  appendLeaves,
  checkConsistency,
  checkConsistencyAnswer,
  checkInclusion,
  checkInclusionAnswer,
  consistencyProof,
  emptyTreeHash,
  inclusionProof,
  leafHash,
  nodeHash,
  proveRecord,
  rightEdgeTiles,
  tileHashReader,
  treeHash,
} from '../../src/log/index.js';
import { mth, mthLarge, path, proof, rfcLeafHash } from './rfc6962.js';
import { MemoryTileStore } from './tile-store.js';

const entry = (i: number) => new TextEncoder().encode(`{"entry":${i}}`);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const hexes = (list: Uint8Array[]) => list.map(hex);

/** A store grown to `size` in uneven batches (1, 2, 3, … leaves), as a sequencer would. */
function grow(size: number, batch = (round: number) => round + 1): { store: MemoryTileStore; leaves: Uint8Array[] } {
  const leaves = Array.from({ length: size }, (_, i) => rfcLeafHash(entry(i)));
  const store = new MemoryTileStore();
  for (let round = 0; store.size < size; round++) {
    store.append(leaves.slice(store.size, Math.min(size, store.size + batch(round))));
  }
  return { store, leaves };
}

describe('hashes', () => {
  it('are RFC 6962 leaf and node hashes, and the empty tree is SHA-256 of nothing', () => {
    const sha = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest('hex');
    expect(hex(leafHash(entry(7)))).toBe(sha(Buffer.from([0]), Buffer.from(entry(7))));
    const [a, b] = [leafHash(entry(1)), leafHash(entry(2))];
    expect(hex(nodeHash(a, b))).toBe(sha(Buffer.from([1]), Buffer.from(a), Buffer.from(b)));
    expect(hex(emptyTreeHash())).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});

describe('tree hash and proofs of every size from 0 to 300', () => {
  const { store, leaves } = grow(300);

  it('appending reports the root of every size, and the tiles read back give the same root', async () => {
    // Rebuild one size at a time to see every intermediate root appendLeaves reports.
    const stepwise = new MemoryTileStore();
    expect(hex(stepwise.rootHash)).not.toBe(hex(mth([])));
    for (let n = 0; n <= 300; n++) {
      if (n > 0) stepwise.append([leaves[n - 1]!]);
      const expected = hex(mth(leaves.slice(0, n)));
      if (n > 0) expect(hex(stepwise.rootHash)).toBe(expected);
      expect(hex(await treeHash(n, store.readTiles))).toBe(expected);
      expect(hex(await treeHash(n, stepwise.readTiles))).toBe(expected);
    }
  });

  it('inclusion proofs are RFC 9162 PATH for every leaf of every size, and they check', async () => {
    for (let n = 1; n <= 300; n++) {
      const root = mth(leaves.slice(0, n));
      const indexes = n <= 24 ? [...Array(n).keys()] : [0, 1, 127, 128, 254, 255, 256, n - 2, n - 1];
      for (const m of indexes.filter((i) => i < n)) {
        const got = await inclusionProof(m, n, store.readTiles);
        expect(hexes(got)).toEqual(hexes(path(m, leaves.slice(0, n))));
        expect(checkInclusion(got, n, root, m, leaves[m]!)).toBe(true);
      }
    }
  });

  it('consistency proofs are RFC 9162 PROOF for pairs of sizes, and they check', async () => {
    for (let n = 1; n <= 300; n++) {
      const root = mth(leaves.slice(0, n));
      const froms = n <= 16 ? [...Array(n).keys()].map((i) => i + 1) : [1, 2, 7, 128, 255, 256, 257, n - 1, n];
      for (const m of froms.filter((f) => f >= 1 && f <= n)) {
        const got = await consistencyProof(m, n, store.readTiles);
        expect(hexes(got)).toEqual(hexes(proof(m, leaves.slice(0, n))));
        expect(checkConsistency(got, n, root, m, mth(leaves.slice(0, m)))).toBe(true);
      }
    }
  });

  it('rejects proofs that were altered or asked for the wrong leaf, size or root', async () => {
    const n = 257;
    const root = mth(leaves.slice(0, n));
    const good = await inclusionProof(100, n, store.readTiles);
    expect(checkInclusion(good, n, root, 100, leaves[100]!)).toBe(true);
    for (let i = 0; i < good.length; i++) {
      const bad = good.map((h) => h.slice());
      bad[i]![5]! ^= 1;
      expect(checkInclusion(bad, n, root, 100, leaves[100]!)).toBe(false);
    }
    expect(checkInclusion(good, n, root, 101, leaves[100]!)).toBe(false);
    expect(checkInclusion(good, n, root, 100, leaves[101]!)).toBe(false);
    // (Size 258 would pass: a proof binds the size only through the root, which the checkpoint signs.)
    expect(checkInclusion(good, n - 1, root, 100, leaves[100]!)).toBe(false);
    expect(checkInclusion(good.slice(1), n, root, 100, leaves[100]!)).toBe(false);
    expect(checkInclusion([...good, good[0]!], n, root, 100, leaves[100]!)).toBe(false);
    expect(checkInclusion(good, n, root, n, leaves[100]!)).toBe(false);

    const oldRoot = mth(leaves.slice(0, 100));
    const tree = await consistencyProof(100, n, store.readTiles);
    expect(checkConsistency(tree, n, root, 100, oldRoot)).toBe(true);
    for (let i = 0; i < tree.length; i++) {
      const bad = tree.map((h) => h.slice());
      bad[i]![0]! ^= 0x80;
      expect(checkConsistency(bad, n, root, 100, oldRoot)).toBe(false);
    }
    // A forked history: the old root of another tree of size 100.
    expect(checkConsistency(tree, n, root, 100, mth(leaves.slice(1, 101)))).toBe(false);
    expect(checkConsistency(tree, n, root, 99, oldRoot)).toBe(false);
    expect(checkConsistency([], n, root, n, root)).toBe(true);
    expect(checkConsistency([], n, root, n, oldRoot)).toBe(false);
    expect(checkConsistency([], n, root, 0, root)).toBe(false);
  });
});

describe('the JSON answers of the proof routes', () => {
  const { store, leaves } = grow(40);
  const b64 = (list: Uint8Array[]) => list.map((h) => Buffer.from(h).toString('base64'));
  const head = (n: number) => ({ size: n, rootHash: mth(leaves.slice(0, n)) });

  it('check against the checkpoint they are for, and the entry they name', async () => {
    const answer = {
      index: 9,
      size: 40,
      leafHash: b64([leaves[9]!])[0]!,
      proof: b64(await inclusionProof(9, 40, store.readTiles)),
    };
    expect(checkInclusionAnswer(answer, head(40), entry(9))).toBe(true);
    expect(checkInclusionAnswer(answer, head(40))).toBe(true);
    expect(checkInclusionAnswer(answer, head(40), entry(10))).toBe(false);
    expect(checkInclusionAnswer(answer, head(39))).toBe(false);
    expect(checkInclusionAnswer({ ...answer, proof: [...answer.proof.slice(1), 'not base64!'] }, head(40))).toBe(false);
    expect(checkInclusionAnswer({ ...answer, leafHash: answer.leafHash.slice(0, -1) }, head(40))).toBe(false);

    const growth = { from: 17, to: 40, proof: b64(await consistencyProof(17, 40, store.readTiles)) };
    expect(checkConsistencyAnswer(growth, head(17), head(40))).toBe(true);
    expect(checkConsistencyAnswer(growth, head(18), head(40))).toBe(false);
    expect(checkConsistencyAnswer(growth, { size: 17, rootHash: mth(leaves.slice(1, 18)) }, head(40))).toBe(false);
    expect(checkConsistencyAnswer({ from: 0, to: 40, proof: [] }, head(0), head(40))).toBe(true);
    expect(checkConsistencyAnswer({ from: 40, to: 40, proof: [] }, head(40), head(40))).toBe(true);
    expect(checkConsistencyAnswer({ from: 40, to: 40, proof: [] }, head(40), { size: 40, rootHash: mth([]) })).toBe(
      false,
    );
  });
});

describe('large trees (levels 1 and 2 of tiles)', () => {
  it('70,000 leaves in sequencer batches: roots, proofs and right edges agree with the RFC', async () => {
    const size = 70_000;
    const { store, leaves } = grow(size, (round) => [1, 255, 4096, 999, 3][round % 5]!);
    expect(hex(store.rootHash)).toBe(hex(mthLarge(leaves, size)));
    // 70,000 = 273·256 + 112, 273 = 256 + 17: partial tiles at levels 0 (112), 1 (17) and 2 (1).
    expect(rightEdgeTiles(size)).toEqual([
      { level: 0, index: 273, width: 112 },
      { level: 1, index: 1, width: 17 },
      { level: 2, index: 0, width: 1 },
    ]);
    for (const n of [65_535, 65_536, 65_537, 69_999, 70_000]) {
      const root = mthLarge(leaves, n);
      expect(hex(await treeHash(n, store.readTiles))).toBe(hex(root));
      for (const m of [0, 255, 256, 65_535, n - 1]) {
        if (m >= n) continue;
        const p = await inclusionProof(m, n, store.readTiles);
        expect(checkInclusion(p, n, root, m, leaves[m]!)).toBe(true);
      }
      for (const from of [1, 256, 65_536, n]) {
        if (from > n) continue;
        const p = await consistencyProof(from, n, store.readTiles);
        expect(checkConsistency(p, n, root, from, mthLarge(leaves, from))).toBe(true);
      }
    }
    // (Hash for hash equality with Go's ProveRecord/ProveTree at these sizes: test-support's Go check.)
  });

  it('appendLeaves refuses a right edge of the wrong width (a server that read the wrong row)', () => {
    expect(() => appendLeaves(3, () => [leafHash(entry(0))], [leafHash(entry(3))])).toThrow(/right edge/);
  });
});

describe('the verified tile reader (clients)', () => {
  const { store, leaves } = grow(600);
  const head = { size: 600, rootHash: mth(leaves) };

  it('proves from tiles it checked against the checkpoint', async () => {
    const reader = tileHashReader(head, store.readTiles);
    expect(hexes(await proveRecord(600, 3, reader))).toEqual(hexes(path(3, leaves)));
  });

  for (const [what, key] of [
    ['a full tile off the right edge', '0/0'],
    ['the right-edge partial tile', '0/2'],
    ['the level-1 tile', '1/0'],
  ] as const) {
    it(`throws when ${what} was altered by one bit`, async () => {
      const bad = new MemoryTileStore();
      for (const [k, v] of store.rows) bad.rows.set(k, v.slice());
      bad.size = store.size;
      bad.rows.get(key)![33]! ^= 1;
      const reader = tileHashReader(head, bad.readTiles);
      await expect(proveRecord(600, 3, reader)).rejects.toThrow('downloaded inconsistent tile');
    });
  }

  it('throws when the checkpoint root is not the tiles', async () => {
    const reader = tileHashReader({ size: 600, rootHash: mth(leaves.slice(0, 599)) }, store.readTiles);
    await expect(proveRecord(600, 3, reader)).rejects.toThrow('downloaded inconsistent tile');
  });
});
