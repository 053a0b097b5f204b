/**
 * The signal routes' rows (issue 39's bench):
 *
 * - `signal-open`: `POST /providers/{id}/signals` offered at OPEN_RATE statements/s, open loop
 *   (each request sent at its scheduled instant whatever the answers before it; latency from
 *   that instant to the 201, which the route sends once the entry is in a signed checkpoint with
 *   its inclusion proof). Signers as a service has them: OPEN_PROVIDERS providers, each with a
 *   publisher wallet (EVM or Solana, alternately) and a delegated Ed25519 key, each signing a
 *   third of the statements; the per-signer limit at its default. Every statement is signed
 *   before the timed part. Target: p99 ≤ 1.5 s (and the rate served).
 * - `signal-list`: `GET /providers/{id}/signals` page 1 over those providers against the
 *   catalogue's page 1 (`GET /providers`, the catalogue's server, answer cache off). Target ≥
 *   0.8× its req/s; CPU per request stated.
 *
 * `GET /me/signals` (issue 41) has rows of its own, on a database of its own: me-signal-rows.ts.
 */
import { randomBytes } from 'node:crypto';
import { canonicalJson } from '@signal/core/statements';
import { createScratchDatabase } from '@signal/test-support';
import { settle } from './databases.js';
import { databaseCpu } from './db-cpu.js';
import { compare, type LoadPlan } from './load.js';
import { reads } from './log-read-rows.js';
import { type Row, row, type Verdict } from './report.js';
import { type RowRun, type ServerProcess, type ServerSpec, startServer } from './servers.js';
import { type BenchWallet, evmWallet, solanaWallet } from './wallets.js';

export const SIGNAL_KEYS = ['signal-open', 'signal-list'] as const;
export const OPEN_RATE = 1_000;
export const OPEN_TARGET_P99_MS = 1_500;
export const LIST_TARGET_RATIO = 0.8;
const OPEN_PROVIDERS = 100;
export const ORIGIN = 'bench.example/signals';
const ADMIN = 'bench-admin-key-0123456789abcdefghij-signals';

export interface SignalRun extends RowRun {
  catalogueUrl: string;
  plan: Omit<LoadPlan, 'between'>;
  /** Seconds of offered load for `signal-open`, and its statements/s (OPEN_RATE unless `--signal-rate`). */
  openSeconds: number;
  openRate: number;
  /** Log entries of the `/me/signals` database (me-signal-rows.ts). */
  meLogEntries: number;
}

/** The server's env for these rows: the bench's log name, statements signed up to an hour before. */
export function signalSpec(run: Pick<SignalRun, 'spec'>, url: string, env: Record<string, string> = {}): ServerSpec {
  const base = run.spec(url);
  return {
    ...base,
    env: {
      ...base.env,
      ADMIN_KEY: ADMIN,
      LOG_ORIGIN: ORIGIN,
      // The statements are signed before the timed part (and a cached seed resumes later): the
      // skew bound is opened so none is refused for its age; the check itself runs as always.
      SIGNAL_MAX_SKEW_SECONDS: '3600',
      // Every request of the bench comes from 127.0.0.1, where a service's publishers and readers
      // come from many addresses: the per-address cap (256) would refuse the open loop's
      // connections (up to rate × latency in flight), so it is off here.
      MAX_CONNECTIONS_PER_ADDRESS: '0',
      ...env,
    },
  };
}

/** One who signs for a provider: a publisher wallet or a key it delegated. */
export interface Signer {
  providerId: number;
  id: string;
  sign(text: string): string;
}

const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };

export async function post(api: ServerProcess, path: string, body: unknown, headers: Record<string, string> = admin) {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(`${api.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await res.text();
    if (res.status === 201 || res.status === 200) return JSON.parse(text) as Record<string, unknown>;
    // 503: accepted, its checkpoint late (a loaded machine); the same bytes again get its answer.
    if (res.status !== 503 || attempt === 5) throw new Error(`POST ${path} answered ${res.status}: ${text}`);
  }
}

/** `count` providers, each with a publisher wallet (EVM, Solana alternately) and (`keys`) a key it delegated. */
export async function publishers(
  api: ServerProcess,
  count: number,
  name: string,
  keys: boolean,
  origin = ORIGIN,
): Promise<Signer[]> {
  const signers: Signer[] = [];
  for (let i = 0; i < count; i++) {
    const { id } = (await post(api, '/providers', { name: `${name} ${i + 1}` })) as { id: number };
    const wallet: BenchWallet = i % 2 === 0 ? evmWallet() : solanaWallet();
    await post(api, `/providers/${id}/publishers`, { wallet: wallet.address });
    signers.push({ providerId: id, id: wallet.address, sign: (text) => wallet.sign(text) });
    if (!keys) continue;
    const key = solanaWallet();
    const delegation = canonicalJson({
      v: 1,
      log: origin,
      type: 'key.delegate',
      provider: id,
      issuedAt: new Date().toISOString(),
      key: `ed25519:${key.address}`,
      expiresAt: new Date(Date.now() + 300 * 86_400_000).toISOString(),
    });
    await post(
      api,
      `/providers/${id}/publisher-keys`,
      { statement: delegation, signer: wallet.address, signature: wallet.sign(delegation) },
      { 'content-type': 'application/json' },
    );
    signers.push({ providerId: id, id: `ed25519:${key.address}`, sign: (text) => key.sign(text) });
  }
  return signers;
}

let opened = 0;

/** A signed `signal.open` body for `signer`'s provider, as a publisher's client builds one. */
export function openBody(signer: Signer, origin = ORIGIN): { path: string; body: string } {
  const n = ++opened;
  const statement = canonicalJson({
    v: 1,
    log: origin,
    type: 'signal.open',
    provider: signer.providerId,
    issuedAt: new Date().toISOString(),
    id: `b${n.toString(36)}_${randomBytes(9).toString('base64url')}`,
    salt: randomBytes(16).toString('base64url'),
    instrument: n % 3 === 0 ? 'ETH-USD' : 'BTC-USD',
    side: n % 2 === 0 ? 'long' : 'short',
    entry: n % 4 === 0 ? { type: 'market' } : { type: 'limit', price: `${90_000 + (n % 10_000)}.5` },
    stop: '85000',
    targets: ['99000', '101000.25'],
    sizePct: '2.5',
    expiresAt: null,
    note: 'Breakout above the range; stop under the last swing low',
  });
  return {
    path: `/providers/${signer.providerId}/signals`,
    body: JSON.stringify({ statement, signer: signer.id, signature: signer.sign(statement) }),
  };
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

/**
 * Sends `bodies` at `rate` per second, each at its scheduled instant (open loop: a slow answer
 * delays no later request), and times each from that instant to its answer.
 */
async function openLoop(api: ServerProcess, bodies: { path: string; body: string }[], rate: number) {
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  const started = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < bodies.length; i++) {
    const at = started + (i * 1000) / rate;
    const wait = at - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const { path, body } = bodies[i] as { path: string; body: string };
    pending.push(
      fetch(`${api.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (res) => {
          await res.arrayBuffer();
          if (res.status === 201) latencies.push(performance.now() - at);
          else failures.set(String(res.status), (failures.get(String(res.status)) ?? 0) + 1);
        })
        .catch((error: Error & { cause?: { code?: string } }) => {
          const what = error.cause?.code ?? error.message;
          failures.set(what, (failures.get(what) ?? 0) + 1);
        }),
    );
  }
  const sent = performance.now();
  await Promise.all(pending);
  const elapsed = performance.now() - started;
  latencies.sort((a, b) => a - b);
  return { latencies, failures, offeredPerSecond: (bodies.length / (sent - started)) * 1000, elapsed };
}

async function openRow(run: SignalRun, api: ServerProcess, url: string, signers: Signer[]): Promise<Row> {
  const count = Math.round(run.openRate * run.openSeconds);
  // A warm-up at a tenth of the rate, then the timed run, every statement signed beforehand.
  const warm = Array.from({ length: Math.max(50, count / 10) }, (_, i) =>
    openBody(signers[i % signers.length] as Signer),
  );
  const timed = Array.from({ length: count }, (_, i) => openBody(signers[(i * 7) % signers.length] as Signer));
  await openLoop(api, warm, run.openRate / 10);
  await settle(url);
  const probe = databaseCpu(url);
  try {
    const dbBefore = await probe.sample();
    const cpuBefore = await api.cpuMs();
    const m = await openLoop(api, timed, run.openRate);
    const cpuAfter = await api.cpuMs();
    const dbAfter = await probe.sample();
    let dbMs = 0;
    for (const [pid, ms] of dbAfter) dbMs += ms - (dbBefore.get(pid) ?? ms);
    const ok = m.latencies.length;
    const failed = [...m.failures.entries()].map(([what, n]) => `${n}× ${what}`).join(', ');
    const p50 = quantile(m.latencies, 0.5);
    const p99 = quantile(m.latencies, 0.99);
    run.log(
      `signal-open: ${ok} of ${count} answered 201 at ${Math.round(m.offeredPerSecond)}/s offered; p50 ${p50.toFixed(0)} ms, p99 ${p99.toFixed(0)} ms${failed ? `; ${failed}` : ''}`,
    );
    return row(
      `POST /providers/{id}/signals open → receipt, ${run.openRate.toLocaleString('en-US')}/s offered (open loop)`,
      {
        // 201s per second of the offered run (answers still arriving after it are not counted in).
        rps: Math.min(ok, count) / Math.max(run.openSeconds, count / m.offeredPerSecond),
        p50,
        p99,
        cpuUs: cpuBefore !== null && cpuAfter !== null && ok > 0 ? ((cpuAfter - cpuBefore) * 1000) / ok : null,
        dbCpuUs: ok > 0 ? (dbMs * 1000) / ok : null,
      },
      null,
      `${count.toLocaleString('en-US')} statements signed beforehand, offered at ${Math.round(m.offeredPerSecond)}/s over ${run.openSeconds} s, by ${signers.length} signers (a publisher wallet, EVM or Solana, and a delegated Ed25519 key for each of ${signers.length / 2} providers), per-signer limit at its default; latency from each request's scheduled instant to its 201 with the receipt; req/s column: 201s per second${failed ? `; not 201: ${failed}` : ''}`,
    );
  } finally {
    await probe.close();
  }
}

async function listRow(run: SignalRun, api: ServerProcess, catalogue: ServerProcess, signers: Signer[]): Promise<Row> {
  const paths = [...new Set(signers.map((s) => `/providers/${s.providerId}/signals`))];
  const result = await compare(reads(api, paths), reads(catalogue, ['/providers?page=1&limit=20']), {
    ...run.plan,
    between: async () => {
      await settle(run.catalogueUrl);
    },
  });
  return row(
    'GET /providers/{id}/signals page 1 vs the catalogue page 1',
    result.service,
    result.baseline,
    `${paths.length} providers in turn, anonymous, page of 20 signals with their statements (revealed: revealDelaySeconds 0); baseline column: GET /providers?page=1&limit=20 of the catalogue (answer cache off)`,
  );
}

export async function signalRows(run: SignalRun): Promise<Map<string, Row>> {
  const rows = new Map<string, Row>();
  if (run.wanted('signal-open') || run.wanted('signal-list')) {
    const database = await createScratchDatabase();
    const api = await startServer({ ...signalSpec(run, database.url), name: 'api (signals)' });
    const catalogue = run.wanted('signal-list')
      ? await startServer({ ...run.spec(run.catalogueUrl), name: 'api (catalogue)' })
      : undefined;
    try {
      const signers = await publishers(api, OPEN_PROVIDERS, 'Bench Signals', true);
      if (run.wanted('signal-open')) rows.set('signal-open', await openRow(run, api, database.url, signers));
      else
        await openLoop(
          api,
          Array.from({ length: 2_000 }, (_, i) => openBody(signers[i % signers.length] as Signer)),
          500,
        );
      if (catalogue) rows.set('signal-list', await listRow(run, api, catalogue, signers));
    } finally {
      await api.stop();
      await catalogue?.stop();
      await database.drop();
    }
  }
  return rows;
}

export function judgeSignals(rows: Map<string, Row>): Verdict[] {
  const verdicts: Verdict[] = [];
  const open = rows.get('signal-open');
  if (open) {
    const p99 = open.service.p99 ?? Number.POSITIVE_INFINITY;
    verdicts.push({
      target: `POST open → receipt at ${OPEN_RATE.toLocaleString('en-US')}/s offered: p99 ≤ ${OPEN_TARGET_P99_MS} ms, all served`,
      // A run at another rate (--signal-rate) is judged on its own rate, and says so.
      measured: `p99 ${p99.toFixed(0)} ms (p50 ${open.service.p50?.toFixed(0)} ms), ${Math.round(open.service.rps)} 201s/s`,
      met: p99 <= OPEN_TARGET_P99_MS && open.service.rps >= OPEN_RATE * 0.95,
    });
  }
  const list = rows.get('signal-list');
  if (list?.ratio != null) {
    verdicts.push({
      target: `GET /providers/{id}/signals page 1 ≥ ${LIST_TARGET_RATIO}× the catalogue's page 1 req/s`,
      measured: `${list.ratio.toFixed(2)}× (${Math.round(list.service.rps)} vs ${Math.round(list.baseline?.rps ?? 0)} req/s; CPU ${Math.round(list.service.cpuUs ?? 0)} vs ${Math.round(list.baseline?.cpuUs ?? 0)} µs)`,
      met: list.ratio >= LIST_TARGET_RATIO,
    });
  }
  return verdicts;
}
