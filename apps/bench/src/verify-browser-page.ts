/**
 * The page side of verify-browser-rows.ts: Chromium (/usr/bin/chromium through playwright-core)
 * loads a page at the API's origin whose module imports the SDK's browser build
 * (packages/sdk/dist/audit.js and its chunks, the files the demo app bundles; bs58 and base-x
 * through an import map, no bundler) and times `verifySignal` there. The timing loop
 * (BENCH_SOURCE) is plain JS text, so the Node baseline runs the same text.
 * VERIFY_BROWSER_PROFILE=<dir> writes a CPU profile of each page's calls (and of a cold call
 * alone) and prints where the time went.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { summariseProfile } from './profile.js';
import type { ServerProcess } from './servers.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
];

export const SDK_DIST = fileURLToPath(new URL('../../../packages/sdk/dist/', import.meta.url));
/** bs58 as the SDK resolves it, and its base-x beside it (pnpm's layout). */
const BS58_DIR = realpathSync(join(SDK_DIST, '..', 'node_modules', 'bs58'));
const BASE_X_DIR = realpathSync(join(BS58_DIR, '..', 'base-x'));
/** Where the page and its modules are served (by the browser's route, at the API's origin). */
const PREFIX = '/__verify-bench/';

export interface Timings {
  cold: number;
  warm: number[];
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
 * The page's module, also run in Node (the baseline): times verifySignal on `signal`, with the
 * log's files from `files` (verify only) or over HTTP (with its reads). Plain JS, so Node and
 * the browser run the same text.
 */
export const BENCH_SOURCE = `
const noStore = (input, init) => fetch(input, { ...init, cache: 'no-store' });
function memoryFetch(files) {
  return async (input) => {
    const path = new URL(String(input)).pathname;
    const body = files[path];
    if (body === undefined) return new Response('not recorded', { status: 404 });
    return new Response(body.slice(0), { status: 200 });
  };
}
function assertVerified(report) {
  if (!report.ok || report.statements.length !== 3 || report.statements.some((s) => s.verdict !== 'verified'))
    throw new Error('verifySignal did not verify the signal: ' + JSON.stringify(report.failures));
}
export async function measure(verifySignal, { url, logKey, signal, files, repetitions, mode }) {
  const fetchImpl = mode === 'verify' ? memoryFetch(files) : typeof window === 'undefined' ? fetch : noStore;
  const times = [];
  for (let i = 0; i <= repetitions; i++) {
    const started = performance.now();
    const report = await verifySignal(signal, { url, logKey, fetch: fetchImpl });
    times.push(performance.now() - started);
    assertVerified(report);
  }
  return { cold: times[0], warm: times.slice(1) };
}
`;

const PAGE_MODULE = `import { verifySignal } from '@signal/sdk/audit';
${BENCH_SOURCE}
window.verifyBench = async ({ providerId, repetitions, mode, files }) => {
  // As the demo reads them (record-verify.ts, provider-signals.tsx): the key, then the list.
  const logKey = (await (await noStore('/log/key')).text()).trim();
  const list = await (await noStore('/providers/' + providerId + '/signals?limit=20')).json();
  const bytes = Object.fromEntries(Object.entries(files).map(([path, b64]) => [path, Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))]));
  return measure(verifySignal, { url: location.origin, logKey, signal: list.items[0], files: bytes, repetitions, mode });
};
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
    // VERIFY_BROWSER_PROFILE=<dir>: a CPU profile of each page's calls (and of a cold call alone).
    for (const mode of profileDir ? (['cold', 'verify', 'reads'] as const) : (['verify', 'reads'] as const)) {
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
      const cdp = profileDir ? await page.context().newCDPSession(page) : undefined;
      if (cdp) {
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
        await cdp.send('Profiler.start');
      }
      const timings = (await page.evaluate(
        (input) => (globalThis as unknown as { verifyBench(i: unknown): Promise<Timings> }).verifyBench(input),
        {
          providerId,
          repetitions: mode === 'cold' ? 0 : repetitions,
          mode: mode === 'cold' ? 'verify' : mode,
          files: encoded,
        },
      )) as Timings;
      if (cdp && profileDir) {
        const { profile } = await cdp.send('Profiler.stop');
        const path = join(profileDir, `verify-browser-${mode}.cpuprofile`);
        await mkdir(profileDir, { recursive: true });
        await writeFile(path, JSON.stringify(profile));
        log(`${path} (${mode}: cold ${timings.cold.toFixed(1)} ms)\n${await summariseProfile(path, 0, 30)}`);
      }
      if (mode !== 'cold') result[mode] = timings;
      await page.close();
    }
    return result as Measured;
  } finally {
    await browser.close();
  }
}
