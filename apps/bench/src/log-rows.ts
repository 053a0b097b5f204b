/**
 * The public log's append row (`--only log-append`, issue 38): concurrent writers add publisher
 * wallets (`POST /providers/{id}/publishers`, one log entry each) on a fresh database for a fixed
 * time, while a poller reads `GET /log/checkpoint` every few milliseconds. Entries accepted per
 * second, and for each entry the time from its answer to the first checkpoint seen whose size is
 * past the entry's index (found afterwards in log_entries by its wallet): p50/p99. Target: ≥ 2,000
 * entries/s with p99 ≤ 1 s on PostgreSQL.
 *
 * The writers spread over PROVIDERS providers: each add locks its provider's row, so one provider
 * would measure that lock. The log's read rows are log-read-rows.ts's.
 */

import { availableParallelism } from 'node:os';
import { appendLogEntry, createDatabase } from '@signal/db';
import { createScratchDatabase } from '@signal/test-support';
import pg from 'pg';
import { type BackendCpu, databaseCpu } from './db-cpu.js';
import { type Row, row, type Verdict } from './report.js';
import { type ServerProcess, type ServerSpec, startServer } from './servers.js';

export const LOG_KEYS = ['log-append', 'log-accept'] as const;
export const LOG_TARGET_ENTRIES_PER_SECOND = 2_000;
export const LOG_TARGET_P99_MS = 1_000;
const ADMIN = 'bench-admin-key-0123456789abcdefghij-log';
/** Providers the writers add publishers to. */
const PROVIDERS = 8;
/** Connections the `log-accept` row appends from. */
const ACCEPT_CONNECTIONS = 8;

export interface LogRun {
  spec: (databaseUrl: string) => ServerSpec;
  wanted: (key: string) => boolean;
  seconds: number;
  connections: number;
  log: (line: string) => void;
}

/** A fresh EVM-shaped address per call (all lowercase: accepted as it is, canonical after EIP-55). */
let counter = 0;
const wallet = () => `0x${(++counter).toString(16).padStart(8, '0')}${'ab'.repeat(16)}`;

/** One accepted entry: how to find its index afterwards, and when its writer was answered. */
interface Accepted {
  at: number;
  /** log_pending's acceptance id (log_entries.accepted_id), or the publisher's wallet. */
  key: string;
}

/** What one append measurement found. */
interface AppendFigures {
  perSecond: number;
  count: number;
  elapsedMs: number;
  /** Sorted, ms (Infinity for an entry never seen in a checkpoint). */
  latencies: number[];
  /** Latency quantile, ms, from an entry's answer to the first served checkpoint holding it. */
  at: (q: number) => number;
  /** CPU per accepted entry, µs: the API process (route, sequencer, the poller's reads)… */
  apiCpuUs: number | null;
  /** …PostgreSQL's backends of the database (the writers' and the API's)… */
  dbCpuUs: number;
  /** …and the bench's own process (the writers, or their HTTP client, and the poller). */
  writerCpuUs: number;
}

/**
 * Runs `writers` concurrent loops of `write` for `seconds` while polling `GET /log/checkpoint`
 * every 3 ms; entries/s and, per entry, the time from its answer to the first checkpoint seen
 * past its index (`indexes` maps each entry's key to its index, read once the run is over).
 */
async function measureAppends(
  api: ServerProcess,
  writers: number,
  seconds: number,
  write: (writer: number) => Promise<string>,
  indexes: () => Promise<Map<string, number>>,
  databaseUrl: string,
): Promise<AppendFigures> {
  const answered: Accepted[] = [];
  const probe = databaseCpu(databaseUrl);
  const dbBefore = await probe.sample();
  const apiBefore = await api.cpuMs();
  const benchBefore = process.cpuUsage();
  const sizes: { at: number; size: number }[] = [];
  // The log may hold entries of an earlier measurement on the same database.
  const base = Number((await (await fetch(`${api.url}/log/checkpoint`)).text()).split('\n')[1]);
  let running = true;
  const poller = (async () => {
    let last = -1;
    let giveUpAt = Number.POSITIVE_INFINITY;
    for (;;) {
      const note = await (await fetch(`${api.url}/log/checkpoint`)).text();
      const size = Number(note.split('\n')[1]);
      if (size !== last) sizes.push({ at: performance.now(), size });
      last = size;
      if (!running) {
        giveUpAt = Math.min(giveUpAt, performance.now() + 10_000);
        if (size >= base + answered.length || performance.now() > giveUpAt) return;
      }
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
  })();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const loop = async (writer: number) => {
    while (performance.now() < deadline) {
      const key = await write(writer);
      answered.push({ key, at: performance.now() });
    }
  };
  await Promise.all(Array.from({ length: writers }, (_, i) => loop(i)));
  const elapsed = performance.now() - started;
  const benchCpu = process.cpuUsage(benchBefore);
  const apiAfter = await api.cpuMs();
  const dbAfter = await probe.sample();
  await probe.close();
  running = false;
  await poller;
  const found = await indexes();
  const latencies = answered
    .map(({ key, at }) => {
      const index = found.get(key);
      const seen = index === undefined ? undefined : sizes.find((s) => s.size > index);
      return seen ? Math.max(0, seen.at - at) : Number.POSITIVE_INFINITY;
    })
    .sort((a, b) => a - b);
  const perEntry = (ms: number) => (answered.length > 0 ? (ms * 1000) / answered.length : 0);
  return {
    perSecond: (answered.length / elapsed) * 1000,
    count: answered.length,
    elapsedMs: elapsed,
    latencies,
    at: quantiles(latencies),
    apiCpuUs: apiBefore !== null && apiAfter !== null ? perEntry(apiAfter - apiBefore) : null,
    dbCpuUs: perEntry(cpuSince(dbBefore, dbAfter)),
    writerCpuUs: perEntry((benchCpu.user + benchCpu.system) / 1000),
  };
}

/** The q-quantile of sorted `latencies`. */
const quantiles = (latencies: number[]) => (q: number) =>
  latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;

/** Measurements of one side pooled: entries over the time of all, latencies together, CPU weighted. */
function pooled(runs: AppendFigures[]): AppendFigures {
  const count = runs.reduce((n, r) => n + r.count, 0);
  const elapsedMs = runs.reduce((n, r) => n + r.elapsedMs, 0);
  const latencies = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const weighted = (pick: (r: AppendFigures) => number | null) =>
    runs.some((r) => pick(r) === null) ? null : runs.reduce((n, r) => n + (pick(r) as number) * r.count, 0) / count;
  return {
    perSecond: (count / elapsedMs) * 1000,
    count,
    elapsedMs,
    latencies,
    at: quantiles(latencies),
    apiCpuUs: weighted((r) => r.apiCpuUs),
    dbCpuUs: weighted((r) => r.dbCpuUs) ?? 0,
    writerCpuUs: weighted((r) => r.writerCpuUs) ?? 0,
  };
}

/** CPU the backends spent between the samples, ms; one connected since `before` counts from 0. */
function cpuSince(before: BackendCpu, after: BackendCpu): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

const cpuLine = (m: AppendFigures) =>
  `CPU per entry: API ${m.apiCpuUs?.toFixed(0) ?? '–'} µs, PostgreSQL ${m.dbCpuUs.toFixed(0)} µs, bench (writers + poller) ${m.writerCpuUs.toFixed(0)} µs`;

async function queryIndexes(url: string, text: string): Promise<Map<string, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ idx: string; key: string }>(text);
    return new Map(result.rows.map((r) => [r.key, Number(r.idx)]));
  } finally {
    await client.end();
  }
}

/** Publisher adds through the route (one entry each), `connections` writers over PROVIDERS providers. */
async function appendRow(run: LogRun, api: ServerProcess, url: string): Promise<Row> {
  const auth = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
  // Each publisher add locks its provider's row; spread over PROVIDERS so that one provider's
  // lock is not what the row measures (writer i adds to provider i mod PROVIDERS).
  const providerIds: number[] = [];
  for (let i = 0; i < PROVIDERS; i++) {
    const created = await fetch(`${api.url}/providers`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: `Bench Log ${i + 1}` }),
    });
    if (created.status !== 201) throw new Error(`POST /providers answered ${created.status}`);
    providerIds.push(((await created.json()) as { id: number }).id);
  }
  const m = await measureAppends(
    api,
    run.connections,
    run.seconds,
    async (writer) => {
      const address = wallet();
      const res = await fetch(`${api.url}/providers/${providerIds[writer % PROVIDERS]}/publishers`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ wallet: address }),
      });
      if (res.status !== 201) throw new Error(`POST …/publishers answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
      return address.toLowerCase();
    },
    () =>
      queryIndexes(
        url,
        `select idx::text, lower(convert_from(entry, 'UTF8')::json->>'wallet') as key from log_entries`,
      ),
    url,
  );
  run.log(
    `log-append: ${Math.round(m.perSecond)} entries/s from ${run.connections} writers; answer → checkpoint p50 ${m.at(0.5).toFixed(1)} ms, p99 ${m.at(0.99).toFixed(1)} ms, max ${m.at(1).toFixed(1)} ms; ${cpuLine(m)}`,
  );
  return row(
    'log: publisher adds, one entry each (entries/s; answer → signed checkpoint ms)',
    {
      rps: m.perSecond,
      p50: m.at(0.5),
      p99: m.at(0.99),
      cpuUs: m.apiCpuUs,
      dbCpuUs: m.dbCpuUs,
      clientCpuUs: m.writerCpuUs,
    },
    null,
    `${m.count.toLocaleString('en-US')} entries by ${run.connections} writers to ${PROVIDERS} providers over ${run.seconds} s; p50/p99 from each answer to the first served checkpoint holding its entry`,
  );
}

/**
 * Entries accepted through the db package's `appendLogEntry`, each in a transaction of its own,
 * from ACCEPT_CONNECTIONS connections of the bench's process: what the log accepts when no
 * route's own work (key check, provider lock, its other rows) stands in front of it. The API's
 * sequencer integrates them (its 100 ms poll: these writers do not kick it).
 *
 * Side by side, on one database, rounds alternating (ABBA): the service column is the insert as
 * its own transaction (one round trip: PostgreSQL commits a lone statement, WAL flushed, before it
 * answers), the baseline column the same insert inside BEGIN … COMMIT (three round trips), as a
 * change's transaction has it and as this row measured before.
 */
async function acceptRow(run: LogRun, api: ServerProcess, url: string): Promise<Row> {
  const database = createDatabase({ url, poolSize: ACCEPT_CONNECTIONS });
  let n = 0;
  const entry = () => new TextEncoder().encode(JSON.stringify({ type: 'bench.accept', n: ++n, wallet: wallet() }));
  const sides = {
    alone: async () => String((await appendLogEntry(database.db, entry())).id),
    wrapped: async () => String((await database.db.transaction().execute((trx) => appendLogEntry(trx, entry()))).id),
  };
  const runs: Record<keyof typeof sides, AppendFigures[]> = { alone: [], wrapped: [] };
  try {
    for (const side of ['alone', 'wrapped', 'wrapped', 'alone'] as const) {
      runs[side].push(
        await measureAppends(
          api,
          ACCEPT_CONNECTIONS,
          run.seconds / 2,
          sides[side],
          () => queryIndexes(url, 'select idx::text, accepted_id::text as key from log_entries'),
          url,
        ),
      );
    }
    const alone = pooled(runs.alone);
    const wrapped = pooled(runs.wrapped);
    for (const [label, m] of [
      ['one statement', alone],
      ['BEGIN … COMMIT', wrapped],
    ] as const) {
      run.log(
        `log-accept (${label}): ${Math.round(m.perSecond)} entries/s from ${ACCEPT_CONNECTIONS} connections; commit → checkpoint p50 ${m.at(0.5).toFixed(1)} ms, p99 ${m.at(0.99).toFixed(1)} ms; ${cpuLine(m)}`,
      );
    }
    const figures = (m: AppendFigures) => ({
      rps: m.perSecond,
      p50: m.at(0.5),
      p99: m.at(0.99),
      cpuUs: m.apiCpuUs,
      dbCpuUs: m.dbCpuUs,
      clientCpuUs: m.writerCpuUs,
    });
    return row(
      'log: appendLogEntry, one entry a transaction (entries/s; commit → signed checkpoint ms)',
      figures(alone),
      figures(wrapped),
      `${alone.count.toLocaleString('en-US')} + ${wrapped.count.toLocaleString('en-US')} entries from ${ACCEPT_CONNECTIONS} connections, two rounds of ${run.seconds / 2} s per side (ABBA); service: the insert as its own transaction (1 round trip), baseline: inside BEGIN … COMMIT (3); CPU per entry: API (sequencer, the poller's reads) ${alone.apiCpuUs?.toFixed(0)} / ${wrapped.apiCpuUs?.toFixed(0)} µs, PostgreSQL ${alone.dbCpuUs.toFixed(0)} / ${wrapped.dbCpuUs.toFixed(0)} µs, the writers' process ${alone.writerCpuUs.toFixed(0)} / ${wrapped.writerCpuUs.toFixed(0)} µs`,
    );
  } finally {
    await database.close();
  }
}

export async function logRows(run: LogRun): Promise<Map<string, Row>> {
  const rows = new Map<string, Row>();
  for (const [key, measure] of [
    ['log-append', appendRow],
    ['log-accept', acceptRow],
  ] as const) {
    if (!run.wanted(key)) continue;
    const scratch = await createScratchDatabase();
    const base = run.spec(scratch.url);
    const api = await startServer({ ...base, name: 'api (log)', env: { ...base.env, ADMIN_KEY: ADMIN } });
    try {
      rows.set(key, await measure(run, api, scratch.url));
    } finally {
      await api.stop();
      await scratch.drop();
    }
  }
  return rows;
}

/** The target, judged on each append row run: the route's and the db function's. */
export function judgeLog(rows: Map<string, Row>): Verdict[] {
  return LOG_KEYS.flatMap((key) => {
    const measured = rows.get(key);
    if (!measured) return [];
    const { rps, p99, cpuUs, dbCpuUs, clientCpuUs } = measured.service;
    // What the measured CPU per entry affords: every core of this machine doing nothing else
    // (the rate itself depends on what the other engineers' work leaves of them).
    const total = (cpuUs ?? 0) + (dbCpuUs ?? 0) + (clientCpuUs ?? 0);
    const affords =
      cpuUs != null && total > 0
        ? `; CPU per entry ${Math.round(total)} µs (API ${Math.round(cpuUs)}, PostgreSQL ${Math.round(dbCpuUs ?? 0)}, writers ${Math.round(clientCpuUs ?? 0)}): ≈ ${Math.round((availableParallelism() * 1e6) / total).toLocaleString('en-US')}/s on ${availableParallelism()} idle cores`
        : '';
    return [
      {
        target: `log (${key}): ≥ ${LOG_TARGET_ENTRIES_PER_SECOND.toLocaleString('en-US')} entries/s with p99 ≤ ${LOG_TARGET_P99_MS} ms to a signed checkpoint`,
        measured: `${Math.round(rps).toLocaleString('en-US')} entries/s, p99 ${p99?.toFixed(0)} ms${affords}`,
        met: rps >= LOG_TARGET_ENTRIES_PER_SECOND && (p99 ?? Infinity) <= LOG_TARGET_P99_MS,
      },
    ];
  });
}
