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
import { createScratchDatabase } from '@signal/test-support';
import pg from 'pg';
import { type Row, row, type Verdict } from './report.js';
import { type ServerSpec, startServer } from './servers.js';

export const LOG_KEYS = ['log-append'] as const;
export const LOG_TARGET_ENTRIES_PER_SECOND = 2_000;
export const LOG_TARGET_P99_MS = 1_000;
const ADMIN = 'bench-admin-key-0123456789abcdefghij-log';
/** Providers the writers add publishers to. */
const PROVIDERS = 8;

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

export async function logRows(run: LogRun): Promise<Map<string, Row>> {
  const rows = new Map<string, Row>();
  if (!run.wanted('log-append')) return rows;
  const scratch = await createScratchDatabase();
  const base = run.spec(scratch.url);
  const api = await startServer({ ...base, name: 'api (log)', env: { ...base.env, ADMIN_KEY: ADMIN } });
  const auth = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
  try {
    // Each publisher add locks its provider's row; spread over PROVIDERS so that the log, not one
    // provider's lock, is what the row measures (writer i adds to provider i mod PROVIDERS).
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
    const answered: { wallet: string; at: number }[] = [];
    const sizes: { at: number; size: number }[] = [];
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
          if (size >= answered.length || performance.now() > giveUpAt) return;
        }
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
    })();
    const started = performance.now();
    const deadline = started + run.seconds * 1000;
    const writer = async (providerId: number) => {
      while (performance.now() < deadline) {
        const address = wallet();
        const res = await fetch(`${api.url}/providers/${providerId}/publishers`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ wallet: address }),
        });
        if (res.status !== 201) throw new Error(`POST …/publishers answered ${res.status}: ${await res.text()}`);
        await res.arrayBuffer();
        answered.push({ wallet: address.toLowerCase(), at: performance.now() });
      }
    };
    await Promise.all(Array.from({ length: run.connections }, (_, i) => writer(providerIds[i % PROVIDERS]!)));
    const elapsed = performance.now() - started;
    running = false;
    await poller;
    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    const indexes = new Map<string, number>();
    try {
      const result = await client.query<{ idx: string; wallet: string }>(
        `select idx::text, lower(convert_from(entry, 'UTF8')::json->>'wallet') as wallet from log_entries`,
      );
      for (const r of result.rows) indexes.set(r.wallet, Number(r.idx));
    } finally {
      await client.end();
    }
    const latencies = answered
      .map(({ wallet: w, at }) => {
        const index = indexes.get(w);
        const seen = index === undefined ? undefined : sizes.find((s) => s.size > index);
        return seen ? Math.max(0, seen.at - at) : Number.POSITIVE_INFINITY;
      })
      .sort((a, b) => a - b);
    const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
    const perSecond = (answered.length / elapsed) * 1000;
    run.log(
      `log-append: ${Math.round(perSecond)} entries/s from ${run.connections} writers; answer → checkpoint p50 ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms, max ${at(1).toFixed(1)} ms`,
    );
    rows.set(
      'log-append',
      row(
        'log: publisher adds, one entry each (entries/s; answer → signed checkpoint ms)',
        { rps: perSecond, p50: at(0.5), p99: at(0.99) },
        null,
        `${answered.length.toLocaleString('en-US')} entries by ${run.connections} writers to ${PROVIDERS} providers over ${run.seconds} s; p50/p99 from each answer to the first served checkpoint holding its entry`,
      ),
    );
  } finally {
    await api.stop();
    await scratch.drop();
  }
  return rows;
}

export function judgeLog(rows: Map<string, Row>): Verdict[] {
  const append = rows.get('log-append');
  if (!append) return [];
  return [
    {
      target: `log: ≥ ${LOG_TARGET_ENTRIES_PER_SECOND.toLocaleString('en-US')} entries/s with p99 ≤ ${LOG_TARGET_P99_MS} ms to a signed checkpoint`,
      measured: `${Math.round(append.service.rps).toLocaleString('en-US')} entries/s, p99 ${append.service.p99?.toFixed(0)} ms`,
      met: append.service.rps >= LOG_TARGET_ENTRIES_PER_SECOND && (append.service.p99 ?? Infinity) <= LOG_TARGET_P99_MS,
    },
  ];
}
