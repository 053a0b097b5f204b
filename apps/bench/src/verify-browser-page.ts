/**
 * The page side of verify-browser-rows.ts: Chromium (/usr/bin/chromium through playwright-core)
 * loads a page at the API's origin whose module imports the SDK's browser build
 * (packages/sdk/dist/audit.js and its chunks, the files the demo app bundles; bs58 and base-x
 * through an import map, no bundler) and times `verifySignal` there. The timing loop
 * (BENCH_SOURCE) is plain JS text, so the Node baseline runs the same text.
 * VERIFY_BROWSER_SDK=<another checkout's packages/sdk/dist> measures that build instead (a
 * before/after); VERIFY_BROWSER_PROFILE=<dir> writes a CPU profile of each page's calls (and of a cold call
 * alone) and prints where the time went.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { summariseProfile } from './profile.js';
import type { ServerProcess } from './servers.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = '--headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking'.split(' ');

/** This checkout's built SDK, or another's (VERIFY_BROWSER_SDK=<its packages/sdk/dist>, a before/after). */
export const SDK_DIST = process.env.VERIFY_BROWSER_SDK
  ? `${resolve(process.env.VERIFY_BROWSER_SDK)}/`
  : fileURLToPath(new URL('../../../packages/sdk/dist/', import.meta.url));
/** bs58 as the SDK resolves it, and its base-x beside it (pnpm's layout). */
const BS58_DIR = realpathSync(join(SDK_DIST, '..', 'node_modules', 'bs58'));
const BASE_X_DIR = realpathSync(join(BS58_DIR, '..', 'base-x'));
/** Where the page and its modules are served (by the browser's route, at the API's origin). */
const PREFIX = '/__verify-bench/';

export interface Timings {
  /** The first call's wall time and CPU time (the page's main thread, or Node's), ms. */
  cold: number;
  coldCpu: number;
  /** The later calls' wall times, and their mean CPU time per call, ms. */
  warm: number[];
  warmCpu: number;
}

/** What a run measures, in the page and in Node. */
export interface Measured {
  verify: Timings;
  reads: Timings;
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>verifySignal bench</title>
<script type="importmap">{"imports":{"@signal/sdk/audit":"${PREFIX}sdk/audit.js","bs58":"${PREFIX}bs58.js","base-x":"${PREFIX}base-x.js"}}</script>
<script type="module" src="${PREFIX}bench.js"></script>`;

/**
 * The timing loop, in the page and in Node (the baseline): `prepare` returns `run(count)`, which
 * times `count` calls of verifySignal on `signal`, the log's files from `files` (verify only) or
 * over HTTP (with its reads), each report checked. Plain JS, so Node and the browser run the same text.
 */
export const BENCH_SOURCE = `
const noStore = (input, init) => fetch(input, { ...init, cache: 'no-store' });
function memoryFetch(files) {
  return async (input) => {
    const body = files[new URL(String(input)).pathname];
    if (body === undefined) return new Response('not recorded', { status: 404 });
    return new Response(body.slice(0), { status: 200 });
  };
}
function assertVerified(report) {
  if (!report.ok || report.statements.length !== 3 || report.statements.some((s) => s.verdict !== 'verified'))
    throw new Error('verifySignal did not verify the signal: ' + JSON.stringify(report.failures));
}
export function prepare(verifySignal, { url, logKey, signal, files, mode }) {
  const fetchImpl = mode === 'verify' ? memoryFetch(files) : typeof window === 'undefined' ? fetch : noStore;
  return async (count) => {
    const times = [];
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      const report = await verifySignal(signal, { url, logKey, fetch: fetchImpl });
      times.push(performance.now() - started);
      assertVerified(report);
    }
    return times;
  };
}
`;

const PAGE_MODULE = `import { verifySignal } from '@signal/sdk/audit';
${BENCH_SOURCE}
let run;
window.verifyPrepare = async ({ providerId, mode, files }) => {
  // As the demo reads them (record-verify.ts, provider-signals.tsx): the key, then the list.
  const logKey = (await (await noStore('/log/key')).text()).trim();
  const list = await (await noStore('/providers/' + providerId + '/signals?limit=20')).json();
  const bytes = Object.fromEntries(Object.entries(files).map(([path, b64]) => [path, Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))]));
  run = prepare(verifySignal, { url: location.origin, logKey, signal: list.items[0], files: bytes, mode });
};
window.verifyRun = (count) => run(count);
window.verifyBenchReady = true;
`;

/** The page's run in Chromium: one fresh page load per mode, so each cold call is cold. */
export async function inChromium(
  api: ServerProcess,
  providerId: number,
  files: Record<string, Uint8Array>,
  repetitions: number,
  log: (line: string) => void,
): Promise<Measured> {
  // VERIFY_BROWSER_PROFILE=<dir>: a CPU profile of the cold call and of the later ones, per mode.
  const profileDir = process.env.VERIFY_BROWSER_PROFILE;
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const encoded = Object.fromEntries(
    Object.entries(files).map(([path, b]) => [path, Buffer.from(b).toString('base64')]),
  );
  const serve = (path: string): { body: string; contentType: string } | null => {
    if (path === `${PREFIX}index.html`) return { body: PAGE, contentType: 'text/html' };
    if (path === `${PREFIX}bench.js`) return { body: PAGE_MODULE, contentType: 'text/javascript' };
    const file = path.startsWith(`${PREFIX}sdk/`)
      ? join(SDK_DIST, path.slice(`${PREFIX}sdk/`.length))
      : path === `${PREFIX}bs58.js`
        ? join(BS58_DIR, 'src', 'esm', 'index.js')
        : path === `${PREFIX}base-x.js`
          ? join(BASE_X_DIR, 'src', 'esm', 'index.js')
          : null;
    if (!file || file.includes('..')) return null;
    return { body: readFileSync(file, 'utf8'), contentType: 'text/javascript' };
  };
  try {
    const result: Partial<Measured> = {};
    for (const mode of ['verify', 'reads'] as const) {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      // The page and its modules come from this process, at the API's origin (the demo is
      // same-origin too); the route is removed before the timed part, so the log's reads go
      // to the API untouched.
      await page.route(`${api.url}${PREFIX}**`, async (route) => {
        const served = serve(new URL(route.request().url()).pathname);
        await (served
          ? route.fulfill({ status: 200, contentType: served.contentType, body: served.body })
          : route.fulfill({ status: 404, body: 'not found' }));
      });
      await page.goto(`${api.url}${PREFIX}index.html`);
      await page.waitForFunction(() => (globalThis as { verifyBenchReady?: boolean }).verifyBenchReady === true, null, {
        timeout: 30_000,
      });
      await page.unrouteAll();
      if (problems.length > 0) throw new Error(`the bench page failed: ${problems.join('; ')}`);
      const cdp = await page.context().newCDPSession(page);
      // ThreadTime: the CPU time of the page's main thread, where verifySignal runs.
      await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
      const cpuMs = async () =>
        1000 * ((await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'ThreadTime')?.value ?? NaN);
      type BenchWindow = { verifyPrepare(i: unknown): Promise<void>; verifyRun(n: number): Promise<number[]> };
      await page.evaluate((input) => (globalThis as unknown as BenchWindow).verifyPrepare(input), {
        providerId,
        mode,
        files: encoded,
      });
      const timed = async (count: number, name: string) => {
        if (profileDir) {
          await cdp.send('Profiler.enable');
          await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
          await cdp.send('Profiler.start');
        }
        const before = await cpuMs();
        const times = await page.evaluate((n) => (globalThis as unknown as BenchWindow).verifyRun(n), count);
        const cpu = (await cpuMs()) - before;
        if (profileDir) {
          const { profile } = await cdp.send('Profiler.stop');
          const path = join(profileDir, `verify-browser-${mode}-${name}.cpuprofile`);
          await mkdir(profileDir, { recursive: true });
          await writeFile(path, JSON.stringify(profile));
          log(`${path}\n${await summariseProfile(path, count, 30)}`);
        }
        return { times, cpu };
      };
      const cold = await timed(1, 'cold');
      const warm = await timed(repetitions, 'warm');
      result[mode] = { cold: cold.times[0]!, coldCpu: cold.cpu, warm: warm.times, warmCpu: warm.cpu / repetitions };
      await page.close();
    }
    return result as Measured;
  } finally {
    await browser.close();
  }
}
