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
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startLogFixture } from '@signal/test-support';
import bs58 from 'bs58';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type Row, row, type Verdict } from './report.js';

export const AUDIT_KEY = 'audit';
export const AUDIT_KEYS = [AUDIT_KEY] as const;
export const AUDIT_TARGET_SECONDS = 30;
export const AUDIT_FULL = { size: 1_000_000, statements: 10_000 };
export const AUDIT_QUICK = { size: 100_000, statements: 2_000 };

const ORIGIN = 'localhost/signals';
const PROVIDER = 1;
const BIN = fileURLToPath(new URL('../../../packages/sdk/dist/bin/signal-audit.js', import.meta.url));

const json = (value: Record<string, unknown>) =>
  JSON.stringify(Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1))));
const bytes = (text: string) => new TextEncoder().encode(text);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

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

/** The log and the provider's list: one publisher wallet, one delegated key, `statements` statements among other providers' entries. */
async function makeLog(size: number, statements: number) {
  const wallet = privateKeyToAccount(generatePrivateKey());
  const keys = generateKeyPairSync('ed25519');
  const raw = keys.publicKey.export({ format: 'jwk' }).x as string;
  const keyName = `ed25519:${bs58.encode(Buffer.from(raw, 'base64url'))}`;
  let clock = Date.parse('2026-01-01T00:00:00.000Z');
  const tick = () => {
    clock += 10;
    return new Date(clock).toISOString();
  };
  const entries: Uint8Array[] = [];
  const items: { id: string; statements: Record<string, unknown>[]; publishedAt: string }[] = [];
  const others = size - statements - 2;
  const every = Math.max(1, Math.floor(others / statements));
  let other = 0;
  const filler = (count: number) => {
    for (let i = 0; i < count && other < others; i++, other++) {
      const wallet = `0x${other.toString(16).padStart(40, '0')}`;
      entries.push(bytes(json({ at: tick(), provider: 2 + (other % 1000), type: 'publisher.added', v: 1, wallet })));
    }
  };
  entries.push(bytes(json({ at: tick(), provider: PROVIDER, type: 'publisher.added', v: 1, wallet: wallet.address })));
  const delegate = json({
    expiresAt: new Date(clock + 300 * 86_400_000).toISOString(),
    issuedAt: new Date(clock).toISOString(),
    key: keyName,
    log: ORIGIN,
    provider: PROVIDER,
    type: 'key.delegate',
    v: 1,
  });
  entries.push(
    bytes(
      json({
        provider: PROVIDER,
        receivedAt: tick(),
        signature: await wallet.signMessage({ message: delegate }),
        signer: wallet.address,
        statement: delegate,
        type: 'key.delegate',
        v: 1,
      }),
    ),
  );
  const signWith = async (i: number, statement: string) =>
    i % 2 === 0
      ? { signer: wallet.address, signature: await wallet.signMessage({ message: statement }) }
      : { signer: keyName, signature: bs58.encode(sign(null, Buffer.from(statement), keys.privateKey)) };
  for (let i = 0; i < statements; i++) {
    filler(every);
    const signal = `s${Math.floor(i / 2)}`;
    const salt = randomBytes(16).toString('base64url');
    const issuedAt = new Date(clock).toISOString();
    const statement =
      i % 2 === 0
        ? json({
            entry: { type: 'market' },
            expiresAt: null,
            id: signal,
            instrument: 'BTC-USD',
            issuedAt,
            log: ORIGIN,
            provider: PROVIDER,
            salt,
            side: 'long',
            sizePct: '5',
            stop: null,
            targets: [],
            type: 'signal.open',
            v: 1,
          })
        : json({
            closePct: '100',
            id: `c${i}`,
            issuedAt,
            log: ORIGIN,
            provider: PROVIDER,
            salt,
            signal,
            type: 'signal.close',
            v: 1,
          });
    const type = i % 2 === 0 ? 'signal.open' : 'signal.close';
    const receivedAt = tick();
    const commitment = sha256(statement);
    entries.push(bytes(json({ commitment, provider: PROVIDER, receivedAt, signal, type, v: 1 })));
    const view = {
      logIndex: entries.length - 1,
      type,
      receivedAt,
      commitment,
      statement,
      ...(await signWith(i, statement)),
    };
    if (i % 2 === 0) items.push({ id: signal, publishedAt: receivedAt, statements: [view] });
    else items.at(-1)?.statements.push(view);
  }
  filler(others);
  const signals = items.reverse().map((item) => ({
    id: item.id,
    providerId: PROVIDER,
    status: 'closed',
    publishedAt: item.publishedAt,
    revealAt: item.publishedAt,
    content: { instrument: 'BTC-USD' },
    statements: item.statements,
  }));
  return { entries, signals };
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
  const fixture = await startLogFixture({ entries, seed: randomBytes(32), batch: 65_536 });
  const t2 = performance.now();
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://bench');
    if (url.pathname === `/providers/${PROVIDER}/signals`) {
      const from = Number(url.searchParams.get('cursor') ?? 0);
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const page = signals.slice(from, from + limit);
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(
        JSON.stringify({ items: page, nextCursor: from + limit < signals.length ? String(from + limit) : null }),
      );
    }
    const answer = await fetch(`${fixture.url}${req.url}`);
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/octet-stream' });
    res.end(new Uint8Array(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
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
  await new Promise<void>((resolve) => server.close(() => resolve()));
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
