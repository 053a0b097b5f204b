// A checkpoint as the log serves it: a C2SP tlog-checkpoint in a signed note.
import { type Checkpoint, CheckpointError, formatCheckpoint, parseCheckpoint } from './checkpoint.js';
import { type NoteSigner, type NoteVerifier, openNote, parseVerifierKey, signNote } from './note.js';

/** Formats and signs a checkpoint; the signer's name must be the origin (C2SP). */
export function signCheckpoint(checkpoint: Checkpoint, signer: NoteSigner): string {
  if (signer.name !== checkpoint.origin) throw new CheckpointError('the log key is named after the origin');
  return signNote(formatCheckpoint(checkpoint), signer);
}

/**
 * Opens a signed checkpoint with the log's verifier key and parses it. The origin must be the key's
 * name: a note signed by this key for another log is not this log's checkpoint. Throws NoteError or
 * CheckpointError.
 */
export function openCheckpoint(note: string | Uint8Array, key: string | NoteVerifier): Checkpoint {
  const verifier = typeof key === 'string' ? parseVerifierKey(key) : key;
  const checkpoint = parseCheckpoint(openNote(note, [verifier]));
  if (checkpoint.origin !== verifier.name) {
    throw new CheckpointError(`the checkpoint's origin ${JSON.stringify(checkpoint.origin)} is not the key's name`);
  }
  return checkpoint;
}
