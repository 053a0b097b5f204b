/**
 * The audit of one provider (`signal-audit`): the log read whole and checked (`readLog`), the
 * checkpoint kept from the last run checked against it, the provider's history rebuilt from the
 * log, then the provider's public signal list read (every page) and held to the log: the same
 * signals, nothing hidden and nothing extra, each signal checked by `checkSignal`.
 */
import { openCheckpoint } from '../log/signed-checkpoint.js';
import { checkSignal } from './check-signal.js';
import { replayProvider } from './history.js';
import { type AuditProgress, checkEarlierCheckpoint, readLog, summary } from './log-view.js';
import { type AuditedSignal, type AuditFailure, type CheckpointSummary, failure, type SignalReport } from './report.js';
import type { AuditCrypto, EvmChainCheck } from './signatures.js';

export interface AuditOptions {
  url: string;
  provider: number;
  logKey: string;
  /** The signed checkpoint kept from the last run (note text), if any. */
  previous?: string | null;
  evmChain?: EvmChainCheck;
  crypto?: AuditCrypto;
  fetch?: typeof fetch;
  onProgress?: (progress: AuditProgress) => void;
  now?: Date;
  concurrency?: number;
}

export interface AuditReport {
  ok: boolean;
  url: string;
  provider: number;
  checkpoint: CheckpointSummary | null;
  /** The checkpoint kept from before, when one was given. */
  previous: CheckpointSummary | null;
  /** The signed checkpoint to keep for the next run: set when the log itself checked (whatever the provider's results). */
  keep: string | null;
  counts: {
    entries: number;
    providerEntries: number;
    publishers: number;
    keys: number;
    signals: number;
    statements: number;
    verified: number;
    committed: number;
  };
  signals: SignalReport[];
  /** Every failure, the signals' included. */
  failures: AuditFailure[];
  /** Milliseconds per step. */
  timings: Record<string, number>;
}

const clock = () => (typeof performance === 'undefined' ? Date.now() : performance.now());

async function readSignals(
  options: AuditOptions,
  fetchImpl: typeof fetch,
): Promise<{ signals: AuditedSignal[]; error: string | null }> {
  const base = options.url.replace(/\/+$/, '');
  const signals: AuditedSignal[] = [];
  const cursors = new Set<string>();
  let cursor: string | null = null;
  for (;;) {
    const query = new URLSearchParams({ limit: '100' });
    if (cursor) query.set('cursor', cursor);
    const url = `${base}/providers/${options.provider}/signals?${query}`;
    let body: { items?: unknown; nextCursor?: unknown };
    try {
      const response = await fetchImpl(url, { headers: { accept: 'application/json' } });
      if (!response.ok) return { signals, error: `${url}: HTTP ${response.status}` };
      body = (await response.json()) as typeof body;
    } catch (error) {
      return { signals, error: `${url}: ${(error as Error).message}` };
    }
    if (!Array.isArray(body.items) || (body.nextCursor !== null && typeof body.nextCursor !== 'string')) {
      return { signals, error: `${url}: not a signal page` };
    }
    for (const item of body.items as AuditedSignal[]) {
      if (typeof item?.id !== 'string' || !Array.isArray(item.statements))
        return { signals, error: `${url}: not a signal` };
      signals.push(item);
    }
    options.onProgress?.({ phase: 'signals', done: signals.length, total: signals.length });
    if (body.nextCursor === null) return { signals, error: null };
    if (cursors.has(body.nextCursor as string)) return { signals, error: `${url}: the pages loop` };
    cursor = body.nextCursor as string;
    cursors.add(cursor);
  }
}

export async function auditProvider(options: AuditOptions): Promise<AuditReport> {
  const fetchImpl: typeof fetch = (input, init) => (options.fetch ?? globalThis.fetch)(input, init);
  const timings: Record<string, number> = {};
  const started = clock();
  const view = await readLog({
    url: options.url,
    logKey: options.logKey,
    fetch: fetchImpl,
    onProgress: options.onProgress,
    concurrency: options.concurrency,
    crypto: options.crypto,
    provider: options.provider,
  });
  Object.assign(timings, view.timings);
  const failures: AuditFailure[] = [...view.failures];
  let previous: CheckpointSummary | null = null;
  if (options.previous) {
    failures.push(...checkEarlierCheckpoint(view, options.previous));
    try {
      previous = summary(openCheckpoint(options.previous, view.verifier));
    } catch {}
  }
  const report: AuditReport = {
    ok: false,
    url: options.url,
    provider: options.provider,
    checkpoint: view.checkpoint ? summary(view.checkpoint) : null,
    previous,
    keep: null,
    counts: {
      entries: view.checkpoint?.size ?? 0,
      providerEntries: 0,
      publishers: 0,
      keys: 0,
      signals: 0,
      statements: 0,
      verified: 0,
      committed: 0,
    },
    signals: [],
    failures,
    timings,
  };
  if (!view.tree) return finish();
  // Today's checkpoint is kept once the log itself checks, so a later run detects a fork from here.
  if (failures.length === 0) report.keep = view.note;

  let at = clock();
  const history = await replayProvider(view, options.provider, options);
  timings.replay = clock() - at;
  failures.push(...history.failures);
  report.counts.providerEntries = view.byProvider.get(options.provider)?.length ?? 0;
  report.counts.publishers = history.publishers;
  report.counts.keys = history.keys;

  at = clock();
  // When the server began judging what it lists (a signal's expiry, at its read): a long listing spans minutes.
  const listedFrom = new Date();
  const listed = await readSignals(options, fetchImpl);
  timings.fetchSignals = clock() - at;
  if (listed.error) failures.push(failure('list-unavailable', listed.error));

  at = clock();
  const seen = new Set<string>();
  const now = options.now ?? new Date();
  let checked = 0;
  for (const signal of listed.signals) {
    if (seen.has(signal.id)) {
      failures.push(failure('signal-fields', `signal ${signal.id} is listed twice`, { signal: signal.id }));
      continue;
    }
    seen.add(signal.id);
    const result = await checkSignal(signal, history, {
      evmChain: options.evmChain,
      crypto: options.crypto,
      now,
      ...(options.now ? {} : { listedFrom }),
    });
    report.signals.push(result);
    failures.push(...result.failures);
    checked += signal.statements.length;
    if (report.signals.length % 100 === 0) options.onProgress?.({ phase: 'statements', done: checked, total: checked });
  }
  if (!listed.error) {
    for (const [id, statements] of history.signals) {
      if (!seen.has(id)) {
        failures.push(
          failure(
            'signal-hidden',
            `the log has ${statements.length} statement(s) of signal ${id} (from entry ${statements[0]!.logIndex}); the list does not show it`,
            { signal: id, logIndex: statements[0]!.logIndex },
          ),
        );
      }
    }
  }
  timings.checkSignals = clock() - at;
  report.counts.signals = report.signals.length;
  for (const signal of report.signals) {
    report.counts.statements += signal.statements.length;
    for (const statement of signal.statements) {
      if (statement.verdict === 'verified') report.counts.verified++;
      if (statement.verdict === 'committed') report.counts.committed++;
    }
  }
  return finish();

  function finish(): AuditReport {
    timings.total = clock() - started;
    report.ok = failures.length === 0;
    return report;
  }
}
