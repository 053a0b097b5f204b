/**
 * The audit row (`--only audit`, issue 40): `signal-audit` (the SDK's built bin, as a user runs
 * it, in its own process) on one provider with `statements` signal statements in a log of
 * `size` entries, served from memory by the log fixture (@signal/core/log's tiles), the
 * provider's signal list beside it. Half the statements are signed by the provider's EVM wallet
 * (EIP-191), half by its delegated Ed25519 key. Measures the wall time, the bin's CPU time and
 * its own split (reading the entries, hashing, parsing, the tiles, the replay, the list, the
 * signature and right checks). Target: ≤ 30 s for 10,000 statements on a 1M-entry log; `--quick`
 * audits 2,000 statements on 100,000 entries (not judged against the target).
 *
 * Also runs alone: `node apps/bench/dist/audit-run.js [--size N] [--statements N]`.
 * Needs `pnpm build` (the SDK's built bin).
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startLogFixture } from '@signal/test-support';
import { makeLog, PROVIDER } from './audit-log.js';
import { type Row, row, type Verdict } from './report.js';

export const AUDIT_KEY = 'audit';
export const AUDIT_KEYS = [AUDIT_KEY] as const;
export const AUDIT_TARGET_SECONDS = 30;
export const AUDIT_FULL = { size: 1_000_000, statements: 10_000 };
export const AUDIT_QUICK = { size: 100_000, statements: 2_000 };

const BIN = fileURLToPath(new URL('../../../packages/sdk/dist/bin/signal-audit.js', import.meta.url));

export interface AuditFigures {
  size: number;
  statements: number;
  code: number;
  /** The bin's run, from its start to its exit (ms). */
  wallMs: number;
  /** The bin's CPU time, user + system (ms; from the children's times of this process). */
  cpuMs: number;
  /** The bin's own split (ms per step, its `--json` report's timings). */
  timings: Record<string, number>;
  verified: number;
  failures: unknown[];
  /** The 1-minute load average before and after the bin's run. */
  load: [number, number];
}

/** User + system time of this process's waited-for children, ms (Linux /proc; 10 ms ticks). */
function childrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 16 and 17 of stat(5) (cutime, cstime), counted from the state (field 3) here.
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
}

/** Builds the log, serves it, runs the bin on it once; `nodeArgs` go to the bin's node (e.g. --cpu-prof). */
export async function runAudit(options: {
  size: number;
  statements: number;
  nodeArgs?: string[];
  log: (line: string) => void;
}): Promise<AuditFigures> {
  const t0 = performance.now();
  const { entries, signals } = await makeLog(options.size, options.statements);
  const t1 = performance.now();
  // The fixture answers the provider's list itself: no proxy hop in front of the log.
  const fixture = await startLogFixture({
    entries,
    seed: randomBytes(32),
    batch: 65_536,
    other(req, res) {
      const url = new URL(req.url ?? '/', 'http://bench');
      if (url.pathname !== `/providers/${PROVIDER}/signals`) return false;
      const from = Number(url.searchParams.get('cursor') ?? 0);
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const page = signals.slice(from, from + limit);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ items: page, nextCursor: from + limit < signals.length ? String(from + limit) : null }));
      return true;
    },
  });
  const t2 = performance.now();
  const url = fixture.url;
  options.log(
    `audit: log of ${entries.length.toLocaleString('en')} entries, ${options.statements.toLocaleString('en')} statements of provider ${PROVIDER}: generated in ${((t1 - t0) / 1000).toFixed(1)} s, tiles in ${((t2 - t1) / 1000).toFixed(1)} s`,
  );
  const loadBefore = loadavg()[0] as number;
  const cpuBefore = childrenCpuMs();
  const started = performance.now();
  const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      [
        ...(options.nodeArgs ?? []),
        BIN,
        '--url',
        url,
        '--provider',
        String(PROVIDER),
        '--key',
        fixture.verifierKey,
        '--json',
      ],
      { maxBuffer: 1 << 30 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    ),
  );
  const wallMs = performance.now() - started;
  const cpuMs = childrenCpuMs() - cpuBefore;
  const loadAfter = loadavg()[0] as number;
  await fixture.close();
  let report: { timings?: Record<string, number>; counts?: { verified: number }; failures?: unknown[] };
  try {
    report = JSON.parse(result.stdout);
  } catch {
    throw new Error(`signal-audit exited ${result.code} without a report: ${result.stderr.slice(0, 2000)}`);
  }
  return {
    size: entries.length,
    statements: options.statements,
    code: result.code,
    wallMs,
    cpuMs,
    timings: report.timings ?? {},
    verified: report.counts?.verified ?? 0,
    failures: report.failures ?? [],
    load: [loadBefore, loadAfter],
  };
}

const seconds = (ms: number | undefined) => `${((ms ?? 0) / 1000).toFixed(1)} s`;

/** The bin's split as one line: where its wall time went. */
export function splitLine(f: AuditFigures): string {
  const t = f.timings;
  return [
    `reading the entries ${seconds(t.fetchEntries)}`,
    `hashing ${seconds(t.hashing)}`,
    `parsing ${seconds(t.parsing)}`,
    `the tiles ${seconds(t.fetchTiles)}`,
    `the replay ${seconds(t.replay)}`,
    `the list ${seconds(t.fetchSignals)}`,
    `the ${f.statements.toLocaleString('en-US')} signature and right checks ${seconds(t.checkSignals)}`,
  ].join(', ');
}

/** This run's figures behind the row (the row itself carries rates and a note). */
const measured = new Map<string, AuditFigures>();

export async function auditRows(options: {
  wanted: (key: string) => boolean;
  quick: boolean;
  log: (line: string) => void;
}): Promise<Map<string, Row>> {
  const rows = new Map<string, Row>();
  if (!options.wanted(AUDIT_KEY)) return rows;
  const plan = options.quick ? AUDIT_QUICK : AUDIT_FULL;
  const f = await runAudit({ ...plan, log: options.log });
  const line = `exit ${f.code} in ${seconds(f.wallMs)} wall, ${seconds(f.cpuMs)} CPU (target ≤ ${AUDIT_TARGET_SECONDS} s at 1M entries), load ${f.load.map((v) => v.toFixed(1)).join(' → ')}; ${splitLine(f)}`;
  options.log(`audit: ${line}`);
  if (f.code !== 0) options.log(`audit: failures ${JSON.stringify(f.failures.slice(0, 5))}`);
  rows.set(
    AUDIT_KEY,
    row(
      `audit: signal-audit, ${f.statements.toLocaleString('en-US')} statements in ${f.size.toLocaleString('en-US')} entries (entries/s)`,
      // Entries read and checked per second of the run; CPU per entry (µs) from the bin's CPU time.
      { rps: (f.size / f.wallMs) * 1000, p50: null, p99: null, cpuUs: (f.cpuMs * 1000) / f.size },
      null,
      line,
    ),
  );
  measured.set(AUDIT_KEY, f);
  return rows;
}

export function judgeAudit(rows: Map<string, Row>): Verdict[] {
  const f = rows.has(AUDIT_KEY) ? measured.get(AUDIT_KEY) : undefined;
  if (!f) return [];
  const full = f.size >= AUDIT_FULL.size && f.statements >= AUDIT_FULL.statements;
  const figures = `exit ${f.code}, ${seconds(f.wallMs)} (CPU ${seconds(f.cpuMs)}, load ${f.load.map((v) => v.toFixed(1)).join(' → ')}): ${splitLine(f)}`;
  return [
    full
      ? {
          target: `audit: signal-audit on one provider's ${AUDIT_FULL.statements.toLocaleString('en-US')} statements in a ${AUDIT_FULL.size.toLocaleString('en-US')}-entry log in ≤ ${AUDIT_TARGET_SECONDS} s`,
          measured: figures,
          met: f.code === 0 && f.verified === f.statements && f.wallMs <= AUDIT_TARGET_SECONDS * 1000,
        }
      : {
          target: `audit (quick, ${f.size.toLocaleString('en-US')} entries: the ≤ ${AUDIT_TARGET_SECONDS} s target is judged at ${AUDIT_FULL.size.toLocaleString('en-US')}): every statement verified, exit 0`,
          measured: figures,
          met: f.code === 0 && f.verified === f.statements,
        },
  ];
}
