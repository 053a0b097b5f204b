/**
 * The measurement of log-rows.ts's append rows: concurrent writers for a fixed time while a
 * poller reads `GET /log/checkpoint` every 3 ms; entries/s, each entry's time from its answer to
 * the first checkpoint holding it, and the CPU per entry of the API, PostgreSQL and this process.
 */
import pg from 'pg';
import { type BackendCpu, databaseCpu } from './db-cpu.js';
import type { ServerProcess } from './servers.js';

/** One accepted entry: how to find its index afterwards, and when its writer was answered. */
interface Accepted {
  at: number;
  /** log_pending's acceptance id (log_entries.accepted_id), or the publisher's wallet. */
  key: string;
}

/** What one append measurement found. */
export interface AppendFigures {
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
export async function measureAppends(
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
export function pooled(runs: AppendFigures[]): AppendFigures {
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

export const cpuLine = (m: AppendFigures) =>
  `CPU per entry: API ${m.apiCpuUs?.toFixed(0) ?? '–'} µs, PostgreSQL ${m.dbCpuUs.toFixed(0)} µs, bench (writers + poller) ${m.writerCpuUs.toFixed(0)} µs`;

export async function queryIndexes(url: string, text: string): Promise<Map<string, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ idx: string; key: string }>(text);
    return new Map(result.rows.map((r) => [r.key, Number(r.idx)]));
  } finally {
    await client.end();
  }
}
