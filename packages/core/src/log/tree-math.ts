// Index arithmetic of the tree, ported from Go's golang.org/x/mod/sumdb/tlog (tlog.go), BSD-3-Clause,
// Copyright 2019 The Go Authors. JavaScript's bit operators are 32-bit, so shifts are written as
// multiplications and divisions by powers of two: exact for every safe integer.
//
// Go numbers every hash the tree ever stores in the order a writer appends them ("stored hash
// index"): leaf n, then each interior node as soon as it is complete. The tiles and proofs below
// address hashes by that index, exactly as Go's HashReader does.

/** Largest tree size the arithmetic is exact for (stored hash indexes stay below 2^53). */
export const MAX_TREE_SIZE = 2 ** 50;

export function shiftRight(n: number, bits: number): number {
  return Math.floor(n / 2 ** bits);
}

export function shiftLeft(n: number, bits: number): number {
  return n * 2 ** bits;
}

export function trailingZeros(n: number): number {
  if (n === 0) return 64;
  let count = 0;
  while (n % 2 === 0) {
    n /= 2;
    count++;
  }
  return count;
}

/** The largest power of two strictly below n (n ≥ 2), with its exponent. Go's maxpow2. */
export function maxPow2(n: number): { k: number; level: number } {
  // From log2, then corrected by whole steps (log2 of a large integer may round either way); a
  // proof calls this for every split, so no loop over all the levels (it was a proof's top cost).
  let level = n > 2 ? Math.floor(Math.log2(n - 1)) : 0;
  while (2 ** (level + 1) < n) level++;
  while (level > 0 && 2 ** level >= n) level--;
  return { k: 2 ** level, level };
}

/** The stored hash index of the n-th hash at the given level. Go's StoredHashIndex. */
export function storedHashIndex(level: number, n: number): number {
  for (let l = level; l > 0; l--) n = 2 * n + 1;
  let i = 0;
  for (; n > 0; n = shiftRight(n, 1)) i += n;
  return i + level;
}

/** The level and number within it of a stored hash index. Go's SplitStoredHashIndex. */
export function splitStoredHashIndex(index: number): { level: number; n: number } {
  let n = Math.floor(index / 2);
  let indexN = storedHashIndex(0, n);
  if (indexN > index) throw new Error('tlog: bad math in splitStoredHashIndex');
  for (;;) {
    const x = indexN + 1 + trailingZeros(n + 1);
    if (x > index) break;
    n++;
    indexN = x;
  }
  const level = index - indexN;
  return { level, n: shiftRight(n, level) };
}

/** How many hashes a tree of n leaves stores. Go's StoredHashCount. */
export function storedHashCount(n: number): number {
  if (n === 0) return 0;
  let count = storedHashIndex(0, n - 1) + 1;
  for (let i = n - 1; i % 2 === 1; i = shiftRight(i, 1)) count++;
  return count;
}

/** Appends the stored indexes of the complete subtrees that make up leaves [lo, hi). Go's subTreeIndex. */
export function subTreeIndex(lo: number, hi: number, need: number[]): number[] {
  while (lo < hi) {
    const { k, level } = maxPow2(hi - lo + 1);
    if (lo % k !== 0) throw new Error('tlog: bad math in subTreeIndex');
    need.push(storedHashIndex(level, shiftRight(lo, level)));
    lo += k;
  }
  return need;
}

export function assertTreeSize(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_TREE_SIZE) {
    throw new RangeError(`${name} must be an integer from 0 to 2^50, got ${value}`);
  }
}
