// C2SP tlog-checkpoint: the note text `<origin>\n<size>\n<base64 root hash>\n[extension lines]`.
import { fromBase64, toBase64 } from './bytes.js';
import { HASH_SIZE } from './hash.js';

export interface Checkpoint {
  origin: string;
  size: number;
  rootHash: Uint8Array;
  /** Lines after the root hash (C2SP extension lines); none in this log's own checkpoints. */
  extensions?: string[];
}

export class CheckpointError extends Error {
  override name = 'CheckpointError';
}

export function formatCheckpoint(checkpoint: Checkpoint): string {
  const { origin, size, rootHash } = checkpoint;
  if (origin === '' || /[\n\r]/.test(origin)) throw new CheckpointError('the origin must be one non-empty line');
  if (!Number.isSafeInteger(size) || size < 0) throw new CheckpointError(`bad tree size ${size}`);
  if (rootHash.length !== HASH_SIZE) throw new CheckpointError('the root hash must be 32 bytes');
  const extensions = (checkpoint.extensions ?? []).map((line) => `${line}\n`).join('');
  return `${origin}\n${size}\n${toBase64(rootHash)}\n${extensions}`;
}

const sizePattern = /^(?:0|[1-9][0-9]*)$/;

/** Parses a checkpoint's text (the note text, signatures already removed); throws CheckpointError. */
export function parseCheckpoint(text: string): Checkpoint {
  if (!text.endsWith('\n')) throw new CheckpointError('a checkpoint ends with a newline');
  const lines = text.slice(0, -1).split('\n');
  if (lines.length < 3) throw new CheckpointError('a checkpoint has an origin, a size and a root hash line');
  const [origin, sizeLine, hashLine, ...extensions] = lines as [string, string, string, ...string[]];
  if (origin === '') throw new CheckpointError('empty origin line');
  if (!sizePattern.test(sizeLine) || !Number.isSafeInteger(Number(sizeLine))) {
    throw new CheckpointError(`bad tree size line ${JSON.stringify(sizeLine)}`);
  }
  const rootHash = fromBase64(hashLine);
  if (rootHash === null || rootHash.length !== HASH_SIZE) throw new CheckpointError('bad root hash line');
  if (extensions.some((line) => line === '')) throw new CheckpointError('empty extension line');
  return { origin, size: Number(sizeLine), rootHash, extensions };
}
