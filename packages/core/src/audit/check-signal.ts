/**
 * One signal, as a reader got it, against the provider's history in the log: its statements are
 * exactly the log's for it, in log order, each with the entry's type, receivedAt and
 * commitment; every revealed statement hashes to its commitment, is canonical and names the
 * log, the provider, the type and the signal of its entry, is signed by its signer, who was
 * allowed to sign then; and a statement whose revealAt has passed is revealed.
 */
import { sha256 } from '@noble/hashes/sha2';
import { toHex, utf8 } from '../log/bytes.js';
import { canonicalJson, type JsonValue } from '../statements/canonical-json.js';
import type { ProviderHistory } from './history.js';
import { type AuditedSignal, type AuditFailure, failure, type SignalReport, type StatementReport } from './report.js';
import { checkSignature, type EvmChainCheck } from './signatures.js';

/** The longest reveal delay the contract allows (`revealDelaySeconds` ≤ 2,592,000). */
const MAX_REVEAL_DELAY_MS = 2_592_000_000;

export interface CheckSignalOptions {
  evmChain?: EvmChainCheck;
  /** The auditor's clock (default now): statements whose revealAt is before it must be revealed. */
  now?: Date;
}

/** Hex SHA-256 of a statement's UTF-8 bytes, without Node built-ins. */
export function commitmentOf(statement: string): string {
  return toHex(sha256(utf8(statement)));
}

export async function checkSignal(
  signal: AuditedSignal,
  history: ProviderHistory,
  options: CheckSignalOptions = {},
): Promise<SignalReport> {
  const failures: AuditFailure[] = [];
  const id = signal.id;
  const fail = (check: AuditFailure['check'], message: string, logIndex?: number) =>
    failures.push(failure(check, message, logIndex === undefined ? { signal: id } : { signal: id, logIndex }));
  const now = (options.now ?? new Date()).getTime();
  const reports: StatementReport[] = [];

  if (signal.providerId !== history.provider) {
    fail('signal-fields', `the signal names provider ${signal.providerId}, not ${history.provider}`);
  }
  const logged = history.signals.get(id) ?? [];
  if (logged.length === 0)
    fail('signal-not-in-log', `the log has no statement of signal ${id} for provider ${history.provider}`);

  const listed = signal.statements ?? [];
  for (let i = 1; i < listed.length; i++) {
    if (listed[i]!.logIndex <= listed[i - 1]!.logIndex) fail('signal-fields', 'the statements are not in log order');
  }
  const shown = new Set(listed.map((s) => s.logIndex));
  for (const entry of logged) {
    if (!shown.has(entry.logIndex))
      fail('statement-missing', `the ${entry.type} of entry ${entry.logIndex} is not shown`, entry.logIndex);
  }
  const open = logged[0];
  if (open && open.type !== 'signal.open')
    fail('signal-fields', `the signal's first statement in the log is a ${open.type}`, open.logIndex);
  if (open && signal.publishedAt !== open.receivedAt) {
    fail(
      'signal-fields',
      `publishedAt ${signal.publishedAt} is not the open's receivedAt ${open.receivedAt}`,
      open.logIndex,
    );
  }
  const revealAt = Date.parse(signal.revealAt);
  const publishedAt = Date.parse(signal.publishedAt);
  if (!Number.isFinite(revealAt) || !(revealAt >= publishedAt) || revealAt - publishedAt > MAX_REVEAL_DELAY_MS) {
    fail('signal-fields', `revealAt ${signal.revealAt} is not within 30 days after publishedAt ${signal.publishedAt}`);
  }
  const due = Number.isFinite(revealAt) && revealAt <= now;
  if (due && signal.content === null && listed.every((s) => s.statement !== null))
    fail('unrevealed', `revealAt ${signal.revealAt} has passed and the content is withheld`);

  for (const view of listed) {
    const before = failures.length;
    const report: StatementReport = {
      logIndex: view.logIndex,
      type: view.type,
      receivedAt: view.receivedAt,
      verdict: 'failed',
    };
    reports.push(report);
    const entry = history.statements.get(view.logIndex);
    if (!entry || entry.signal !== id) {
      fail(
        'statement-not-in-log',
        `entry ${view.logIndex} of the log is not a statement of signal ${id}`,
        view.logIndex,
      );
      continue;
    }
    for (const field of ['type', 'receivedAt', 'commitment'] as const) {
      if (view[field] !== entry[field]) {
        fail(
          'statement-mismatch',
          `${field} is ${JSON.stringify(view[field])}, the log has ${JSON.stringify(entry[field])}`,
          view.logIndex,
        );
      }
    }
    if (view.statement === null) {
      if (due)
        fail(
          'unrevealed',
          `the ${entry.type} of entry ${view.logIndex} is withheld after revealAt ${signal.revealAt}`,
          view.logIndex,
        );
      if (failures.length === before) report.verdict = 'committed';
      continue;
    }
    report.signer = view.signer ?? undefined;
    if (commitmentOf(view.statement) !== entry.commitment) {
      fail('commitment', `the statement does not hash to the commitment of entry ${view.logIndex}`, view.logIndex);
      continue;
    }
    let parsed: Record<string, unknown> | null = null;
    try {
      parsed = JSON.parse(view.statement);
    } catch {}
    const expectedSignal = entry.type === 'signal.open' ? parsed?.id : parsed?.signal;
    if (
      typeof parsed !== 'object' ||
      parsed === null ||
      canonicalJson(parsed as JsonValue) !== view.statement ||
      parsed.v !== 1 ||
      parsed.log !== history.origin ||
      parsed.provider !== history.provider ||
      parsed.type !== entry.type ||
      expectedSignal !== id
    ) {
      fail(
        'statement-fields',
        `the statement is not a canonical ${entry.type} of signal ${id}, provider ${history.provider}, log ${history.origin}`,
        view.logIndex,
      );
      continue;
    }
    if (view.signer === null || view.signature === null) {
      fail('statement-fields', 'the statement is shown without its signer or signature', view.logIndex);
      continue;
    }
    const verdict = await checkSignature(view.signer, view.statement, view.signature, options.evmChain);
    if (verdict === 'unchecked') {
      fail(
        'signature-unchecked',
        `${view.signer} is a contract wallet (or the signature is wrong): without a chain (--rpc) it cannot be checked`,
        view.logIndex,
      );
      continue;
    }
    if (verdict === 'invalid') {
      fail('signature', `the signature is not ${view.signer}'s over the statement`, view.logIndex);
      continue;
    }
    const right = history.rightAt(view.signer, entry.receivedAt, entry.logIndex);
    if (!right.allowed) {
      fail(
        'signer-not-allowed',
        `${view.signer} may not sign for provider ${history.provider} at ${entry.receivedAt}: ${right.reason}`,
        view.logIndex,
      );
      continue;
    }
    report.verdict = 'verified';
  }
  return {
    ok: failures.length === 0,
    signal: id,
    provider: history.provider,
    status: signal.status,
    statements: reports,
    failures,
  };
}
