/**
 * `verifySignal` per signal in the browser (issue 40's bench): the built API on a scratch
 * database, one provider whose EVM publisher wallet (a real secp256k1 key, EIP-191) opens,
 * updates and closes one signal (three statements, each answered 201 with its receipt once in a
 * signed checkpoint); then Chromium (/usr/bin/chromium, playwright-core) loads a page at the
 * API's origin that imports the SDK's browser build (packages/sdk/dist/audit.js and its chunks,
 * the very files the demo app bundles, with bs58 through an import map: no bundler, no Node
 * build), reads the log key and the provider's signals as the demo does (record-verify.ts), and
 * times `verifySignal(signal, { url, logKey, fetch })` with performance.now:
 *
 * - `verify-browser`: verify only. The log's files (checkpoint, entry bundles, tiles), fetched
 *   beforehand by the bench, are served to verifySignal from the page's memory, so each call
 *   does every check (the checkpoint's signature, the tree recomputed and every tile compared,
 *   the provider's history replayed, each statement's commitment, signature and signer's right)
 *   and no HTTP.
 * - `verify-browser-reads`: the same with its reads: verifySignal reads the log over HTTP from
 *   the API on every call (`cache: 'no-store'`, as a first visit finds nothing cached).
 *
 * Each figure: the first, cold call of a freshly loaded page (module just evaluated, nothing
 * compiled, secp256k1's tables not built) apart, then REPETITIONS calls: p50 and p99. The
 * baseline column is the same built file (@noble crypto) in Node in the same
 * run, on the same bytes. verifySignal reads the log whole, so its cost grows with the log: the
 * row's log is the scratch one (the publisher entry and the three statements); the note says
 * its size. Target: ≤ 20 ms per signal.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readLog } from '@signal/core/audit';
import { canonicalJson } from '@signal/core/statements';
import { createScratchDatabase } from '@signal/test-support';
import { type Row, row, type Verdict } from './report.js';
import { type ServerProcess, startServer } from './servers.js';
import { ORIGIN, openBody, post, type SignalRun, signalSpec } from './signal-rows.js';
import { threadCpuUs } from './statement-rows.js';
import { BENCH_SOURCE, inChromium, type Measured, SDK_DIST, type Timings } from './verify-browser-page.js';
import { evmWallet } from './wallets.js';

export const VERIFY_BROWSER_KEYS = ['verify-browser', 'verify-browser-reads'] as const;
export const VERIFY_TARGET_MS = 20;

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

function figures(t: Timings) {
  const sorted = [...t.warm].sort((a, b) => a - b);
  const p50 = quantile(sorted, 0.5);
  return { rps: 1000 / p50, p50, p99: quantile(sorted, 0.99), cpuUs: t.warmCpu * 1000 };
}

/** One provider, its EVM publisher wallet, and one signal opened, updated and closed by it. */
async function publishSignal(api: ServerProcess): Promise<{ providerId: number; receipts: number }> {
  const { id: providerId } = (await post(api, '/providers', { name: 'Bench Verify' })) as { id: number };
  const wallet = evmWallet();
  await post(api, `/providers/${providerId}/publishers`, { wallet: wallet.address });
  const signer = { providerId, id: wallet.address, sign: (text: string) => wallet.sign(text) };
  // The open as the signal-open row builds it (a limit entry, a stop, two targets, a note).
  const open = openBody(signer);
  const body = JSON.parse(open.body) as { statement: string };
  const signal = (JSON.parse(body.statement) as { id: string }).id;
  let receipts = (await post(api, open.path, body, { 'content-type': 'application/json' })).receipt ? 1 : 0;
  for (const [i, fields] of [
    { type: 'signal.update', stop: '88000' },
    { type: 'signal.close', closePct: '100' },
  ].entries()) {
    const statement = canonicalJson({
      v: 1,
      log: ORIGIN,
      provider: providerId,
      issuedAt: new Date().toISOString(),
      id: `u${i}_${signal.slice(0, 40)}`,
      salt: Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64url'),
      signal,
      ...fields,
    });
    const answer = await post(
      api,
      `/providers/${providerId}/signals/${signal}/updates`,
      { statement, signer: wallet.address, signature: wallet.sign(statement) },
      { 'content-type': 'application/json' },
    );
    if (answer.receipt) receipts++;
  }
  return { providerId, receipts };
}

/** The log's files as verifySignal reads them, fetched once: path → bytes. */
async function recordLog(url: string, logKey: string): Promise<Record<string, Uint8Array>> {
  const files: Record<string, Uint8Array> = {};
  const view = await readLog({
    url,
    logKey,
    fetch: async (input, init) => {
      const answer = await fetch(input, init);
      const body = new Uint8Array(await answer.arrayBuffer());
      if (answer.ok) files[new URL(String(input)).pathname] = body;
      return new Response(body, { status: answer.status });
    },
  });
  if (view.failures.length > 0) throw new Error(`the log did not read: ${JSON.stringify(view.failures)}`);
  return files;
}

/** The baseline: the same SDK file and the same bench text in this Node process. */
async function inNode(
  api: ServerProcess,
  providerId: number,
  files: Record<string, Uint8Array>,
  repetitions: number,
): Promise<Measured> {
  const sdk = (await import(pathToFileURL(join(SDK_DIST, 'audit.js')).href)) as {
    verifySignal: (...args: unknown[]) => Promise<unknown>;
  };
  const bench = (await import(`data:text/javascript,${encodeURIComponent(BENCH_SOURCE)}`)) as {
    prepare(verifySignal: unknown, input: Record<string, unknown>): (count: number) => Promise<number[]>;
  };
  const logKey = (await (await fetch(`${api.url}/log/key`)).text()).trim();
  const list = (await (await fetch(`${api.url}/providers/${providerId}/signals?limit=20`)).json()) as {
    items: unknown[];
  };
  const timed = async (mode: 'verify' | 'reads'): Promise<Timings> => {
    const run = bench.prepare(sdk.verifySignal, { url: api.url, logKey, signal: list.items[0], files, mode });
    const started = threadCpuUs();
    const [cold] = await run(1);
    const between = threadCpuUs();
    const warm = await run(repetitions);
    const cpu = threadCpuUs() - between;
    return { cold: cold!, coldCpu: (between - started) / 1000, warm, warmCpu: cpu / 1000 / repetitions };
  };
  // Verify only first: its cold call is this process's first (the reads' follows it, warm).
  const verify = await timed('verify');
  return { verify, reads: await timed('reads') };
}

export interface VerifyBrowserRun extends SignalRun {
  /** Timed calls per figure after the cold one. */
  repetitions: number;
}

export async function verifyBrowserRows(run: VerifyBrowserRun): Promise<Map<string, Row>> {
  const rows = new Map<string, Row>();
  if (!VERIFY_BROWSER_KEYS.some(run.wanted)) return rows;
  const database = await createScratchDatabase();
  const api = await startServer({ ...signalSpec(run, database.url), name: 'api (verify)' });
  try {
    const { providerId, receipts } = await publishSignal(api);
    const logKey = (await (await fetch(`${api.url}/log/key`)).text()).trim();
    const files = await recordLog(api.url, logKey);
    const checkpoint = new TextDecoder().decode(files['/log/checkpoint']).split('\n');
    const size = Number(checkpoint[1]);
    const browser = await inChromium(api, providerId, files, run.repetitions, run.log);
    const node = await inNode(api, providerId, files, run.repetitions);
    const bytes = Object.values(files).reduce((sum, b) => sum + b.length, 0);
    const common = `one signal of 3 statements (open, update, close; EVM wallet, EIP-191; ${receipts} receipts), log of ${size} entries (${Object.keys(files).length} files, ${bytes.toLocaleString('en-US')} bytes); the SDK's browser build${process.env.VERIFY_BROWSER_SDK ? ` of ${SDK_DIST}` : ''} in Chromium (import map, no bundler) vs the same file in Node ${process.versions.node} (baseline column), @noble crypto in both; ${run.repetitions} calls after the cold one, req/s column: calls per second at p50`;
    for (const [key, mode, what] of [
      ['verify-browser', 'verify', 'verify only: the log files served from memory'],
      ['verify-browser-reads', 'reads', "with its reads: the log read over HTTP on every call (cache: 'no-store')"],
    ] as const) {
      const b = browser[mode];
      const n = node[mode];
      const r = row(
        `verifySignal per signal in Chromium, ${mode === 'verify' ? 'verify only' : 'with its reads'} (ms)`,
        figures(b),
        figures(n),
        `${what}; cold first call ${b.cold.toFixed(1)} ms, ${b.coldCpu.toFixed(1)} ms CPU (Node ${n.cold.toFixed(1)} ms, ${n.coldCpu.toFixed(1)} ms CPU${mode === 'reads' ? ', after the verify-only calls' : ''}); CPU column: the page's main thread (Performance ThreadTime) and Node's, per later call; ${common}`,
      );
      rows.set(key, r);
      run.log(
        `${key}: Chromium p50 ${r.service.p50?.toFixed(2)} ms, p99 ${r.service.p99?.toFixed(2)} ms, ${b.warmCpu.toFixed(2)} ms CPU/call, cold ${b.cold.toFixed(1)} ms (${b.coldCpu.toFixed(1)} ms CPU); Node p50 ${r.baseline?.p50?.toFixed(2)} ms, p99 ${r.baseline?.p99?.toFixed(2)} ms, ${n.warmCpu.toFixed(2)} ms CPU/call, cold ${n.cold.toFixed(1)} ms (${n.coldCpu.toFixed(1)} ms CPU) (log of ${size} entries)`,
      );
    }
  } finally {
    await api.stop();
    await database.drop();
  }
  return rows;
}

/** The target, for each row run: p99 ≤ 20 ms per signal (the cold call stated beside it). */
function verdict(key: (typeof VERIFY_BROWSER_KEYS)[number], r: Row): Verdict {
  const p99 = r.service.p99 ?? Number.POSITIVE_INFINITY;
  const cold = /cold first call ([\d.]+) ms, ([\d.]+) ms CPU/.exec(r.note ?? '');
  return {
    target: `verifySignal per signal in Chromium (3 statements), ${key === 'verify-browser' ? 'verify only' : 'with its reads'}: p99 ≤ ${VERIFY_TARGET_MS} ms`,
    measured: `p50 ${r.service.p50?.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, ${((r.service.cpuUs ?? Number.NaN) / 1000).toFixed(1)} ms CPU per call; cold first call ${cold?.[1]} ms (${cold?.[2]} ms CPU); Node p50 ${r.baseline?.p50?.toFixed(1)} ms`,
    met: p99 <= VERIFY_TARGET_MS,
  };
}

export const judgeVerifyBrowser = (rows: Map<string, Row>): Verdict[] =>
  VERIFY_BROWSER_KEYS.filter((key) => rows.has(key)).map((key) => verdict(key, rows.get(key) as Row));
