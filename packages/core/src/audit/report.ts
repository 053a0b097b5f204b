/**
 * What an audit or `verifySignal` found: every failure names its check and, where it has one,
 * the signal and the log index, so a report is never only "false". The checks' meanings are in
 * docs/log.md, "Check it yourself".
 */

export const AUDIT_CHECKS = {
  // The log itself.
  'log-unreachable': 'the log could not be read over HTTP',
  'checkpoint-signature': "the checkpoint does not open with the log's key",
  'log-shrank': 'the checkpoint is smaller than one seen before',
  'log-forked': 'the checkpoint is inconsistent with one seen before',
  'entries-unavailable': 'an entry bundle is missing or malformed',
  'tree-root': "the entries do not hash to the checkpoint's root",
  'tile-mismatch': 'a served tile differs from the hashes of the entries',
  'entry-malformed': 'an entry is not one the contract defines',
  // The provider's history in the log.
  'publisher-entry': 'a publisher entry contradicts the ones before it',
  'key-statement': 'a key statement in the log is malformed or does not match its entry',
  'key-signature': "a key statement's signature is not its signer's",
  'key-not-allowed': 'a key statement was signed by someone not allowed to at its receivedAt',
  // The provider's public signals against the log.
  'list-unavailable': "the provider's signal list could not be read",
  'signal-hidden': 'the log has a signal the public list does not show',
  'signal-not-in-log': 'the public list shows a signal the log does not have',
  'signal-fields': "a signal's publishedAt, revealAt, provider or statement order is wrong",
  'statement-missing': 'the log has a statement of the signal the list does not show',
  'statement-not-in-log': 'the list shows a statement the log does not have',
  'statement-mismatch': "a statement's type, receivedAt or commitment differs from its log entry",
  unrevealed: 'a statement whose revealAt has passed is not revealed',
  commitment: 'a revealed statement does not hash to its logged commitment',
  'statement-fields':
    "a revealed statement's log, provider, type or signal differs from its entry, or it is not canonical",
  signature: "a statement's signature is not its signer's",
  'signature-unchecked': "a contract wallet's signature, which needs a chain to check (--rpc)",
  'signer-not-allowed': 'the signer was not allowed to sign for the provider at the receivedAt',
  'signal-content': "a signal's content or status is not what its statements make it",
} as const;

export type AuditCheck = keyof typeof AUDIT_CHECKS;

export interface AuditFailure {
  check: AuditCheck;
  /** What exactly was wrong, in words. */
  message: string;
  signal?: string;
  logIndex?: number;
}

export interface CheckpointSummary {
  origin: string;
  size: number;
  /** Base64, as in the checkpoint. */
  rootHash: string;
}

export type StatementVerdict =
  /** In the log, revealed, hashing to its commitment, signed by a signer allowed then. */
  | 'verified'
  /** In the log as a commitment; its content is not due yet (revealAt in the future). */
  | 'committed'
  | 'failed';

export interface StatementReport {
  logIndex: number;
  type: string;
  receivedAt: string;
  verdict: StatementVerdict;
  /** The signer, for a revealed statement. */
  signer?: string;
}

export interface SignalReport {
  ok: boolean;
  signal: string;
  provider: number;
  status?: string;
  statements: StatementReport[];
  failures: AuditFailure[];
}

export function failure(check: AuditCheck, message: string, where: { signal?: string; logIndex?: number } = {}) {
  return { check, message, ...where } satisfies AuditFailure;
}

/**
 * A signal as the reads answer it (CONTRACT.md, "Signals"; `Signal` of signal.schemas.ts), the
 * fields the checks read, written here so the audit's declarations need no zod.
 */
export interface AuditedSignal {
  id: string;
  providerId: number;
  status: string;
  publishedAt: string;
  revealAt: string;
  content: object | null;
  statements: {
    logIndex: number;
    type: string;
    receivedAt: string;
    commitment: string;
    statement: string | null;
    signer: string | null;
    signature: string | null;
  }[];
}
