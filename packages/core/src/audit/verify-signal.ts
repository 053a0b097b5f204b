/**
 * `verifySignal(signal, { logKey, checkpoint? })`: one signal checked against the public log,
 * in the browser as in Node. The log is read whole once (`readLog`: every entry, every tile,
 * the root recomputed against the signed checkpoint, which proves each entry's inclusion), the
 * provider's history rebuilt from it, then the signal's statements checked (`checkSignal`).
 * Pass `log` (a view from `readLog`) to check many signals with one read.
 */
import type { Checkpoint } from '../log/checkpoint.js';
import type { NoteVerifier } from '../log/note.js';
import { checkSignal } from './check-signal.js';
import { type ProviderHistory, replayProvider } from './history.js';
import { checkEarlierCheckpoint, type LogView, readLog, summary } from './log-view.js';
import type { AuditedSignal, AuditFailure, CheckpointSummary, SignalReport } from './report.js';
import type { EvmChainCheck } from './signatures.js';

export interface VerifySignalOptions {
  /** The log's verifier key (`<origin>+<hash>+<key>`), pinned: never the one a server states. */
  logKey: string | NoteVerifier;
  /** A signed checkpoint seen before (note text or opened): today's log must extend it. */
  checkpoint?: string | Checkpoint;
  /** The service's base URL, to read the log from (unless `log` is given). */
  url?: string;
  /** A log already read (`readLog`), shared by many calls. */
  log?: LogView;
  fetch?: typeof fetch;
  /** For EIP-1271/EIP-6492 contract wallets; without it their statements fail as `signature-unchecked`. */
  evmChain?: EvmChainCheck;
  now?: Date;
}

export interface VerifySignalReport extends SignalReport {
  /** The checkpoint the signal was checked against (null when it did not open). */
  checkpoint: CheckpointSummary | null;
}

const histories = new WeakMap<LogView, Map<number, Promise<ProviderHistory>>>();

/** The provider's history in a view, replayed once per view. */
export function providerHistory(view: LogView, provider: number, evmChain?: EvmChainCheck): Promise<ProviderHistory> {
  let byProvider = histories.get(view);
  if (!byProvider) {
    byProvider = new Map();
    histories.set(view, byProvider);
  }
  let history = byProvider.get(provider);
  if (!history) {
    history = replayProvider(view, provider, evmChain);
    byProvider.set(provider, history);
  }
  return history;
}

export async function verifySignal(signal: AuditedSignal, options: VerifySignalOptions): Promise<VerifySignalReport> {
  let view = options.log;
  if (!view) {
    if (!options.url) throw new TypeError('verifySignal needs `url` (or `log`) to read the log from');
    view = await readLog({ url: options.url, logKey: options.logKey, fetch: options.fetch });
  }
  const failures: AuditFailure[] = [...view.failures];
  if (options.checkpoint !== undefined) failures.push(...checkEarlierCheckpoint(view, options.checkpoint));
  const checkpoint = view.checkpoint ? summary(view.checkpoint) : null;
  if (!view.tree) {
    return {
      ok: false,
      signal: signal.id,
      provider: signal.providerId,
      status: signal.status,
      statements: [],
      failures,
      checkpoint,
    };
  }
  const history = await providerHistory(view, signal.providerId, options.evmChain);
  const report = await checkSignal(signal, history, { evmChain: options.evmChain, now: options.now });
  // The provider's history faults (a bad key statement) bear on every signal of it.
  failures.push(...history.failures, ...report.failures);
  return { ...report, ok: failures.length === 0, failures, checkpoint };
}
