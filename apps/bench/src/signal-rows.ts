/**
 * The signal routes' rows (issue 39's bench, issue 41 item 4's `/me/signals`):
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
 * - `me-signals`, `me-signals-deep`: `GET /me/signals` page 1 and a cursor at depth for a user
 *   following ME_PROVIDERS providers, on a database seeded once through the open route
 *   (`signal_bench_signals_<size>_<digest>`, kept and reused like the log's; a seed cut short by
 *   its time budget resumes on the next run). Page 1's baseline column is `GET /me` of the same
 *   user, the depth's is page 1. Target: p99 ≤ 50 ms at 50 connections.
 */
import { createHash, randomBytes } from 'node:crypto';
import { canonicalJson } from '@signal/core/statements';
import * as db from '@signal/db';
import { createScratchDatabase } from '@signal/test-support';
import { ADMIN_URL, BENCH_STATEMENT_TIMEOUT, settle, withClient } from './databases.js';
import { databaseCpu } from './db-cpu.js';
import { compare, type LoadPlan } from './load.js';
import { reads } from './log-read-rows.js';
import { type Row, row, type Verdict } from './report.js';
import { get } from './scenarios.js';
import { type ServerProcess, type ServerSpec, startServer } from './servers.js';
import { signIn } from './sign-in.js';
import { type BenchWallet, evmWallet, solanaWallet } from './wallets.js';

export const SIGNAL_KEYS = ['signal-open', 'signal-list', 'me-signals', 'me-signals-deep'] as const;
export const OPEN_RATE = 1_000;
export const OPEN_TARGET_P99_MS = 1_500;
export const LIST_TARGET_RATIO = 0.8;
export const ME_TARGET_P99_MS = 50;
const OPEN_PROVIDERS = 100;
const ME_PROVIDERS = 500;
const ORIGIN = 'bench.example/signals';
const ADMIN = 'bench-admin-key-0123456789abcdefghij-signals';

export interface SignalRun {
  spec: (databaseUrl: string) => ServerSpec;
  catalogueUrl: string;
  wanted: (key: string) => boolean;
  plan: Omit<LoadPlan, 'between'>;
  /** Seconds of offered load for `signal-open`. */
  openSeconds: number;
  /** Signals the `/me/signals` database holds, and the seed's time budget for this run. */
  meSignals: number;
  seedSeconds: number;
  log: (line: string) => void;
}

/** The server's env for these rows: the bench's log name, statements signed up to an hour before. */
function signalSpec(run: SignalRun, url: string, env: Record<string, string> = {}): ServerSpec {
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
      ...env,
    },
  };
}

/** One who signs for a provider: a publisher wallet or a key it delegated. */
interface Signer {
  providerId: number;
  id: string;
  sign(text: string): string;
}

const admin = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };

async function post(api: ServerProcess, path: string, body: unknown, headers: Record<string, string> = admin) {
  const res = await fetch(`${api.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 201 && res.status !== 200) throw new Error(`POST ${path} answered ${res.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

/**
 * `count` providers, each with a publisher wallet (EVM for even ones, Solana for odd ones) and
 * (`keys`) an Ed25519 key that wallet delegated.
 */
async function publishers(api: ServerProcess, count: number, name: string, keys: boolean): Promise<Signer[]> {
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
      log: ORIGIN,
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
function openBody(signer: Signer): { path: string; body: string } {
  const n = ++opened;
  const statement = canonicalJson({
    v: 1,
    log: ORIGIN,
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
        .catch((error: Error) => {
          failures.set(error.message, (failures.get(error.message) ?? 0) + 1);
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
  const count = Math.round(OPEN_RATE * run.openSeconds);
  // A warm-up at a tenth of the rate, then the timed run, every statement signed beforehand.
  const warm = Array.from({ length: Math.max(50, count / 10) }, (_, i) =>
    openBody(signers[i % signers.length] as Signer),
  );
  const timed = Array.from({ length: count }, (_, i) => openBody(signers[(i * 7) % signers.length] as Signer));
  await openLoop(api, warm, OPEN_RATE / 10);
  await settle(url);
  const probe = databaseCpu(url);
  try {
    const dbBefore = await probe.sample();
    const cpuBefore = await api.cpuMs();
    const m = await openLoop(api, timed, OPEN_RATE);
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
      'POST /providers/{id}/signals open → receipt, 1,000/s offered (open loop)',
      {
        rps: (ok / m.elapsed) * 1000,
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

/** The `/me/signals` database's name: its size and the migrations' digest. */
function meDatabase(size: number): { name: string; url: string } {
  const digest = createHash('sha256').update(db.migrationNames().join(',')).digest('hex').slice(0, 8);
  const name = `signal_bench_signals_${size}_${digest}`;
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

interface MeSeed {
  url: string;
  /** Signals it holds now (a seed cut short holds fewer than asked). */
  signals: number;
  follower: BenchWallet;
  /** Log entries in its tree. */
  logSize: number;
}

/**
 * The `/me/signals` database: ME_PROVIDERS providers with a Solana publisher each (fast to sign),
 * one user following them all, and `run.meSignals` signals spread over them, opened through the
 * route by 32 writers. The bench's own table `bench_seed` keeps the follower's key, the
 * publishers' keys and the count, so a later run signs in as the same user and goes on seeding.
 */
async function prepareMeDatabase(run: SignalRun): Promise<MeSeed> {
  const { name, url } = meDatabase(run.meSignals);
  const exists = await withClient(
    ADMIN_URL,
    async (client) => (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1,
  );
  if (!exists) {
    await withClient(ADMIN_URL, (client) => client.query(`create database ${name}`));
    const database = db.createDatabase({ url, poolSize: 2 });
    try {
      await db.migrateToLatest(database.db);
    } finally {
      await database.close();
    }
    await withClient(url, (client) =>
      client.query(
        `create table bench_seed (follower bytea not null, signals integer not null, publishers jsonb not null)`,
      ),
    );
  }
  const api = await startServer({
    ...signalSpec(run, url, { SIGNAL_RATE_LIMIT_PER_MINUTE: '0' }),
    name: 'api (signals seed)',
  });
  try {
    type Kept = { providerId: number; secret: string }[];
    let seed = await withClient(
      url,
      async (client) =>
        (await client.query<{ follower: Buffer; signals: number; publishers: Kept }>('select * from bench_seed'))
          .rows[0],
    );
    if (!seed) {
      const follower = evmWallet();
      const kept: Kept = [];
      const { token } = await signIn(api.url, follower);
      for (let i = 0; i < ME_PROVIDERS; i++) {
        const { id } = (await post(api, '/providers', { name: `Bench Signals ${i + 1}` })) as { id: number };
        const secret = randomBytes(32).toString('hex');
        const wallet = solanaFromSeed(secret);
        await post(api, `/providers/${id}/publishers`, { wallet: wallet.address });
        const res = await fetch(`${api.url}/providers/${id}/follow`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
        });
        await res.arrayBuffer();
        if (res.status >= 300) throw new Error(`POST /providers/${id}/follow answered ${res.status}`);
        kept.push({ providerId: id, secret });
      }
      await withClient(url, (client) =>
        client.query('insert into bench_seed values ($1, 0, $2)', [follower.privateKey, JSON.stringify(kept)]),
      );
      seed = { follower: follower.privateKey, signals: 0, publishers: kept };
    }
    const signers: Signer[] = seed.publishers.map(({ providerId, secret }) => {
      const wallet = solanaFromSeed(secret);
      return { providerId, id: wallet.address, sign: (text) => wallet.sign(text) };
    });
    let signals = seed.signals;
    if (signals < run.meSignals) {
      const started = performance.now();
      const deadline = started + run.seedSeconds * 1000;
      const from = signals;
      const writer = async (w: number) => {
        for (let i = w; performance.now() < deadline; i += 32) {
          const next = signals;
          if (next >= run.meSignals) return;
          signals++;
          // Round-robin over the providers, so every provider's history grows alike.
          const { path, body } = openBody(signers[next % signers.length] as Signer);
          const res = await fetch(`${api.url}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body,
          });
          const text = await res.text();
          if (res.status !== 201) throw new Error(`seed: POST ${path} answered ${res.status}: ${text}`);
        }
      };
      await Promise.all(Array.from({ length: 32 }, (_, w) => writer(w)));
      await withClient(url, (client) => client.query('update bench_seed set signals = $1', [signals]));
      const seconds = (performance.now() - started) / 1000;
      run.log(
        `${name}: seeded ${signals - from} signals in ${seconds.toFixed(0)} s (${Math.round((signals - from) / seconds)}/s); it holds ${signals} of ${run.meSignals}`,
      );
    }
    const note = await (await fetch(`${api.url}/log/checkpoint`)).text();
    await withClient(ADMIN_URL, (client) =>
      client.query(`alter database ${name} set statement_timeout = '${BENCH_STATEMENT_TIMEOUT}'`),
    );
    return { url, signals, follower: evmWallet(seed.follower), logSize: Number(note.split('\n')[1]) };
  } finally {
    await api.stop();
  }
}

/** A Solana wallet from a 32-byte hex seed (kept in bench_seed), signing like solanaWallet's. */
function solanaFromSeed(secret: string): BenchWallet {
  return solanaWallet(Buffer.from(secret, 'hex'));
}

async function meRows(run: SignalRun, rows: Map<string, Row>): Promise<void> {
  const seed = await prepareMeDatabase(run);
  const api = await startServer({ ...signalSpec(run, seed.url), name: 'api (me/signals)' });
  try {
    const { token } = await signIn(api.url, seed.follower);
    const auth = [{ authorization: `Bearer ${token}` }];
    // The cursor at depth: walked from page 1 in pages of 100 to 80 % of the signals.
    const depth = Math.floor((seed.signals * 0.8) / 100) * 100;
    let cursor: string | null = null;
    for (let walked = 0; walked < depth; walked += 100) {
      const res = await fetch(`${api.url}/me/signals?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
        headers: auth[0],
      });
      if (res.status !== 200) throw new Error(`GET /me/signals answered ${res.status}: ${await res.text()}`);
      cursor = ((await res.json()) as { nextCursor: string | null }).nextCursor;
      if (!cursor) break;
    }
    const plan: LoadPlan = { ...run.plan, between: () => settle(seed.url) };
    const size = `${seed.signals.toLocaleString('en-US')} signals of ${ME_PROVIDERS} followed providers, a log of ${seed.logSize.toLocaleString('en-US')} entries`;
    if (run.wanted('me-signals')) {
      const result = await compare(get(api, ['/me/signals'], auth), get(api, ['/me'], auth), plan);
      rows.set(
        'me-signals',
        row(
          'GET /me/signals page 1, following 500 providers',
          result.service,
          result.baseline,
          `${size}; one user, ${run.plan.connections} connections; baseline column: GET /me of the same user`,
        ),
      );
    }
    if (run.wanted('me-signals-deep') && cursor) {
      const result = await compare(
        get(api, [`/me/signals?cursor=${cursor}`], auth),
        get(api, ['/me/signals'], auth),
        plan,
      );
      rows.set(
        'me-signals-deep',
        row(
          `GET /me/signals by cursor at depth ${depth.toLocaleString('en-US')}`,
          result.service,
          result.baseline,
          `${size}; baseline column: page 1 of the same feed`,
        ),
      );
    }
  } finally {
    await api.stop();
  }
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
  if (run.wanted('me-signals') || run.wanted('me-signals-deep')) await meRows(run, rows);
  return rows;
}

export function judgeSignals(rows: Map<string, Row>): Verdict[] {
  const verdicts: Verdict[] = [];
  const open = rows.get('signal-open');
  if (open) {
    const p99 = open.service.p99 ?? Number.POSITIVE_INFINITY;
    verdicts.push({
      target: `POST open → receipt at ${OPEN_RATE.toLocaleString('en-US')}/s offered: p99 ≤ ${OPEN_TARGET_P99_MS} ms, all served`,
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
  for (const key of ['me-signals', 'me-signals-deep'] as const) {
    const r = rows.get(key);
    if (!r) continue;
    const p99 = r.service.p99 ?? Number.POSITIVE_INFINITY;
    verdicts.push({
      target: `${key}: p99 ≤ ${ME_TARGET_P99_MS} ms at 50 connections`,
      measured: `p99 ${p99} ms (p50 ${r.service.p50} ms), ${Math.round(r.service.rps)} req/s`,
      met: p99 <= ME_TARGET_P99_MS,
    });
  }
  return verdicts;
}
