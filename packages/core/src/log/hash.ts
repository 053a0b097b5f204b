// RFC 6962 / RFC 9162 hashing of the log's Merkle tree.
import { sha256 } from '@noble/hashes/sha2';
import { concatBytes } from './bytes.js';

/** Every hash in the tree is a SHA-256 digest. */
export const HASH_SIZE = 32;

const leafPrefix = new Uint8Array([0x00]);
const nodePrefix = new Uint8Array([0x01]);

/** The leaf hash of an entry: SHA-256(0x00 ‖ entry). Go's tlog.RecordHash. */
export function leafHash(entry: Uint8Array): Uint8Array {
  return sha256(concatBytes(leafPrefix, entry));
}

/** An interior node: SHA-256(0x01 ‖ left ‖ right). Go's tlog.NodeHash. */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha256(concatBytes(nodePrefix, left, right));
}

/**
 * The hash of the empty tree: SHA-256 of the empty string (RFC 6962 §2.1). Go's tlog.TreeHash
 * answers all zeros for size 0 instead; C2SP checkpoints follow the RFC, so this port does too.
 */
export function emptyTreeHash(): Uint8Array {
  return sha256(new Uint8Array(0));
}

export function sha256Bytes(data: Uint8Array): Uint8Array {
  return sha256(data);
}
