/**
 * `pnpm bench -- --instructions`: machine instructions per request, counted by valgrind's
 * callgrind in the API and in the baseline, for list page 1, detail, `GET /me`, sign-in (POST /auth/verify) and follow +
 * unfollow (each write announced by an event since issue 27: the row that compares a build
 * before it, `--api`).
 *
 * Why beside the CPU rows: on a shared 2-core VM the same code's CPU time per request moves
 * 10–40 % between runs (steal, cache and frequency effects), more than most changes worth
 * measuring. An instruction count does not depend on what else the machine is doing: the
 * windows of one server start agree to about 1 %. Between starts V8 did not always settle on
 * the same compiled code (one start in three read 20 % more on a small request, BENCH.md):
 * each side runs with STEADY_V8_FLAGS, and for `plan.starts` fresh starts, one after the
 * other; a row's figure is the median of its starts (each the median of its windows), so two
 * builds (`--api` points at another checkout's dist/main.js) are compared over several starts. What it leaves out: kernel time (both sides make the same syscalls) and the
 * cost of cache misses. It is a complement to the CPU rows, not a replacement: the targets
 * stay on CPU time.
 *
 * How: each server runs under callgrind (about 50× slower); a client in this process sends the
 * requests with a few connections; after a warm-up the counters are zeroed, then dumped after
 * each window of requests (`callgrind_control`, see `count`). A window is long enough to hold
 * several major garbage collections, so each figure includes its share of them. The dumps stay
 * in `dir` for `callgrind_annotate` (native functions by name; V8's compiled JavaScript shows as
 * addresses).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { median } from './load.js';
import { BENCH_ADMIN_KEY, createServiceKey } from './operator-rows.js';
import { PAGE_1 } from './scenarios.js';
import { LISTEN_HOST, type ServerProcess, type ServerSpec, startServer } from './servers.js';
import { signIn } from './sign-in.js';
import { evmWallet } from './wallets.js';

const run = promisify(execFile);

/**
 * V8 flags both counted servers run with (none by default; `--v8=` to try others). Why two
 * starts of one build used to count differently (/me 409k–515k, follow 323k–445k on the
 * baseline over four starts, while the windows of one start agreed to 1 %): V8 was still tiering
 * up. With --trace-opt, /me natively has ≈190 functions optimized by its 1,000th request,
 * ≈54 more in the next 1,000, ≈22, 9, 1 and 3 in the 1,000s after: a warm-up of 1,000–3,000
 * requests ended mid-way, and under valgrind (one thread at a time) when a background TurboFan
 * job lands, and so which functions run optimized in the windows, depends on thread switching.
 * So each row now warms up for 5,000 requests with callgrind's instrumentation off (cheap), and
 * a row's figure is the median of `plan.starts` starts. Tried and rejected:
 * `--single-threaded --predictable-gc-schedule` moves that compiling onto the main thread: 60 %
 * of its count in the windows after 500 requests of warm-up was TurboFan (/me 1.3M instead of
 * ≈0.45M). GC was 1–6 % of the main thread's count, not the cause. Figures in BENCH.md,
 * "Instructions per request".
 */
export const STEADY_V8_FLAGS: string[] = [];

export interface InstructionPlan {
  /** Requests before the counters are zeroed (JIT tiers up, caches fill). */
  warmup: number;
  /** Requests per counted window. */
  window: number;
  windows: number;
  /** Requests in flight at once. */
  concurrency: number;
  /** Fresh server processes per side, one after the other (see STEADY_V8_FLAGS). */
  starts: number;
}

export const INSTRUCTION_KEYS = ['list', 'detail', 'me', 'follow', 'verify'] as const;
/**
 * Issue 25's scoped read, only with `--only` (a build before it has no such route): a followers
 * page of 100 with a `followers:read` key, and the same read with ADMIN_KEY (no key lookup);
 * the service alone, the baseline has no followers route.
 */
export const KEY_INSTRUCTION_KEYS = ['followers-key', 'followers-admin'] as const;
type Key = (typeof INSTRUCTION_KEYS)[number] | (typeof KEY_INSTRUCTION_KEYS)[number];
const SERVICE_ONLY: readonly Key[] = KEY_INSTRUCTION_KEYS;
const NAMES: Record<Key, string> = {
  'followers-key': 'followers page of 100, followers:read key',
  'followers-admin': 'followers page of 100, ADMIN_KEY',
  list: 'list page 1',
  detail: 'detail',
  me: 'GET /me',
  follow: 'follow + unfollow (per request)',
  verify: 'POST /auth/verify (EVM)',
};

/** Instructions per request in each window: the main thread's, and all threads' together. */
export interface Counts {
  main: number[];
  all: number[];
}

export interface InstructionRow {
  key: Key;
  name: string;
  /** One entry per start of the server. */
  service: Counts[];
  baseline: Counts[];
}

interface Counted {
  server: ServerProcess;
  /** Switches callgrind's instrumentation on (the windows) or off (the warm-ups). */
  instrument(on: boolean): Promise<void>;
  zero(): Promise<void>;
  /** Dumps the counters: the instructions since the last zero or dump, main thread and all. */
  dump(): Promise<{ main: number; all: number }>;
}

async function startCounted(spec: ServerSpec, dir: string, tag: string): Promise<Counted> {
  const out = join(dir, `callgrind.${tag}`);
  // The control pipes of each server, apart from any other valgrind run on the machine.
  const prefix = join(dir, `vgdb.${tag}`);
  const server = await startServer({
    ...spec,
    launcher: [
      'valgrind',
      '--tool=callgrind',
      '--quiet',
      // One file per thread: the main thread runs the requests; V8's workers compile and
      // mark in bursts that a window may or may not catch, so they are counted apart.
      '--separate-threads=yes',
      // V8 writes machine code into memory it then runs: valgrind must notice.
      '--smc-check=all-non-file',
      // Start-up and each row's warm-up run without instrumentation (about 10× faster than
      // counted code under callgrind), so a warm-up can be long enough for V8 to finish tiering
      // up (see STEADY_V8_FLAGS); `count` switches it on before it zeroes the counters.
      '--instr-atstart=no',
      `--callgrind-out-file=${out}`,
      `--vgdb-prefix=${prefix}`,
    ],
    // Minutes on a busy machine: V8 starting under callgrind is ~50× slower, and shares the cores.
    readyTimeoutMs: 900_000,
  });
  let dumps = 0;
  const control = async (flag: string) => {
    // Valgrind also puts $USER and $HOST into the pipes' names; the server's HOST is its
    // listen address (startServer), so callgrind_control must see the same one.
    const { stdout } = await run('callgrind_control', [`--vgdb-prefix=${prefix}`, flag, String(server.pid)], {
      env: { ...process.env, HOST: LISTEN_HOST },
    });
    // It exits 0 even when it reached no process: only its "OK." says the command ran.
    if (!stdout.includes('OK.')) throw new Error(`callgrind_control ${flag} ${server.pid}: ${stdout}`);
  };
  return {
    server,
    instrument: async (on: boolean) => {
      await control(`--instr=${on ? 'on' : 'off'}`);
    },
    zero: async () => {
      await control('--zero');
    },
    async dump() {
      await control('--dump');
      dumps += 1;
      // callgrind writes `<out>.<dump>-<thread>` for each thread that ran since the last one.
      const mainFile = `${out}.${dumps}-01`;
      for (let i = 0; i < 100 && !existsSync(mainFile); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      if (!existsSync(mainFile)) throw new Error(`callgrind wrote no ${mainFile}`);
      const thisDump = `callgrind.${tag}.${dumps}-`;
      const files = (await readdir(dir)).filter((f) => f.startsWith(thisDump));
      let main = 0;
      let all = 0;
      for (const file of files) {
        const summary = /^summary: (\d+)$/m.exec(await readFile(join(dir, file), 'utf8'));
        if (!summary) throw new Error(`${file} has no summary line`);
        all += Number(summary[1]);
        if (join(dir, file) === mainFile) main = Number(summary[1]);
      }
      return { main, all };
    },
  };
}

type Request = { method?: 'POST' | 'DELETE'; path: string; headers: Record<string, string>; body?: string };
/** The `i`-th request of the stream, sent by connection `worker` as its `own`-th. */
type RequestAt = (i: number, worker: number, own: number) => Request;

/** How many answers have come back so far: read by the marks while requests are in flight. */
interface Progress {
  answered: number;
}

/**
 * Sends `count` requests, `concurrency` at a time. When the answers received reach a mark, its
 * `run` starts while the other requests go on (see `count`).
 */
async function send(
  url: string,
  count: number,
  concurrency: number,
  request: RequestAt,
  progress: Progress,
  marks: { at: number; run: () => Promise<void> }[],
) {
  let next = 0;
  const started: Promise<void>[] = [];
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      let own = 0;
      while (next < count) {
        const { method = 'GET', path, headers, body: sent } = request(next++, worker, own++);
        // One retry when the connection was reset before an answer (a keep-alive socket the
        // server closed as it was reused): every request here is idempotent.
        const res = await fetch(`${url}${path}`, { method, headers, body: sent }).catch((error: Error) => {
          if ((error.cause as { code?: string } | undefined)?.code !== 'ECONNRESET') throw error;
          return fetch(`${url}${path}`, { method, headers, body: sent });
        });
        const body = await res.arrayBuffer();
        if (res.status !== 200)
          throw new Error(`${method} ${path} answered ${res.status}: ${Buffer.from(body).toString('utf8')}`);
        progress.answered += 1;
        for (const mark of marks) if (mark.at === progress.answered) started.push(mark.run());
      }
    }),
  );
  await Promise.all(started);
}

/**
 * The requests of each row for one server: the same paths on both sides, its own sign-in, and
 * its own verify bodies (a nonce is used up where it is verified).
 */
async function requestsFor(
  server: ServerProcess,
  ids: number[],
  concurrency: number,
  verifyBodies: string[],
  followersOf: number | undefined,
): Promise<Record<Key, RequestAt>> {
  const { token } = await signIn(server.url, evmWallet());
  const authorization = `Bearer ${token}`;
  const followers = `/providers/${followersOf}/followers?limit=100`;
  const scoped = followersOf === undefined ? '' : `Bearer ${await createServiceKey(server, ['followers:read'])}`;
  return {
    'followers-key': () => ({ path: followers, headers: { authorization: scoped } }),
    'followers-admin': () => ({ path: followers, headers: { authorization: `Bearer ${BENCH_ADMIN_KEY}` } }),
    list: () => ({ path: PAGE_1, headers: {} }),
    detail: (i) => ({ path: `/providers/${ids[i % ids.length]}`, headers: {} }),
    me: () => ({ path: '/me', headers: { authorization } }),
    // Each connection follows then unfollows providers of its own (ids are split by connection),
    // so every write changes a row and is announced: never a no-op, never a lock wait.
    follow: (_, worker, own) => ({
      method: own % 2 === 0 ? 'POST' : 'DELETE',
      path: `/providers/${ids[(worker + concurrency * Math.floor(own / 2)) % ids.length]}/follow`,
      headers: { authorization },
    }),
    verify: (i) => ({
      method: 'POST',
      path: '/auth/verify',
      headers: { 'content-type': 'application/json' },
      body: verifyBodies[i] as string,
    }),
  };
}

/** Requests one row sends to one server: warm-up, windows and the tail (see `count`). */
export const requestsPerRow = (plan: InstructionPlan) =>
  plan.warmup + plan.windows * plan.window + 20 * plan.concurrency;

/**
 * One stream of requests: warm-up, the windows, a tail. The counters are zeroed and dumped at
 * the window marks while requests are in flight: callgrind_control reaches a process idle in a
 * system call through ptrace, which now and then killed the server here (SIGTERM), while a busy
 * process picks the command up itself. A window divides by the answers received between its
 * two commands' replies (a few requests straddle each boundary, well under 1 % of a window).
 */
async function count(counted: Counted, request: RequestAt, plan: InstructionPlan): Promise<Counts> {
  const counts: Counts = { main: [], all: [] };
  const progress: Progress = { answered: 0 };
  let windowStart = 0;
  const marks = Array.from({ length: plan.windows + 1 }, (_, w) => ({
    at: plan.warmup + w * plan.window,
    async run() {
      if (w === 0) {
        await counted.instrument(true);
        await counted.zero();
      } else {
        const { main, all } = await counted.dump();
        const requests = progress.answered - windowStart;
        counts.main.push(main / requests);
        counts.all.push(all / requests);
        if (w === plan.windows) await counted.instrument(false);
      }
      windowStart = progress.answered;
    },
  }));
  // A tail keeps the server busy while the last dump is taken.
  const total = requestsPerRow(plan);
  await send(counted.server.url, total, plan.concurrency, request, progress, marks);
  return counts;
}

/** Requests 1, 2, … `concurrency` at a time, so a pool grows by at most one connection per step. */
async function rampUp(url: string, request: RequestAt, concurrency: number): Promise<void> {
  for (let inFlight = 1; inFlight <= concurrency; inFlight++) {
    await Promise.all(
      Array.from({ length: inFlight }, async (_, worker) => {
        const { method = 'GET', path, headers, body } = request(worker, worker, 0);
        // A write here would leave state behind (a follow): the ramp sends reads only.
        if (method !== 'GET') return;
        await (await fetch(`${url}${path}`, { headers, body })).arrayBuffer();
      }),
    );
  }
}

export async function assertValgrind(): Promise<void> {
  try {
    await run('valgrind', ['--version']);
  } catch {
    throw new Error('--instructions needs valgrind (Debian: apt-get install valgrind)');
  }
}

/**
 * Counts both servers' instructions per request, row by row; the two run side by side (one
 * core each), which does not change a count.
 */
export async function countInstructions(options: {
  service: ServerSpec;
  /**
   * Undefined: the service alone (`--no-baseline`), for a build whose migrations predate what
   * the baseline's statements need (an `--api` build before user_wallets).
   */
  baseline: ServerSpec | undefined;
  ids: number[];
  keys: readonly Key[];
  /** The provider whose followers the KEY_INSTRUCTION_KEYS rows read (wanted only with them). */
  followersOf?: number;
  /** Fresh POST /auth/verify bodies (`requestsPerRow` of them), a set for each server. */
  verifyBodies: () => string[];
  plan: InstructionPlan;
  /** Where the dumps go; emptied first. */
  dir: string;
  log: (line: string) => void;
}): Promise<InstructionRow[]> {
  const { dir } = options;
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const rows: InstructionRow[] = options.keys.map((key) => ({ key, name: NAMES[key], service: [], baseline: [] }));
  for (let start = 1; start <= options.plan.starts; start++) {
    const servers: Counted[] = [];
    try {
      options.log(`start ${start} of ${options.plan.starts}: the servers under callgrind (about a minute)`);
      const [service, baseline] = await Promise.all([
        startCounted(options.service, dir, `service-${start}`),
        options.baseline && startCounted(options.baseline, dir, `baseline-${start}`),
      ]);
      servers.push(service, ...(baseline ? [baseline] : []));
      const verifying = options.keys.includes('verify');
      const [serviceRequests, baselineRequests] = await Promise.all([
        requestsFor(
          service.server,
          options.ids,
          options.plan.concurrency,
          verifying ? options.verifyBodies() : [],
          options.followersOf,
        ),
        baseline &&
          requestsFor(
            baseline.server,
            options.ids,
            options.plan.concurrency,
            verifying ? options.verifyBodies() : [],
            undefined,
          ),
      ]);
      for (const row of rows) {
        // The pool's connections opened one at a time before the row's stream: ten opened at once
        // by a server running ~50× slower on a loaded machine outlast the pool's 5 s connect
        // timeout, and the row fails with 503s.
        await Promise.all([
          rampUp(service.server.url, serviceRequests[row.key], options.plan.concurrency),
          baseline &&
            baselineRequests &&
            !SERVICE_ONLY.includes(row.key) &&
            rampUp(baseline.server.url, baselineRequests[row.key], options.plan.concurrency),
        ]);
        const started = performance.now();
        const [s, b] = await Promise.all([
          count(service, serviceRequests[row.key], options.plan),
          baseline && baselineRequests && !SERVICE_ONLY.includes(row.key)
            ? count(baseline, baselineRequests[row.key], options.plan)
            : undefined,
        ]);
        row.service.push(s);
        if (b) row.baseline.push(b);
        options.log(
          `start ${start}, ${row.name}: main thread ${spread(s.main)} / ${b ? spread(b.main) : '–'}, all threads ${spread(s.all)} / ${b ? spread(b.all) : '–'} (${((performance.now() - started) / 1000).toFixed(0)} s)`,
        );
      }
    } finally {
      await Promise.all(servers.map((s) => s.server.stop()));
    }
  }
  return rows;
}

const thousands = (n: number) => `${Math.round(n / 1000).toLocaleString('en-US')}k`;
const spread = (values: number[]) =>
  values.length === 0
    ? '–'
    : `${thousands(median(values))} (${thousands(Math.min(...values))}–${thousands(Math.max(...values))})`;

/** A start's figure is the median of its windows; a row's, the median of its starts. */
const perStart = (counts: Counts[], of: keyof Counts) => counts.map((c) => median(c[of]));
const ratio = (row: InstructionRow, of: keyof Counts) =>
  row.baseline.length === 0
    ? '–'
    : `${(median(perStart(row.service, of)) / median(perStart(row.baseline, of))).toFixed(2)}×`;
const starts = (counts: Counts[], of: keyof Counts) =>
  counts.length === 0 ? '–' : `${spread(perStart(counts, of))} [${perStart(counts, of).map(thousands).join(', ')}]`;

/**
 * The table printed at the end: for each side the median of the starts' figures (each the
 * median of that start's windows), their range, and each start's figure; the ratio of medians.
 */
export function instructionTable(rows: InstructionRow[], plan: InstructionPlan, v8Flags: string[]): string {
  const lines = [
    `Instructions per request, service / baseline (callgrind; node ${v8Flags.join(' ') || '(no V8 flags)'}; ${plan.starts} start(s) of each server, each with ${plan.warmup} requests of warm-up, then ${plan.windows} windows of ${plan.window}, ${plan.concurrency} in flight; median of the starts (range) [each start's median of its windows]). The main thread runs the requests; all threads adds V8's background compiling and marking where those are on:`,
    '',
    '| row | main thread, service | baseline | ratio | all threads, service | baseline | ratio |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${starts(r.service, 'main')} | ${starts(r.baseline, 'main')} | ${ratio(r, 'main')} | ${starts(r.service, 'all')} | ${starts(r.baseline, 'all')} | ${ratio(r, 'all')} |`,
    ),
  ];
  return lines.join('\n');
}
