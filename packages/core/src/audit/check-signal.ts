/**
 * One signal, as a reader got it, against the provider's history in the log: its statements are
 * exactly the log's for it, in log order, each with the entry's type, receivedAt and
 * commitment; every revealed statement hashes to its commitment, is canonical and names the
 * log, the provider, the type and the signal of its entry, is signed by its signer, who was
 * allowed to sign then; a statement whose revealAt has passed is revealed; and a signal shown
 * with its content has the content and status its statements make it (projectSignal, the rule
 * the server reads by, replayed here).
 */
import { toHex, utf8 } from '../log/bytes.js';
import { canonicalJson, type JsonValue } from '../statements/canonical-json.js';
import { projectSignal, type SignalStatementRecord } from '../statements/signal-projection.js';
import type { ProviderHistory } from './history.js';
import { type AuditedSignal, type AuditFailure, failure, type SignalReport, type StatementReport } from './report.js';
import { type AuditCrypto, checkSignature, nobleCrypto, type SignatureChecks } from './signatures.js';

/** The longest reveal delay the contract allows (`revealDelaySeconds` ≤ 2,592,000). */
const MAX_REVEAL_DELAY_MS = 2_592_000_000;
/**
 * How far outside the listing's time an `expiresAt` may be for the list to show either `open` or
 * `expired`: the server judged it when it answered, between the listing's start and the check
 * (on a clock a little off).
 */
const EXPIRY_SLACK_MS = 300_000;

export interface CheckSignalOptions extends SignatureChecks {
  /** The auditor's clock (default now): statements whose revealAt is before it must be revealed. */
  now?: Date;
  /** When the server began answering the list the signal came from (default `now`): its status was judged since. */
  listedFrom?: Date;
}

/** Hex SHA-256 of a statement's UTF-8 bytes, without Node built-ins. */
export function commitmentOf(statement: string, crypto: AuditCrypto = nobleCrypto): string {
  return toHex(crypto.sha256(utf8(statement)));
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
    if (commitmentOf(view.statement, options.crypto) !== entry.commitment) {
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
    const verdict = await checkSignature(view.signer, view.statement, view.signature, options);
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
      const removed = right.reason === 'not a publisher' ? history.removedBefore(view.signer, entry.receivedAt) : null;
      const why = removed ? `not a publisher: removed at ${removed}` : right.reason;
      fail(
        'signer-not-allowed',
        `${view.signer} may not sign for provider ${history.provider} at ${entry.receivedAt}: ${why}`,
        view.logIndex,
      );
      continue;
    }
    report.verdict = 'verified';
  }
  if (failures.length === 0 && signal.content !== null && listed.length > 0) {
    const from = options.listedFrom?.getTime() ?? now;
    checkProjection(signal, listed as SignalStatementRecord[], { from, now }, (message) =>
      fail('signal-content', message),
    );
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

/** The content and status shown against those the (verified) statements make. */
function checkProjection(
  signal: AuditedSignal,
  statements: readonly SignalStatementRecord[],
  { from, now }: { from: number; now: number },
  fail: (message: string) => void,
): void {
  let made: ReturnType<typeof projectSignal>;
  try {
    made = projectSignal({ ...signal, statements }, { full: true, now });
  } catch (error) {
    fail(`its statements do not make a signal: ${(error as Error).message}`);
    return;
  }
  const shown = canonicalJson(signal.content as JsonValue);
  const expected = canonicalJson(made.content as unknown as JsonValue);
  if (shown !== expected) fail(`the content shown is ${shown}; its statements make it ${expected}`);
  const expiresAt = made.content?.expiresAt ? Date.parse(made.content.expiresAt) : null;
  const either = (status: string) => status === 'open' || status === 'expired';
  const judgedNearExpiry =
    expiresAt !== null &&
    expiresAt >= from - EXPIRY_SLACK_MS &&
    expiresAt <= now + EXPIRY_SLACK_MS &&
    either(signal.status) &&
    either(made.status);
  if (signal.status !== made.status && !judgedNearExpiry) {
    fail(`the status shown is ${signal.status}; its statements make it ${made.status}`);
  }
}
