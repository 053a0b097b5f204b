/**
 * The `signals.live` rows (issue 41): SUBSCRIBERS streams held open by the bench's process (raw
 * sockets, one connection each, every one on one provider), one signal a second opened through
 * `POST /providers/{id}/signals` (signed by a publisher wallet with viem), for SECONDS seconds:
 * - `live-one`: every stream on one API process;
 * - `live-two`: half on each of two API processes sharing the database (the database wake-up);
 * - `live-two-nats`: the same with EVENT_BUS_URL (NATS JetStream at 127.0.0.1:4222, a stream of
 *   the row's own, deleted after).
 * Per signal, the time from the POST being sent to the event's `id:` line reaching each stream:
 * p50/p99 over every (signal, stream) (target p99 ≤ 1 s); the API processes' CPU per signal and
 * per delivered event; their RSS growth per open stream (target ≤ 20 KiB), read once the streams
 * are open and idle. The streams are a `signals:read` key's with `providerIds` (the hub indexes a
 * follower's stream by provider the same way). BENCH_LIVE_SUBSCRIBERS and BENCH_LIVE_SECONDS
 * override the count and the seconds.
 */
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { connect, type Socket } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { signalTerms } from '@signal/core/signal-examples';
import { canonicalJson } from '@signal/core/statements';
import { createScratchDatabase } from '@signal/test-support';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type Row, row, type Verdict } from './report.js';
import { type RowRun, type ServerProcess, startServer } from './servers.js';

export const LIVE_KEYS = ['live-one', 'live-two', 'live-two-nats'] as const;
export const LIVE_TARGET_P99_MS = 1_000;
export const LIVE_TARGET_RSS_KIB = 20;
const ADMIN = 'bench-admin-key-0123456789abcdefghij-live';
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

/** Streams a live row holds open: 10,000, 200 with `--quick`, or BENCH_LIVE_SUBSCRIBERS. */
export const liveSubscribers = (quick: boolean) => Number(process.env.BENCH_LIVE_SUBSCRIBERS ?? (quick ? 200 : 10_000));

export interface LiveRun extends RowRun {
  quick: boolean;
}

export interface Stream {
  socket: Socket;
  /** Arrival time of each event id. */
  seen: Map<string, number>;
  connected: boolean;
}

/** A stream of `key` on the provider(s) (its input's `providerIds`). */
export function openStream(api: ServerProcess, key: string, providers: number | number[]): Stream {
  const { hostname, port } = new URL(api.url);
  const socket = connect(Number(port), hostname);
  const stream: Stream = { socket, seen: new Map(), connected: false };
  const input = encodeURIComponent(JSON.stringify({ providerIds: Array.isArray(providers) ? providers : [providers] }));
  socket.setEncoding('latin1');
  let tail = '';
  socket.on('data', (chunk: string) => {
    const now = performance.now();
    const text = tail + chunk;
    if (!stream.connected && text.includes('event: connected')) stream.connected = true;
    for (const match of text.matchAll(/\nid: (\d+)\n/g))
      if (!stream.seen.has(match[1]!)) stream.seen.set(match[1]!, now);
    tail = text.slice(-32);
  });
  socket.on('error', () => {});
  socket.write(
    `GET /trpc/signals.live?input=${input} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\nAuthorization: Bearer ${key}\r\n\r\n`,
  );
  return stream;
}

/** The fields the row reads of the answers it gets. */
interface Answer {
  id: number;
  key: string;
  receipt: { logIndex: number };
}

async function post(url: string, path: string, body: unknown, token?: string) {
  const send = () =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  // Once more on a reset: a keep-alive socket the server closed as it was reused (the full run
  // of 2 Dec lost live-two-nats to one at load 40). The same bytes: a statement sent again is
  // answered as the first (docs/signals.md, "Retries").
  const res = await send().catch(send);
  const json = (await res.json()) as Answer;
  if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `count` streams of `key` on `providers`, spread over `apis` in turn, opened in bursts of 200
 * (so that the listen backlog never overflows); resolves once all are connected (or 120 s).
 */
export async function openStreams(apis: ServerProcess[], key: string, providers: number | number[], count: number) {
  const streams: Stream[] = [];
  for (let i = 0; i < count; i++) {
    streams.push(openStream(apis[i % apis.length] as ServerProcess, key, providers));
    if (i % 200 === 199) await pause(50);
  }
  const openBy = performance.now() + 120_000;
  while (streams.some((s) => !s.connected) && performance.now() < openBy) await pause(100);
  return streams;
}

/**
 * Once every connected stream has every event of `sent` (event id → the instant its POST was
 * sent), or 10 s: each (event, stream)'s time from the POST to its `id:` line, sorted, and the
 * events a connected stream never got.
 */
export async function deliveries(streams: Stream[], sent: Map<string, number>) {
  const doneBy = performance.now() + 10_000;
  while (
    performance.now() < doneBy &&
    streams.some((s) => s.connected && [...sent.keys()].some((id) => !s.seen.has(id)))
  ) {
    await pause(100);
  }
  const latencies: number[] = [];
  let missing = 0;
  for (const stream of streams) {
    if (!stream.connected) continue;
    for (const [id, at] of sent) {
      const seen = stream.seen.get(id);
      if (seen === undefined) missing += 1;
      else latencies.push(seen - at);
    }
  }
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? Number.NaN;
  return { latencies, missing, q };
}

async function measure(apis: ServerProcess[], subscribers: number, seconds: number) {
  const [first] = apis as [ServerProcess];
  const account = privateKeyToAccount(generatePrivateKey());
  const provider = await post(first.url, '/providers', { name: `Bench Live ${randomBytes(3).toString('hex')}` }, ADMIN);
  await post(first.url, `/providers/${provider.id}/publishers`, { wallet: account.address }, ADMIN);
  const { key } = await post(first.url, '/admin/keys', { name: 'live', scopes: ['signals:read'] }, ADMIN);
  const origin = (await (await fetch(`${first.url}/log/checkpoint`)).text()).split('\n')[0]!;
  // A warm-up: the code of a stream's path compiled and its first buffers allocated before the
  // resident size is read.
  const warm = Array.from({ length: 100 }, (_, i) => openStream(apis[i % apis.length]!, key, provider.id));
  await pause(2_000);
  for (const stream of warm) stream.socket.destroy();
  await pause(1_000);
  const rssBefore = await Promise.all(apis.map((api) => api.rssMb()));
  const streams = await openStreams(apis, key, provider.id, subscribers);
  const open = streams.filter((s) => s.connected).length;
  await pause(2_000);
  const rssAfter = await Promise.all(apis.map((api) => api.rssMb()));
  const sum = (values: (number | null)[]) => values.reduce<number>((a, b) => a + (b ?? 0), 0);
  const rssKiB = (sum(rssAfter) - sum(rssBefore)) * 1024;
  const cpuBefore = await Promise.all(apis.map((api) => api.cpuMs()));
  const sent = new Map<string, number>();
  for (let i = 0; i < seconds; i++) {
    const tick = performance.now();
    const statement = canonicalJson({
      ...signalTerms(),
      expiresAt: null,
      id: `b_${randomBytes(9).toString('base64url')}`,
      issuedAt: new Date().toISOString(),
      log: origin,
      provider: provider.id,
      salt: randomBytes(16).toString('base64url'),
      type: 'signal.open',
      v: 1,
    });
    const signature = await account.signMessage({ message: statement });
    const at = performance.now();
    const answer = await post(apis[i % apis.length]!.url, `/providers/${provider.id}/signals`, {
      statement,
      signer: account.address,
      signature,
    });
    sent.set(String(answer.receipt.logIndex), at);
    await pause(Math.max(0, 1_000 - (performance.now() - tick)));
  }
  const { latencies, missing, q } = await deliveries(streams, sent);
  const cpuAfter = await Promise.all(apis.map((api) => api.cpuMs()));
  const cpuMs = sum(cpuAfter) - sum(cpuBefore);
  for (const stream of streams) stream.socket.destroy();
  return {
    open,
    rssKiB: rssKiB / Math.max(1, open),
    cpuMs,
    delivered: latencies.length,
    missing,
    q,
    signals: sent.size,
  };
}

export async function liveRows(run: LiveRun): Promise<Map<string, Row>> {
  const rows = new Map<string, Row>();
  const subscribers = liveSubscribers(run.quick);
  const seconds = Number(process.env.BENCH_LIVE_SECONDS ?? (run.quick ? 3 : 20));
  for (const key of LIVE_KEYS) {
    if (!run.wanted(key)) continue;
    const scratch = await createScratchDatabase();
    const base = run.spec(scratch.url);
    const stream = `bench_live_${randomBytes(4).toString('hex')}`;
    const env: Record<string, string> = {
      ...base.env,
      ADMIN_KEY: ADMIN,
      STREAMS_PER_CREDENTIAL: '100000',
      STREAMS_PER_ADDRESS: '0',
      STREAMS_MAX: '0',
      MAX_CONNECTIONS_PER_ADDRESS: '0',
      SIGNAL_RATE_LIMIT_PER_MINUTE: '0',
      ...(key === 'live-two-nats'
        ? { EVENT_BUS_URL: NATS_URL, EVENT_BUS_STREAM: stream, EVENT_BUS_SUBJECT_PREFIX: stream }
        : {}),
    };
    const apis: ServerProcess[] = [];
    try {
      for (let i = 0; i < (key === 'live-one' ? 1 : 2); i++) {
        apis.push(await startServer({ ...base, name: `api (${key} ${i + 1})`, env }));
      }
      const m = await measure(apis, subscribers, seconds);
      const perSignalMs = m.cpuMs / Math.max(1, m.signals);
      const perDeliveryUs = (m.cpuMs * 1000) / Math.max(1, m.delivered);
      run.log(
        `${key}: ${m.open} streams on ${apis.length} process(es), ${m.signals} signals: publish → receipt p50 ${m.q(0.5).toFixed(1)} ms, p99 ${m.q(0.99).toFixed(1)} ms, max ${m.q(1).toFixed(1)} ms; ${m.missing} missing; API CPU ${perSignalMs.toFixed(1)} ms per signal (${perDeliveryUs.toFixed(1)} µs per delivery); RSS ${m.rssKiB.toFixed(1)} KiB per idle stream`,
      );
      rows.set(
        key,
        row(
          `signals.live: ${m.open.toLocaleString('en-US')} streams on ${apis.length} process${apis.length > 1 ? 'es' : ''}${key === 'live-two-nats' ? ' + NATS' : ''}, 1 signal/s (publish → every receipt ms)`,
          { rps: m.delivered / Math.max(1, m.signals), p50: m.q(0.5), p99: m.q(0.99) },
          null,
          `${m.signals} signals; deliveries per signal in the req/s column; ${m.missing} missing; API CPU ${perSignalMs.toFixed(1)} ms per signal, ${perDeliveryUs.toFixed(1)} µs per delivery; RSS +${m.rssKiB.toFixed(1)} KiB per idle stream`,
        ),
      );
      rssPerStream.set(key, m.rssKiB);
    } finally {
      for (const api of apis) await api.stop();
      await scratch.drop();
      if (key === 'live-two-nats') await deleteStream(stream);
    }
  }
  return rows;
}

const rssPerStream = new Map<string, number>();

/**
 * Deletes the row's JetStream stream, with the API's own NATS clients (resolved from
 * @signal/api's package, which depends on them; the bench does not).
 */
async function deleteStream(name: string): Promise<void> {
  const from = createRequire(fileURLToPath(import.meta.resolve('@signal/api')));
  const load = (id: string) => import(pathToFileURL(from.resolve(id)).href);
  const { connect: natsConnect } = await load('@nats-io/transport-node');
  const { jetstreamManager } = await load('@nats-io/jetstream');
  const nats = await natsConnect({ servers: NATS_URL, timeout: 5_000 }).catch(() => undefined);
  if (!nats) return;
  await (await jetstreamManager(nats)).streams.delete(name).catch(() => {});
  await nats.close();
}

/** The targets, judged on each live row run. */
export function judgeLive(rows: Map<string, Row>): Verdict[] {
  return LIVE_KEYS.flatMap((key) => {
    const measured = rows.get(key);
    if (!measured) return [];
    const p99 = measured.service.p99 ?? Number.POSITIVE_INFINITY;
    const rss = rssPerStream.get(key) ?? Number.POSITIVE_INFINITY;
    return [
      {
        target: `signals.live (${key}): publish → every receipt p99 ≤ ${LIVE_TARGET_P99_MS} ms`,
        measured: `p99 ${p99.toFixed(0)} ms`,
        met: p99 <= LIVE_TARGET_P99_MS,
      },
      ...(key === 'live-one'
        ? [
            {
              target: `signals.live: RSS per idle stream ≤ ${LIVE_TARGET_RSS_KIB} KiB`,
              measured: `${rss.toFixed(1)} KiB`,
              met: rss <= LIVE_TARGET_RSS_KIB,
            },
          ]
        : []),
    ];
  });
}
