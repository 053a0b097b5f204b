// RFC 6962 §2.1 written straight from the RFC's text, with node:crypto's SHA-256: the independent
// reference the log's tree hashes and proofs are checked against. Deliberately naive (recursive,
// no tiles, no stored-hash indexes) so it shares nothing with the code under test.
import { createHash } from 'node:crypto';

const sha256 = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const part of parts) h.update(part);
  return new Uint8Array(h.digest());
};

export const rfcLeafHash = (entry: Uint8Array) => sha256(Uint8Array.of(0), entry);
const rfcNode = (left: Uint8Array, right: Uint8Array) => sha256(Uint8Array.of(1), left, right);

/** "k is the largest power of two smaller than n" (n > 1). */
const split = (n: number) => {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
};

/** MTH(D[n]) over leaf hashes (RFC 6962 §2.1: MTH({}) = SHA-256()). */
export function mth(leaves: Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return sha256();
  if (leaves.length === 1) return leaves[0]!;
  const k = split(leaves.length);
  return rfcNode(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

/** PATH(m, D[n]) (§2.1.1). */
export function path(m: number, leaves: Uint8Array[]): Uint8Array[] {
  if (leaves.length === 1) return [];
  const k = split(leaves.length);
  if (m < k) return [...path(m, leaves.slice(0, k)), mth(leaves.slice(k))];
  return [...path(m - k, leaves.slice(k)), mth(leaves.slice(0, k))];
}

/** PROOF(m, D[n]) = SUBPROOF(m, D[n], true) (§2.1.2). */
export function proof(m: number, leaves: Uint8Array[]): Uint8Array[] {
  return subproof(m, leaves, true);
}

function subproof(m: number, leaves: Uint8Array[], b: boolean): Uint8Array[] {
  const n = leaves.length;
  if (m === n) return b ? [] : [mth(leaves)];
  const k = split(n);
  if (m <= k) return [...subproof(m, leaves.slice(0, k), b), mth(leaves.slice(k))];
  return [...subproof(m - k, leaves.slice(k), false), mth(leaves.slice(0, k))];
}

/**
 * MTH of every prefix size asked, for big trees: MTH(D[n]) for n a sum of descending powers of two
 * is the fold of MTHs of aligned power-of-two blocks, each computed once bottom-up (still the RFC's
 * definition: an aligned block of 2^j leaves splits at 2^(j-1)).
 */
export function mthLarge(leaves: Uint8Array[], n: number): Uint8Array {
  if (n === 0) return sha256();
  const blocks: Uint8Array[] = [];
  let lo = 0;
  for (let size = 2 ** Math.floor(Math.log2(n)); size >= 1; size /= 2) {
    if (lo + size <= n) {
      blocks.push(blockHash(leaves, lo, size));
      lo += size;
    }
  }
  let h = blocks[blocks.length - 1]!;
  for (let i = blocks.length - 2; i >= 0; i--) h = rfcNode(blocks[i]!, h);
  return h;
}

function blockHash(leaves: Uint8Array[], lo: number, size: number): Uint8Array {
  let level = leaves.slice(lo, lo + size);
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(rfcNode(level[i]!, level[i + 1]!));
    level = next;
  }
  return level[0]!;
}
