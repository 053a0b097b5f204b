// Tree hashes and RFC 9162 proofs over stored hashes, ported from Go's
// golang.org/x/mod/sumdb/tlog (tlog.go), BSD-3-Clause, Copyright 2019 The Go Authors.
// The proofs come out in RFC 9162's order, hash for hash what tlog.ProveRecord / ProveTree give.
import { bytesEqual } from './bytes.js';
import { emptyTreeHash, HASH_SIZE, nodeHash } from './hash.js';
import { assertTreeSize, maxPow2, subTreeIndex } from './tree-math.js';

/** Reads stored hashes by their stored hash index (Go's HashReader), in the order asked. */
export type HashReader = (indexes: number[]) => Promise<Uint8Array[]>;

async function readExactly(reader: HashReader, indexes: number[]): Promise<Uint8Array[]> {
  const hashes = await reader(indexes);
  if (hashes.length !== indexes.length) {
    throw new Error(`tlog: ReadHashes(${indexes.length} indexes) = ${hashes.length} hashes`);
  }
  return hashes;
}

/**
 * Subtree hashes already folded, by [lo, hi): the hash of leaves lo..hi-1 never changes, so a
 * server proving many entries in one tree folds its right edge once (tile-cache.ts keeps one).
 */
export interface SubtreeMemo {
  get(lo: number, hi: number): Uint8Array | undefined;
  set(lo: number, hi: number, hash: Uint8Array): void;
}

/** Folds the complete subtrees of [lo, hi) into one hash; returns it and the hashes left over. */
function subTreeHash(lo: number, hi: number, hashes: Uint8Array[], memo?: SubtreeMemo): [Uint8Array, Uint8Array[]] {
  const from = lo;
  let numTree = 0;
  while (lo < hi) {
    const { k } = maxPow2(hi - lo + 1);
    if (lo % k !== 0 || lo >= hi) throw new Error('tlog: bad math in subTreeHash');
    numTree++;
    lo += k;
  }
  if (hashes.length < numTree) throw new Error('tlog: bad index math in subTreeHash');
  let h = numTree > 1 ? memo?.get(from, hi) : undefined;
  if (!h) {
    h = hashes[numTree - 1]!;
    for (let i = numTree - 2; i >= 0; i--) h = nodeHash(hashes[i]!, h);
    if (numTree > 1) memo?.set(from, hi, h);
  }
  return [h, hashes.slice(numTree)];
}

/** The root hash of the first n leaves. Go's TreeHash, except size 0 gives SHA-256("") (RFC 6962). */
export async function treeHashFrom(n: number, reader: HashReader): Promise<Uint8Array> {
  assertTreeSize('size', n);
  if (n === 0) return emptyTreeHash();
  const indexes = subTreeIndex(0, n, []);
  const [hash, rest] = subTreeHash(0, n, await readExactly(reader, indexes));
  if (rest.length !== 0) throw new Error('tlog: bad index math in TreeHash');
  return hash;
}

/**
 * Go's leafProofIndex/leafProof and treeProofIndex/treeProof walk the tree the same way and differ
 * only in where leaf (or old size) n goes at a split and where the walk stops; one walker with the
 * two shapes keeps the recursion in one place.
 */
interface ProofShape {
  name: string;
  /** Whether n lies in [lo, hi) (inclusion) or (lo, hi] (consistency). */
  inRange(lo: number, hi: number, n: number): boolean;
  /** Whether n's side of a split at lo + k is the left. */
  goesLeft(lo: number, k: number, n: number): boolean;
  /** Whether the walk stops here; then `baseIndex`/`baseProof` give the proof's start. */
  isBase(lo: number, hi: number, n: number): boolean;
  baseIndex(lo: number, hi: number, need: number[]): number[];
  baseProof(lo: number, hi: number, hashes: Uint8Array[]): [Uint8Array[], Uint8Array[]];
}

const inclusionShape: ProofShape = {
  name: 'leafProof',
  inRange: (lo, hi, n) => lo <= n && n < hi,
  goesLeft: (lo, k, n) => n < lo + k,
  isBase: (lo, hi) => lo + 1 === hi,
  baseIndex: (_lo, _hi, need) => need,
  baseProof: (_lo, _hi, hashes) => [[], hashes],
};

const consistencyShape: ProofShape = {
  name: 'treeProof',
  inRange: (lo, hi, n) => lo < n && n <= hi,
  goesLeft: (lo, k, n) => n <= lo + k,
  isBase: (_lo, hi, n) => n === hi,
  // The old tree is a whole subtree here: its hash is part of the proof unless it is the old root.
  baseIndex: (lo, hi, need) => (lo === 0 ? need : subTreeIndex(lo, hi, need)),
  baseProof: (lo, hi, hashes) => {
    if (lo === 0) return [[], hashes];
    const [th, rest] = subTreeHash(lo, hi, hashes);
    return [[th], rest];
  },
};

function proofIndex(shape: ProofShape, lo: number, hi: number, n: number, need: number[]): number[] {
  if (!shape.inRange(lo, hi, n)) throw new Error(`tlog: bad math in ${shape.name}Index`);
  if (shape.isBase(lo, hi, n)) return shape.baseIndex(lo, hi, need);
  const { k } = maxPow2(hi - lo);
  if (shape.goesLeft(lo, k, n)) {
    proofIndex(shape, lo, lo + k, n, need);
    subTreeIndex(lo + k, hi, need);
  } else {
    subTreeIndex(lo, lo + k, need);
    proofIndex(shape, lo + k, hi, n, need);
  }
  return need;
}

function buildProof(
  shape: ProofShape,
  lo: number,
  hi: number,
  n: number,
  hashes: Uint8Array[],
  memo?: SubtreeMemo,
): [Uint8Array[], Uint8Array[]] {
  if (!shape.inRange(lo, hi, n)) throw new Error(`tlog: bad math in ${shape.name}`);
  if (shape.isBase(lo, hi, n)) return shape.baseProof(lo, hi, hashes);
  let proof: Uint8Array[];
  let th: Uint8Array;
  const { k } = maxPow2(hi - lo);
  if (shape.goesLeft(lo, k, n)) {
    [proof, hashes] = buildProof(shape, lo, lo + k, n, hashes, memo);
    [th, hashes] = subTreeHash(lo + k, hi, hashes, memo);
  } else {
    [th, hashes] = subTreeHash(lo, lo + k, hashes, memo);
    [proof, hashes] = buildProof(shape, lo + k, hi, n, hashes, memo);
  }
  proof.push(th);
  return [proof, hashes];
}

/**
 * The inclusion proof of leaf `index` in the tree of `size` leaves. Go's ProveRecord(size, index, r);
 * `memo` (optional) keeps the folded subtree hashes of one tree across calls.
 */
export async function proveRecord(
  size: number,
  index: number,
  reader: HashReader,
  memo?: SubtreeMemo,
): Promise<Uint8Array[]> {
  assertTreeSize('size', size);
  assertTreeSize('index', index);
  if (index >= size) throw new RangeError(`index ${index} is not below size ${size}`);
  const indexes = proofIndex(inclusionShape, 0, size, index, []);
  if (indexes.length === 0) return [];
  const [proof, rest] = buildProof(inclusionShape, 0, size, index, await readExactly(reader, indexes), memo);
  if (rest.length !== 0) throw new Error('tlog: bad index math in ProveRecord');
  return proof;
}

/** The consistency proof from the tree of `from` leaves to the tree of `to`. Go's ProveTree(to, from, r). */
export async function proveTree(to: number, from: number, reader: HashReader): Promise<Uint8Array[]> {
  assertTreeSize('to', to);
  assertTreeSize('from', from);
  if (from < 1 || from > to) throw new RangeError(`consistency needs 1 ≤ from ≤ to, got from ${from}, to ${to}`);
  const indexes = proofIndex(consistencyShape, 0, to, from, []);
  if (indexes.length === 0) return [];
  const [proof, rest] = buildProof(consistencyShape, 0, to, from, await readExactly(reader, indexes));
  if (rest.length !== 0) throw new Error('tlog: bad index math in ProveTree');
  return proof;
}

function isHash(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array && value.length === HASH_SIZE;
}

function isSize(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}

function runRecordProof(proof: Uint8Array[], lo: number, hi: number, n: number, leaf: Uint8Array): Uint8Array | null {
  if (lo + 1 === hi) return proof.length === 0 ? leaf : null;
  if (proof.length === 0) return null;
  const last = proof[proof.length - 1]!;
  const { k } = maxPow2(hi - lo);
  if (n < lo + k) {
    const th = runRecordProof(proof.slice(0, -1), lo, lo + k, n, leaf);
    return th && nodeHash(th, last);
  }
  const th = runRecordProof(proof.slice(0, -1), lo + k, hi, n, leaf);
  return th && nodeHash(last, th);
}

/**
 * True when `proof` shows that `leafHash` is leaf `index` of the tree of `size` leaves whose root
 * is `root`. Go's CheckRecord(proof, size, root, index, leafHash) == nil; bad inputs give false.
 */
export function checkInclusion(
  proof: Uint8Array[],
  size: number,
  root: Uint8Array,
  index: number,
  leafHash: Uint8Array,
): boolean {
  if (!isSize(size) || !isSize(index) || index >= size || size > 2 ** 53 - 1) return false;
  if (!isHash(root) || !isHash(leafHash) || !proof.every(isHash) || proof.length > 64) return false;
  const computed = runRecordProof(proof, 0, size, index, leafHash);
  return computed !== null && bytesEqual(computed, root);
}

function runTreeProof(
  proof: Uint8Array[],
  lo: number,
  hi: number,
  n: number,
  old: Uint8Array,
): [Uint8Array, Uint8Array] | null {
  if (n === hi) {
    if (lo === 0) return proof.length === 0 ? [old, old] : null;
    return proof.length === 1 ? [proof[0]!, proof[0]!] : null;
  }
  if (proof.length === 0) return null;
  const last = proof[proof.length - 1]!;
  const { k } = maxPow2(hi - lo);
  if (n <= lo + k) {
    const inner = runTreeProof(proof.slice(0, -1), lo, lo + k, n, old);
    return inner && [inner[0], nodeHash(inner[1], last)];
  }
  const inner = runTreeProof(proof.slice(0, -1), lo + k, hi, n, old);
  return inner && [nodeHash(last, inner[0]), nodeHash(last, inner[1])];
}

/**
 * True when `proof` shows that the tree of `from` leaves with root `fromRoot` is a prefix of the
 * tree of `to` leaves with root `toRoot`. Go's CheckTree(proof, to, toRoot, from, fromRoot) == nil.
 */
export function checkConsistency(
  proof: Uint8Array[],
  to: number,
  toRoot: Uint8Array,
  from: number,
  fromRoot: Uint8Array,
): boolean {
  if (!isSize(to) || !isSize(from) || from < 1 || from > to) return false;
  if (!isHash(toRoot) || !isHash(fromRoot) || !proof.every(isHash) || proof.length > 128) return false;
  const result = runTreeProof(proof, 0, to, from, fromRoot);
  return result !== null && bytesEqual(result[0], fromRoot) && bytesEqual(result[1], toRoot);
}
