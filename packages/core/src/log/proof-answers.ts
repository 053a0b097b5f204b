// Checks of the log's JSON answers (`/log/proof/inclusion`, `/log/proof/consistency`: hashes in
// padded base64) against checkpoints the caller has opened. Shared by the SDK, the browser and the
// audit CLI, so every reader checks the same way.
import { bytesEqual, fromBase64 } from './bytes.js';
import type { Checkpoint } from './checkpoint.js';
import { leafHash } from './hash.js';
import { checkConsistency, checkInclusion } from './proofs.js';

/** `GET /log/proof/inclusion` as JSON. */
export interface InclusionAnswer {
  index: number;
  size: number;
  leafHash: string;
  proof: string[];
}

/** `GET /log/proof/consistency` as JSON. */
export interface ConsistencyAnswer {
  from: number;
  to: number;
  proof: string[];
}

type TreeHead = Pick<Checkpoint, 'size' | 'rootHash'>;

function decodeAll(hashes: string[]): Uint8Array[] | null {
  const out: Uint8Array[] = [];
  for (const text of hashes) {
    const hash = fromBase64(text);
    if (hash === null) return null;
    out.push(hash);
  }
  return out;
}

/**
 * True when `answer` proves entry `answer.index` is in the tree `checkpoint` signs (its size must
 * be the checkpoint's) and, when `entry` is given, that the proved leaf is that entry's.
 */
export function checkInclusionAnswer(answer: InclusionAnswer, checkpoint: TreeHead, entry?: Uint8Array): boolean {
  if (answer.size !== checkpoint.size) return false;
  const leaf = fromBase64(answer.leafHash);
  const proof = decodeAll(answer.proof);
  if (leaf === null || proof === null) return false;
  if (entry !== undefined && !bytesEqual(leaf, leafHash(entry))) return false;
  return checkInclusion(proof, answer.size, checkpoint.rootHash, answer.index, leaf);
}

/**
 * True when `answer` proves the tree `older` signs is a prefix of the tree `newer` signs. Equal
 * sizes need equal roots (and an empty proof); any tree extends the empty one.
 */
export function checkConsistencyAnswer(answer: ConsistencyAnswer, older: TreeHead, newer: TreeHead): boolean {
  if (answer.from !== older.size || answer.to !== newer.size) return false;
  const proof = decodeAll(answer.proof);
  if (proof === null) return false;
  if (older.size === 0) return proof.length === 0;
  return checkConsistency(proof, newer.size, newer.rootHash, older.size, older.rootHash);
}
