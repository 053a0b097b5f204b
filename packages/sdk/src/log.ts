/**
 * `@signal/sdk/log`: checking the public log, with the one implementation browser, Node and the
 * audit CLI share (@signal/core/log, a port of Go's sumdb/tlog and sumdb/note). A separate entry,
 * so apps that only call the API do not load SHA-256 and Ed25519.
 */
import {
  type Checkpoint,
  checkConsistencyAnswer,
  type NoteVerifier,
  openCheckpoint,
  parseVerifierKey,
} from '@signal/core/log';
import type { LogMethods } from './log-client.js';

// Anyone's check of the record: one signal (`verifySignal`) or a provider's whole history
// (`auditProvider`, what the `signal-audit` bin runs), on the log read whole (`readLog`).
export {
  AUDIT_CHECKS,
  type AuditCheck,
  type AuditedSignal,
  type AuditFailure,
  type AuditOptions,
  type AuditProgress,
  type AuditReport,
  auditProvider,
  type CheckpointSummary,
  checkSignature,
  commitmentOf,
  type EvmChainCheck,
  type LogView,
  type ReadLogOptions,
  readLog,
  type SignalReport,
  type SignatureVerdict,
  type StatementReport,
  type StatementVerdict,
  type VerifySignalOptions,
  type VerifySignalReport,
  verifySignal,
} from '@signal/core/audit';

export {
  type Checkpoint,
  CheckpointError,
  type ConsistencyAnswer,
  checkConsistency,
  checkConsistencyAnswer,
  checkInclusion,
  checkInclusionAnswer,
  decodeEntryBundle,
  EntryBundleError,
  entriesPath,
  fromBase64,
  type HashReader,
  type InclusionAnswer,
  leafHash,
  NoteError,
  type NoteErrorCode,
  type NoteVerifier,
  nodeHash,
  type OpenedNote,
  openCheckpoint,
  openNote,
  openNoteDetailed,
  type ParsedTilePath,
  parseCheckpoint,
  parseTilePath,
  parseVerifierKey,
  proveRecord,
  proveTree,
  type Tile,
  type TileReader,
  type TreeHead,
  tileHashReader,
  tilePath,
  toBase64,
  treeHashFrom,
  verifierKey,
} from '@signal/core/log';

/** The log showed something a monitor must not accept: a shrunk tree, a fork, a bad proof. */
export class LogConsistencyError extends Error {
  override readonly name = 'LogConsistencyError';
}

/**
 * One step of monitoring the log: fetches the newest checkpoint, opens it with the pinned `key`,
 * and, given the checkpoint kept from last time, proves the new tree extends it (a consistency
 * proof from the server, checked here). Returns the new checkpoint to keep. Throws NoteError or
 * CheckpointError for a checkpoint that does not open, LogConsistencyError when the log shrank or
 * forked.
 */
export async function advanceCheckpoint(
  log: Pick<LogMethods, 'checkpoint' | 'consistencyProof'>,
  key: string | NoteVerifier,
  previous?: Checkpoint,
): Promise<Checkpoint> {
  const verifier = typeof key === 'string' ? parseVerifierKey(key) : key;
  const next = openCheckpoint(await log.checkpoint(), verifier);
  if (!previous || previous.size === 0) return next;
  if (next.size < previous.size) {
    throw new LogConsistencyError(`the log shrank from ${previous.size} to ${next.size} entries`);
  }
  const answer =
    next.size === previous.size
      ? { from: previous.size, to: next.size, proof: [] }
      : await log.consistencyProof(previous.size, next.size);
  if (!checkConsistencyAnswer(answer, previous, next)) {
    throw new LogConsistencyError(
      `the checkpoint of ${next.size} entries does not extend the one of ${previous.size} kept: the log forked`,
    );
  }
  return next;
}
