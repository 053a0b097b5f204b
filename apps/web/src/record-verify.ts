/**
 * Checks a provider's record in the browser, trusting neither the server nor the provider: the
 * log read whole and checked against its signed checkpoint (`readLog`), every listed signal
 * through the SDK's `verifySignal` (statements hashing to their commitments, signatures, the
 * signers' rights at `receivedAt`, inclusion), and the list held to the log (no signal of the
 * provider in the log is missing from it, none in it is missing from the log).
 *
 * The log's key is pinned in this browser on the first check (trust on first use), with the
 * checkpoint it saw; a later check refuses another key and a checkpoint inconsistent with the
 * pinned one (a fork or a shrunk log). An operator who wants no first-use trust builds the app
 * with the key (VITE_SIGNAL_LOG_KEY).
 */
import { type AuditFailure, readLog, verifySignal } from '@signal/sdk/audit';
import { API_URL } from './api';
import type { Signal } from './signals';

export type RecordVerdict =
  | {
      ok: true;
      /** The size of the checkpoint every statement was checked against. */
      checkpoint: number;
      keyName: string;
      key: string;
      /** When this browser pinned the key (first check). */
      pinnedAt: string;
      signals: number;
      statements: number;
      unrevealed: number;
      ms: number;
    }
  | { ok: false; check: string; message: string; key?: string };

const PIN_KEY = 'signal-demo.log-pin';

interface Pin {
  key: string;
  checkpoint: string;
  pinnedAt: string;
}

function readPin(): Pin | null {
  try {
    const pin = JSON.parse(localStorage.getItem(PIN_KEY) ?? 'null') as Pin | null;
    return pin && typeof pin.key === 'string' && typeof pin.checkpoint === 'string' ? pin : null;
  } catch {
    return null;
  }
}

/** `localhost/signals+1a2b3c4d+AQ…`: the name and hash of a note verifier key. */
const keyName = (key: string) => key.split('+').slice(0, 2).join('+');

function describe(failure: AuditFailure): string {
  const where = [
    failure.signal ? `signal ${failure.signal}` : '',
    failure.logIndex !== undefined ? `log entry ${failure.logIndex}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return `${failure.message}${where ? ` (${where})` : ''}`;
}

export async function verifyRecord(providerId: number, signals: Signal[]): Promise<RecordVerdict> {
  const started = performance.now();
  const built = import.meta.env.VITE_SIGNAL_LOG_KEY || undefined;
  const response = await fetch(`${API_URL}/log/key`);
  if (!response.ok) throw new Error(`GET /log/key: HTTP ${response.status}`);
  const served = (await response.text()).trim();
  const pin = readPin();
  const pinned = built ?? pin?.key;
  if (pinned && pinned !== served) {
    return {
      ok: false,
      check: 'log-key',
      key: served,
      message: `the server now states the log key ${keyName(served)}, but this browser pinned ${keyName(pinned)}${pin ? ` on ${new Date(pin.pinnedAt).toLocaleString()}` : ''}`,
    };
  }
  const logKey = pinned ?? served;
  const log = await readLog({ url: API_URL, logKey });
  const failures: AuditFailure[] = [...log.failures];
  let statements = 0;
  let unrevealed = 0;
  if (failures.length === 0) {
    for (const signal of signals) {
      const report = await verifySignal(signal, { logKey, log, ...(pin ? { checkpoint: pin.checkpoint } : {}) });
      failures.push(...report.failures);
      statements += report.statements.length;
      unrevealed += report.statements.filter((statement) => statement.verdict === 'committed').length;
      if (failures.length > 0) break;
    }
  }
  if (failures.length === 0) {
    // Nothing hidden, nothing extra: the log's signals of the provider are the list's.
    const listed = new Set(signals.map((signal) => signal.id));
    const logged = new Set<string>();
    for (const { entry } of log.byProvider.get(providerId) ?? []) {
      if (typeof entry.signal === 'string') logged.add(entry.signal);
    }
    for (const id of logged) {
      if (!listed.has(id))
        failures.push({ check: 'signal-hidden', message: 'the log has a signal the list does not show', signal: id });
    }
    for (const id of listed) {
      if (!logged.has(id))
        failures.push({
          check: 'signal-not-in-log',
          message: 'the list shows a signal the log does not have',
          signal: id,
        });
    }
  }
  const first = failures[0];
  if (first) return { ok: false, check: first.check, message: describe(first), key: logKey };
  const pinnedAt = pin?.pinnedAt ?? new Date().toISOString();
  if (log.note) localStorage.setItem(PIN_KEY, JSON.stringify({ key: logKey, checkpoint: log.note, pinnedAt }));
  return {
    ok: true,
    checkpoint: log.checkpoint?.size ?? 0,
    keyName: keyName(logKey),
    key: logKey,
    pinnedAt,
    signals: signals.length,
    statements,
    unrevealed,
    ms: performance.now() - started,
  };
}
