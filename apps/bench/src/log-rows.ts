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
import { type AppendFigures, cpuLine, measureAppends, pooled, queryIndexes } from './log-measure.js';
import { type Row, row, type Verdict } from './report.js';
import { type RowRun, type ServerProcess, startServer } from './servers.js';

export const LOG_KEYS = ['log-append', 'log-accept'] as const;
export const LOG_TARGET_ENTRIES_PER_SECOND = 2_000;
export const LOG_TARGET_P99_MS = 1_000;
const ADMIN = 'bench-admin-key-0123456789abcdefghij-log';
/** Providers the writers add publishers to. */
const PROVIDERS = 8;
/** Connections the `log-accept` row appends from. */
const ACCEPT_CONNECTIONS = 8;

export interface LogRun extends RowRun {
  seconds: number;
  connections: number;
}

/** A fresh EVM-shaped address per call (all lowercase: accepted as it is, canonical after EIP-55). */
let counter = 0;
const wallet = () => `0x${(++counter).toString(16).padStart(8, '0')}${'ab'.repeat(16)}`;

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
    figures(m),
    null,
    `${m.count.toLocaleString('en-US')} entries by ${run.connections} writers to ${PROVIDERS} providers over ${run.seconds} s; p50/p99 from each answer to the first served checkpoint holding its entry`,
  );
}

/** An append measurement as a row's figures: entries/s, answer (or commit) → checkpoint, CPU per entry. */
const figures = (m: AppendFigures) => ({
  rps: m.perSecond,
  p50: m.at(0.5),
  p99: m.at(0.99),
  cpuUs: m.apiCpuUs,
  dbCpuUs: m.dbCpuUs,
  clientCpuUs: m.writerCpuUs,
});

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
