/**
 * `live-publish` (issue 41, item 4): statements accepted per second with receipts while SUBSCRIBERS
 * `signals.live` streams (live-rows.ts's, one process, 10,000 or BENCH_LIVE_SUBSCRIBERS) follow a
 * provider, against the same publishers on the same process with no stream open, in the same run.
 *
 * PUBLISHERS signers (a publisher wallet, EVM or Solana, and a delegated Ed25519 key for each of
 * PUBLISHERS / 2 providers, none of them followed by the streams) publish `signal.open`
 * statements as fast as they can, one closed loop each (the next statement is signed and sent
 * once the last one's 201 with its receipt is in), the per-signer limit off: accepted/s and each
 * statement's time from send to its 201 (p50/p99). Beside them, in both sides, the followed
 * provider opens one signal a second, timed from its POST to the `id:` line at every stream
 * (with streams open: the delivery p50/p99). The order is without, with, without (the baseline is
 * both runs pooled), so that the log growing over the row lands on both sides. Targets: with the
 * streams ≥ LIVE_PUBLISH_TARGET_RATIO× the rate without, delivery p99 ≤ 1 s.
 */
import { createScratchDatabase } from '@signal/test-support';
import { databaseCpu } from './db-cpu.js';
import {
  deliveries,
  LIVE_TARGET_P99_MS,
  type LiveRun,
  liveSubscribers,
  openStreams,
  pause,
  type Stream,
} from './live-rows.js';
import { type Row, row, type Verdict } from './report.js';
import { type ServerProcess, startServer } from './servers.js';
import { openBody, post, publishers, type Signer, signalSpec } from './signal-rows.js';

export const LIVE_PUBLISH_KEYS = ['live-publish'] as const;
export const LIVE_PUBLISH_TARGET_RATIO = 0.8;
/** Concurrent publishers (closed loops): a wallet and a delegated key for each of 8 providers. */
const PUBLISHERS = 16;

interface Accepting {
  accepted: number;
  ms: number;
  /** Send → 201, sorted, ms. */
  latencies: number[];
  refused: number;
  apiMs: number;
  dbMs: number;
}

/** The publishers' closed loops for `seconds`, with the followed provider's 1/s beside them. */
async function accept(
  api: ServerProcess,
  url: string,
  signers: Signer[],
  followed: Signer,
  seconds: number,
  sent: Map<string, number>,
): Promise<Accepting> {
  const probe = databaseCpu(url);
  const dbBefore = await probe.sample();
  const apiBefore = (await api.cpuMs()) ?? 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const latencies: number[] = [];
  let refused = 0;
  const send = async (signer: Signer) => {
    const { path, body } = openBody(signer);
    const at = performance.now();
    const res = await fetch(`${api.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const answer = (await res.json()) as { receipt?: { logIndex: number } };
    return { at, ok: res.status === 201, logIndex: answer.receipt?.logIndex };
  };
  const loop = async (signer: Signer) => {
    while (performance.now() < deadline) {
      const { at, ok } = await send(signer).catch(() => ({ at: performance.now(), ok: false }));
      if (ok) latencies.push(performance.now() - at);
      else refused += 1;
    }
  };
  const ticker = async () => {
    for (let tick = started; tick < deadline; tick += 1_000) {
      await pause(Math.max(0, tick - performance.now()));
      const { at, ok, logIndex } = await send(followed);
      if (!ok || logIndex === undefined) throw new Error('the followed provider’s signal was refused');
      sent.set(String(logIndex), at);
    }
  };
  await Promise.all([...signers.map(loop), ticker()]);
  const ms = performance.now() - started;
  const apiMs = ((await api.cpuMs()) ?? 0) - apiBefore;
  const dbAfter = await probe.sample();
  await probe.close();
  let dbMs = 0;
  for (const [pid, cpu] of dbAfter) dbMs += cpu - (dbBefore.get(pid) ?? 0);
  latencies.sort((a, b) => a - b);
  return { accepted: latencies.length, ms, latencies, refused, apiMs, dbMs };
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

/** The figures of runs pooled: statements over their whole time, latencies together. */
function figures(runs: Accepting[]) {
  const accepted = runs.reduce((n, r) => n + r.accepted, 0);
  const latencies = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const per = (pick: (r: Accepting) => number) =>
    accepted > 0 ? (runs.reduce((n, r) => n + pick(r), 0) * 1000) / accepted : null;
  return {
    rps: (accepted / runs.reduce((n, r) => n + r.ms, 0)) * 1000,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    cpuUs: per((r) => r.apiMs),
    dbCpuUs: per((r) => r.dbMs),
    refused: runs.reduce((n, r) => n + r.refused, 0),
  };
}

const delivery = new Map<string, { p50: number; p99: number; missing: number; streams: number }>();

export async function livePublishRows(run: LiveRun): Promise<Map<string, Row>> {
  const rows = new Map<string, Row>();
  if (!run.wanted('live-publish')) return rows;
  const subscribers = liveSubscribers(run.quick);
  const seconds = Number(process.env.BENCH_LIVE_SECONDS ?? (run.quick ? 3 : 10));
  const scratch = await createScratchDatabase();
  const env = {
    SIGNAL_RATE_LIMIT_PER_MINUTE: '0',
    STREAMS_PER_CREDENTIAL: '100000',
    STREAMS_PER_ADDRESS: '0',
    STREAMS_MAX: '0',
  };
  const api = await startServer({ ...signalSpec(run, scratch.url, env), name: 'api (live-publish)' });
  let streams: Stream[] = [];
  try {
    const signers = await publishers(api, PUBLISHERS / 2, 'Bench Publish', true);
    const [followed] = (await publishers(api, 1, 'Bench Followed', false)) as [Signer];
    const { key } = (await post(api, '/admin/keys', { name: 'live', scopes: ['signals:read'] })) as { key: string };
    const ignored = new Map<string, number>();
    // A warm-up: the route's path compiled, the pool's connections open.
    await accept(api, scratch.url, signers, followed, Math.min(2, seconds), ignored);
    const before = await accept(api, scratch.url, signers, followed, seconds, ignored);
    streams = await openStreams([api], key, followed.providerId, subscribers);
    const open = streams.filter((s) => s.connected).length;
    await pause(2_000);
    const sent = new Map<string, number>();
    const under = await accept(api, scratch.url, signers, followed, seconds, sent);
    const got = await deliveries(streams, sent);
    for (const stream of streams) stream.socket.destroy();
    streams = [];
    await pause(2_000);
    const after = await accept(api, scratch.url, signers, followed, seconds, ignored);
    const service = figures([under]);
    const baseline = figures([before, after]);
    delivery.set('live-publish', { p50: got.q(0.5), p99: got.q(0.99), missing: got.missing, streams: open });
    const refused = service.refused + baseline.refused;
    run.log(
      `live-publish: ${Math.round(service.rps)} statements/s with ${open} streams (receipt p50 ${service.p50.toFixed(0)} ms, p99 ${service.p99.toFixed(0)} ms; API ${service.cpuUs?.toFixed(0)} µs, PostgreSQL ${service.dbCpuUs?.toFixed(0)} µs per statement) vs ${Math.round(baseline.rps)}/s without (p50 ${baseline.p50.toFixed(0)} ms, p99 ${baseline.p99.toFixed(0)} ms; API ${baseline.cpuUs?.toFixed(0)} µs, PostgreSQL ${baseline.dbCpuUs?.toFixed(0)} µs); delivery meanwhile p50 ${got.q(0.5).toFixed(0)} ms, p99 ${got.q(0.99).toFixed(0)} ms, ${got.missing} missing of ${sent.size} signals × ${open} streams${refused ? `; ${refused} refused` : ''}`,
    );
    rows.set(
      'live-publish',
      row(
        `signal statements accepted with receipts under ${open.toLocaleString('en-US')} live streams (statements/s)`,
        service,
        baseline,
        `${PUBLISHERS} publishers in closed loops (a wallet and a delegated key of each of ${PUBLISHERS / 2} providers), ${seconds} s a run; p50/p99: send → 201 with the receipt; baseline column: the same publishers on the same process with no stream open, run before and after; meanwhile 1 signal/s of the followed provider: publish → every stream p50 ${got.q(0.5).toFixed(0)} ms, p99 ${got.q(0.99).toFixed(0)} ms, ${got.missing} missing${refused ? `; ${refused} not 201` : ''}`,
      ),
    );
  } finally {
    for (const stream of streams) stream.socket.destroy();
    await api.stop();
    await scratch.drop();
  }
  return rows;
}

export function judgeLivePublish(rows: Map<string, Row>): Verdict[] {
  const measured = rows.get('live-publish');
  const got = delivery.get('live-publish');
  if (!measured?.baseline || measured.ratio === null || !got) return [];
  return [
    {
      target: `live-publish: statements/s under the streams ≥ ${LIVE_PUBLISH_TARGET_RATIO}× the rate without`,
      measured: `${measured.ratio.toFixed(2)}× (${Math.round(measured.service.rps)} vs ${Math.round(measured.baseline.rps)}/s; receipt p99 ${measured.service.p99?.toFixed(0)} vs ${measured.baseline.p99?.toFixed(0)} ms)`,
      met: measured.ratio >= LIVE_PUBLISH_TARGET_RATIO,
    },
    {
      target: `live-publish: delivery to ${got.streams.toLocaleString('en-US')} streams meanwhile p99 ≤ ${LIVE_TARGET_P99_MS} ms, none missing`,
      measured: `p99 ${got.p99.toFixed(0)} ms (p50 ${got.p50.toFixed(0)} ms), ${got.missing} missing`,
      met: got.p99 <= LIVE_TARGET_P99_MS && got.missing === 0,
    },
  ];
}
