/**
 * `pnpm bench`: the service beside a bare Fastify + pg baseline, measured in one run on the
 * same machine (see BENCH.md). Options:
 *   --quick              10k catalogue only, about a second per run (CI runs this)
 *   --out <file.json>    also write the results as JSON
 *   --only <keys>        run only these rows (comma-separated; every key, by file: row-keys.ts)
 *   --profile            run both servers under `node --cpu-prof`; print where their time went
 *   --instructions       instead of the load rows: instructions per request under valgrind's
 *                        callgrind, API and baseline, for list, detail, me and follow (instructions.ts)
 *   --api <main.js>      the API build to measure (default: this checkout's), e.g. an older
 *                        checkout's apps/api/dist/main.js for a before/after
 *   --connections N, --seconds S, --warmup S, --rounds N   override the run plan
 *   --signal-rate N      the statements/s `signal-open` offers (1,000, the issue's rate)
 *   --feed-entries N     the log entries of the `/me/signals` database (1,000,000; 20,000 quick)
 *   --window N           with --instructions: requests per counted window (1000)
 *   --starts N           with --instructions: fresh starts of each server, one after the other (3)
 *   --warm N             with --instructions: requests of warm-up per row, uninstrumented (5000)
 *   --v8="<flags>"       with --instructions: V8 flags instead of STEADY_V8_FLAGS ('' for none)
 *   --answer-cache MB    with --instructions: the service's ANSWER_CACHE_MB (default 0, off)
 *   --perf-map           with --instructions: V8 writes /tmp/perf-<pid>.map for callgrind-js.ts
 *   --no-baseline        with --instructions: count the service alone (an --api build whose
 *                        migrations predate the baseline's statements)
 *   --against <main.js>  with --instructions: the baseline column is another build of the API
 *   --against <what>     with --instructions: the baseline column is the service itself, and the
 *                        service column the same build with `metrics` (METRICS=true) or through a
 *                        transaction-mode PgBouncer (`pooler`): the cost of the option, counted
 * BENCH_DATABASE_URL: a database on the server where the bench may create its own databases.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { cpus, loadavg, release, tmpdir, totalmem, type } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { buildAuthMessage } from '@signal/core';
import { createNonceCodec, type NonceCodec, nonceSecretFromSigningKey } from '@signal/core/nonce';
import { verifyEvmSignature, verifySolanaSignature } from '@signal/core/verify';
import { createDatabase } from '@signal/db';
import { startPgBouncer } from '@signal/test-support';
import { ANCHOR_SCRIPTS, pgbench } from './anchors.js';
import { AUDIT_KEYS, auditRows, judgeAudit } from './audit-rows.js';
import { CACHED_KEYS, cachedScenarios, hitRate, judgeCached } from './cached-rows.js';
import {
  type Catalogue,
  type CatalogueCopy,
  copyCatalogue,
  type DbPackage,
  holdCatalogue,
  prepareCatalogue,
  randomProviderIds,
  serverVersion,
  settle,
} from './databases.js';
import { databaseCpu } from './db-cpu.js';
import { DEPLOYMENT_KEYS, deploymentRows, judgeDeployment } from './deployment.js';
import { FEED_KEY, feedRow, judgeFeed } from './feed.js';
import {
  assertValgrind,
  countInstructions,
  INSTRUCTION_KEYS,
  instructionTable,
  KEY_INSTRUCTION_KEYS,
  requestsPerRow,
  STEADY_V8_FLAGS,
} from './instructions.js';
import { judgeLivePublish, LIVE_PUBLISH_KEYS, livePublishRows } from './live-publish-rows.js';
import { judgeLive, LIVE_KEYS, liveRows, liveSubscribers } from './live-rows.js';
import { compare, compareOps, type LoadPlan, type LoadTarget, type Sample } from './load.js';
import { judgeLogReads, LOG_READ_KEYS, logReadRows } from './log-read-rows.js';
import { judgeLog, LOG_KEYS, logRows } from './log-rows.js';
import { judgeMeSignals, ME_SIGNAL_KEYS, meSignalRows } from './me-signal-rows.js';
import { judgeMetricsCost, METRICS_KEY } from './metrics-cost.js';
import { judgeMixSignals, MIX_SIGNAL_KEYS, mixSignalRows } from './mix-signal-rows.js';
import {
  BENCH_ADMIN_KEY,
  ensureFanOutProvider,
  judgeOperator,
  OPERATOR_ROW_KEYS,
  type OperatorContext,
  operatorScenarios,
} from './operator-rows.js';
import { checkParity } from './parity.js';
import { summariseProfile } from './profile.js';
import {
  progressLine,
  type Report,
  type Row,
  row,
  textTable,
  updateBenchMarkdown,
  verdictLines,
  writeJson,
} from './report.js';
import { type Bench, deepPath, PAGE_1, SCENARIO_KEYS, scenarios } from './scenarios.js';
import { API_MAIN, BARE_HTTP_MAIN, BASELINE_MAIN, type ServerProcess, startServer } from './servers.js';
import { signIn, verifyBodies } from './sign-in.js';
import { judgeSignals, OPEN_RATE, SIGNAL_KEYS, signalRows } from './signal-rows.js';
import { judgeStatements, STATEMENT_KEYS, statementRows } from './statement-rows.js';
import { judge } from './targets.js';
import { judgeVerifyBrowser, VERIFY_BROWSER_KEYS, verifyBrowserRows } from './verify-browser-rows.js';
import { type BenchWallet, bareVerifyEvm, bareVerifySolana, evmWallet, solanaWallet } from './wallets.js';
import { judgeWebhooks, WEBHOOK_KEYS, webhookRows } from './webhooks.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const BENCH_MD = join(HERE, '..', 'BENCH.md');
const PROFILE_DIR = join(HERE, '..', 'artifacts', 'profiles');

const { values: args } = parseArgs({
  // pnpm passes a literal `--` through (`pnpm bench -- --quick`).
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    quick: { type: 'boolean', default: false },
    out: { type: 'string' },
    only: { type: 'string' },
    profile: { type: 'boolean', default: false },
    instructions: { type: 'boolean', default: false },
    api: { type: 'string' },
    connections: { type: 'string' },
    seconds: { type: 'string' },
    warmup: { type: 'string' },
    rounds: { type: 'string' },
    window: { type: 'string' },
    'perf-map': { type: 'boolean', default: false },
    starts: { type: 'string' },
    warm: { type: 'string' },
    'answer-cache': { type: 'string' },
    v8: { type: 'string' },
    'no-baseline': { type: 'boolean', default: false },
    against: { type: 'string' },
    'signal-rate': { type: 'string' },
    'feed-entries': { type: 'string' },
  },
});

const quick = args.quick === true;
const profileArgs = (side: string) => (args.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(PROFILE_DIR, side)}`] : []);
const only = args.only ? new Set(args.only.split(',').map((key) => key.trim())) : null;
const wanted = (key: string) => only === null || only.has(key);
const numberArg = (value: string | undefined, fallback: number) => (value === undefined ? fallback : Number(value));
const connections = numberArg(args.connections, 50);
const plan = {
  warmupSeconds: numberArg(args.warmup, quick ? 0.5 : 2),
  seconds: numberArg(args.seconds, quick ? 1 : 4),
  rounds: numberArg(args.rounds, quick ? 2 : 5),
};
const rawSeconds = quick ? 0.3 : 1.5;
/** The catalogue under load, and (full run) the small one page 1 is compared with. */
const sizes = quick || args.instructions ? [10_000] : [1_000_000, 10_000];
const apiMain = args.api ? resolve(process.env.INIT_CWD ?? process.cwd(), args.api) : API_MAIN;
const sizeLabel = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1_000}k`);

const log = (line: string) => process.stderr.write(`${line}\n`);

/** Raw verification: core's functions against the bare native calls, one core, no I/O. */
function rawCeiling(evm: BenchWallet[], solana: BenchWallet[], nonces: NonceCodec): Map<string, Row> {
  const rows = new Map<string, Row>();
  for (const [key, name, wallets, core, bare] of [
    ['raw-evm', 'verify EVM, raw (ops/s)', evm, verifyEvmSignature, bareVerifyEvm],
    ['raw-solana', 'verify Solana, raw (ops/s)', solana, verifySolanaSignature, bareVerifySolana],
  ] as const) {
    const inputs = Array.from({ length: 1_000 }, (_, i) => {
      const wallet = wallets[i % wallets.length] as BenchWallet;
      const message = buildAuthMessage(nonces.issue({ wallet: wallet.address, expiresAt: Date.now() + 300_000 }));
      return [wallet.address, message, wallet.sign(message)] as const;
    });
    const [coreOps, bareOps] = compareOps(
      inputs,
      (input) => core(...input),
      (input) => bare(...input),
      rawSeconds,
      plan.rounds,
    );
    const note =
      key === 'raw-evm' ? 'baseline: secp256k1.ecdsaRecover + keccak' : 'baseline: crypto.verify, cached key';
    rows.set(key, row(name, { rps: coreOps, p50: null, p99: null }, { rps: bareOps, p50: null, p99: null }, note));
    log(`${name}: core ${Math.round(coreOps)}/s, bare ${Math.round(bareOps)}/s`);
  }
  return rows;
}

async function newestProfile(side: string): Promise<string | null> {
  const dir = join(PROFILE_DIR, side);
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.cpuprofile'));
  let newest: { path: string; at: number } | null = null;
  for (const file of files) {
    const path = join(dir, file);
    const at = (await stat(path)).mtimeMs;
    if (!newest || at > newest.at) newest = { path, at };
  }
  return newest?.path ?? null;
}

interface CatalogueRun {
  rows: Map<string, Row>;
  operator: OperatorContext;
  readyMs: number[];
  peakRssMb: number | null;
  /** The answer-cache server's peak resident memory under the mix. */
  mixRssMb: number | null;
}

/** The API as production runs it, on `catalogue`. */
function apiSpec(catalogue: Catalogue, privateKeyPem: string, nodeArgs: string[] = []) {
  return {
    name: `api ${sizeLabel(catalogue.providers)}`,
    script: apiMain,
    env: {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      DATABASE_URL: catalogue.url,
      DATA_DIR: join(HERE, '..', 'artifacts', 'data'),
      SEED_PROVIDERS: '0',
      AUTH_RATE_LIMIT_PER_MINUTE: '0',
      FOLLOW_RATE_LIMIT_PER_MINUTE: '0',
      READ_RATE_LIMIT_PER_MINUTE: '0',
      NEW_USER_RATE_LIMIT_PER_HOUR: '0',
      JWT_PRIVATE_KEY: privateKeyPem,
      // The rows measure answers built from the database; the answer cache has rows of its own
      // on a server of its own (cached-rows.ts).
      ANSWER_CACHE_MB: '0',
      // The operator's rows (operator-rows.ts) make their scoped keys with it; no per-key limit
      // bounds a load run (the limit's counting still runs on every scoped request).
      ADMIN_KEY: BENCH_ADMIN_KEY,
      SERVICE_KEY_RATE_LIMIT_PER_MINUTE: '100000000',
    },
    nodeArgs,
  };
}

async function runCatalogue(
  catalogue: Catalogue,
  small: Catalogue | undefined,
  privateKeyPem: string,
  wallets: { evm: BenchWallet[]; solana: BenchWallet[] },
  starts: number,
): Promise<CatalogueRun> {
  const size = sizeLabel(catalogue.providers);
  // Start to ready, measured on a migrated, seeded database as a restart in production is.
  const readyMs: number[] = [];
  let api: ServerProcess | undefined;
  for (let i = 0; i < starts; i++) {
    await api?.stop();
    api = await startServer(apiSpec(catalogue, privateKeyPem, profileArgs('api')));
    readyMs.push(api.readyMs);
  }
  const running = api as ServerProcess;
  // Page 1 of the small catalogue, served at the same time, so both sizes meet the same noise.
  const smallApi = small && wanted('scale') ? await startServer(apiSpec(small, privateKeyPem)) : undefined;
  // The cost of metrics (see metrics-cost.ts): the same service started twice side by side, with
  // METRICS=true and without, neither serving anything before the row. Not `running` as the
  // side without: a server that has served other requests (sign-ins, the parity check, earlier
  // rows) has grown its heap already, and the fresh one then pays that growth (promotions,
  // major GCs, up to +30 % CPU per request) in the measured rounds (LAB-NOTES.md, "Metrics cost").
  const metricsSpec = apiSpec(catalogue, privateKeyPem);
  const metricsApi = wanted(METRICS_KEY)
    ? await startServer({
        ...metricsSpec,
        name: `${metricsSpec.name} metrics`,
        env: { ...metricsSpec.env, METRICS: 'true' },
      })
    : undefined;
  const metricsOffApi = wanted(METRICS_KEY)
    ? await startServer({ ...metricsSpec, name: `${metricsSpec.name} metrics off` })
    : undefined;
  // The service as production runs it by default, answer cache on, with metrics for its hit counts.
  const cachedApi = CACHED_KEYS.some(wanted)
    ? await startServer({
        ...metricsSpec,
        name: `${metricsSpec.name} answer cache`,
        env: (({ ANSWER_CACHE_MB: _, ...env }) => ({ ...env, METRICS: 'true' }))(metricsSpec.env),
      })
    : undefined;
  const baseline = await startServer({
    name: `baseline ${size}`,
    script: BASELINE_MAIN,
    env: { DATABASE_URL: catalogue.url, JWT_PRIVATE_KEY: privateKeyPem },
    nodeArgs: profileArgs('baseline'),
  });
  log(
    `${size}: API ready in ${readyMs.map((v) => `${Math.round(v)} ms`).join(', ')}; baseline in ${Math.round(baseline.readyMs)} ms`,
  );
  const database = createDatabase({ url: catalogue.url, poolSize: 2 });
  const dbProbe = databaseCpu(catalogue.url);
  let bareHttp: ServerProcess | undefined;
  const bodiesDir = await mkdtemp(join(tmpdir(), 'signal-bench-bodies-'));
  const idle = async () => {
    await settle(catalogue.url);
    if (small) await settle(small.url);
  };
  const rows = new Map<string, Row>();
  const operator: OperatorContext = {};
  let peakRssMb: number | null = null;
  let mixRssMb: number | null = null;
  // Requests each server answered, for the per-request figures of a profile.
  const served = new Map<string, number>();
  const count = (url: string, n: number) => served.set(url, (served.get(url) ?? 0) + n);
  try {
    const users = [];
    for (const wallet of wallets.evm.slice(0, connections)) users.push(await signIn(running.url, wallet));
    const bench: Bench = {
      api: running,
      baseline,
      small: smallApi && { api: smallApi, size: sizeLabel((small as Catalogue).providers) },
      metricsApi,
      metricsOffApi,
      database,
      nonces: createNonceCodec(nonceSecretFromSigningKey(privateKeyPem)),
      size,
      deepPage: Math.min(5_000, Math.floor((catalogue.providers / 20) * 0.8)),
      ids: await randomProviderIds(catalogue.url, 5_000),
      users,
      evm: wallets.evm,
      solana: wallets.solana,
      connections,
    };
    await checkParity(bench);
    // A cursor at the deep page's depth: the nextCursor of the page before it.
    if (wanted('cursor')) {
      const before = await (await fetch(`${running.url}${deepPath(bench.deepPage - 1)}`)).json();
      bench.cursorAtDepth = (before as { nextCursor: string | null }).nextCursor ?? undefined;
      bench.cursorDepth = (bench.deepPage - 1) * 20;
    }
    if (wanted('http-list') || wanted('http-detail')) {
      const list = join(bodiesDir, 'list.json');
      const detail = join(bodiesDir, 'detail.json');
      await writeFile(list, Buffer.from(await (await fetch(`${running.url}${PAGE_1}`)).arrayBuffer()));
      await writeFile(
        detail,
        Buffer.from(await (await fetch(`${running.url}/providers/${bench.ids[0]}`)).arrayBuffer()),
      );
      bareHttp = await startServer({
        name: 'bare node:http',
        script: BARE_HTTP_MAIN,
        env: { LIST_BODY_FILE: list, DETAIL_BODY_FILE: detail },
      });
      bench.bareHttp = bareHttp;
    }
    // PostgreSQL's CPU per request, for the rows whose servers use this catalogue.
    const onCatalogue = new Set([running.url, baseline.url, metricsApi?.url, metricsOffApi?.url, cachedApi?.url]);
    const withDbCpu = (target: LoadTarget | null) =>
      target && onCatalogue.has(target.url) ? { ...target, dbCpu: () => dbProbe.sample() } : target;
    const loadPlan: LoadPlan = { ...plan, connections, between: idle };
    const cached = cachedApi ? cachedScenarios(bench, cachedApi) : undefined;
    const operatorRows = OPERATOR_ROW_KEYS.some(wanted)
      ? await operatorScenarios(bench, catalogue.url, wanted, operator)
      : [];
    for (const scenario of [...(cached?.scenarios ?? []), ...scenarios(bench), ...operatorRows].filter((s) =>
      wanted(s.key),
    )) {
      const result = await compare(
        withDbCpu(scenario.service) as LoadTarget,
        withDbCpu(scenario.baseline),
        scenario.warmupFactor
          ? { ...loadPlan, warmupSeconds: loadPlan.warmupSeconds * scenario.warmupFactor }
          : loadPlan,
        scenario.watchRss ? () => running.rssMb() : undefined,
      );
      if (scenario.key === 'mix') mixRssMb = result.peakRssMb;
      else if (result.peakRssMb !== null) peakRssMb = Math.max(peakRssMb ?? 0, result.peakRssMb);
      count(scenario.service.url, result.service.served);
      if (scenario.baseline && result.baseline) count(scenario.baseline.url, result.baseline.served);
      const failures = result.service.failed + (result.baseline?.failed ?? 0);
      const tally = cached?.tallies.get(scenario.key);
      const rate = tally && hitRate(tally);
      const notes = [
        scenario.note,
        rate != null ? `answer cache hit rate ${(rate * 100).toFixed(1)} %` : undefined,
        failures > 0 ? `${failures} failed responses` : undefined,
      ].filter(Boolean);
      const key = scenario.key;
      const figures = (s: Sample) => ({ rps: s.rps, p50: s.p50, p99: s.p99, cpuUs: s.cpuUs, dbCpuUs: s.dbCpuUs });
      const baselineFigures = result.baseline && figures(result.baseline);
      rows.set(key, row(scenario.name, figures(result.service), baselineFigures, notes.join('; ') || undefined));
      log(progressLine(rows.get(key) as Row));
    }
    // PostgreSQL alone on the same statements, 50 clients, then the service's share of it.
    const anchors = [
      ['pg-list', 'PostgreSQL alone: list page 1 SQL (pgbench)', ANCHOR_SCRIPTS.list, 'list'],
      ['pg-detail', 'PostgreSQL alone: detail SQL (pgbench)', ANCHOR_SCRIPTS.detail(catalogue.providers), 'detail'],
    ] as const;
    for (const [key, name, script, of] of anchors) {
      if (!wanted(key)) continue;
      await idle();
      const figures = await pgbench(catalogue.url, script, Math.max(3, plan.seconds * 2), connections);
      const service = rows.get(of)?.service.rps;
      const share = service
        ? `; the service's ${of} reached ${Math.round((service / figures.rps) * 100)} % of this rate`
        : '';
      rows.set(
        key,
        row(name, figures, null, `${connections} clients, unnamed statements; p50 column: mean latency${share}`),
      );
      log(progressLine(rows.get(key) as Row));
    }
    for (const [key, of] of [
      ['http-list', 'list'],
      ['http-detail', 'detail'],
    ] as const) {
      const r = rows.get(key);
      if (r?.ratio != null)
        r.note = `${r.note ?? ''}; the service's ${of} is ${Math.round(r.ratio * 100)} % of this rate`;
    }
  } finally {
    await dbProbe.close();
    await bareHttp?.stop();
    await rm(bodiesDir, { recursive: true, force: true });
    await database.close();
    await running.stop();
    await baseline.stop();
    await smallApi?.stop();
    await metricsApi?.stop();
    await metricsOffApi?.stop();
    await cachedApi?.stop();
  }
  if (args.profile) {
    for (const [side, server] of [
      ['api', running],
      ['baseline', baseline],
    ] as const) {
      const profile = await newestProfile(side);
      if (profile) log(`\n${side}: ${await summariseProfile(profile, served.get(server.url) ?? 0)}`);
    }
  }
  return { rows, operator, readyMs, peakRssMb, mixRssMb };
}

/**
 * Another build's API (`--api`) starts only on a database its own migrations made: its db
 * package (beside its apps/api/dist/main.js) prepares the catalogues then.
 */
async function catalogueDb(): Promise<DbPackage | undefined> {
  if (!args.api) return undefined;
  const db = join(dirname(apiMain), '..', '..', '..', 'packages', 'db', 'dist', 'index.js');
  return (await import(pathToFileURL(db).href)) as DbPackage;
}

/** `--instructions`: the callgrind counts instead of the load rows (see instructions.ts). */
async function instructionsMain() {
  await assertValgrind();
  const catalogue = await prepareCatalogue(10_000, log, await catalogueDb());
  const release = await holdCatalogue(catalogue.url);
  let pooler: Awaited<ReturnType<typeof startPgBouncer>> | undefined;
  try {
    const privateKeyPem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    // --window N: requests per window and of warm-up (a quicker run on a busy machine).
    const window = numberArg(args.window, 1_000);
    const instructionPlan = {
      // --warm N: requests before the counters start (uninstrumented, see instructions.ts).
      warmup: numberArg(args.warm, 5_000),
      window,
      windows: numberArg(args.rounds, 3),
      // --connections N: fewer in flight keep the pool's connections busy, so none idles out
      // and reconnects (5 s connect timeout) on a machine too loaded for callgrind's pace.
      concurrency: numberArg(args.connections, 10),
      starts: numberArg(args.starts, 3),
    };
    // --v8="<flags>": other V8 flags than STEADY_V8_FLAGS for both servers (--v8 '' for none).
    const v8Flags = args.v8 === undefined ? STEADY_V8_FLAGS : args.v8.split(' ').filter(Boolean);
    // --perf-map: V8 writes /tmp/perf-<pid>.map, so callgrind-js.ts can name the compiled code.
    const nodeArgs = [...v8Flags, ...(args['perf-map'] ? ['--perf-basic-prof'] : [])];
    const serviceSpec = apiSpec(catalogue, privateKeyPem, nodeArgs);
    // Under callgrind a request can take longer than the 30 s a client gets by default to
    // send one (REQUEST_TIMEOUT_MS), and an idle keep-alive socket closed by the server just
    // as the client reuses it resets the request: the counted server must not refuse its own.
    const counted = {
      ...serviceSpec,
      env: {
        ...serviceSpec.env,
        REQUEST_TIMEOUT_MS: '600000',
        HEADERS_TIMEOUT_MS: '600000',
        KEEP_ALIVE_TIMEOUT_MS: '600000',
        // --answer-cache MB: the counted service with its answer cache (apiSpec turns it off).
        ...(args['answer-cache'] === undefined ? {} : { ANSWER_CACHE_MB: args['answer-cache'] }),
      },
    };
    // --against metrics|pooler: the service with the option against the service without it.
    // --against <main.js>: the baseline column is another build of the API (a before/after in one run).
    const against = args.against;
    const otherBuild = against?.endsWith('.js') ? resolve(process.env.INIT_CWD ?? process.cwd(), against) : undefined;
    if (against !== undefined && against !== 'metrics' && against !== 'pooler' && !otherBuild)
      throw new Error(`--against takes metrics, pooler or another build's main.js, not ${against}`);
    if (against === 'pooler') {
      pooler = await startPgBouncer({ upstream: catalogue.url });
      log(`PgBouncer at ${pooler.url}`);
    }
    const variant = (() => {
      if (against === 'metrics')
        return { ...counted, name: `${counted.name} metrics`, env: { ...counted.env, METRICS: 'true' } };
      if (against === 'pooler' && pooler) {
        const url = new URL(catalogue.url);
        const pooled = new URL(pooler.url);
        url.hostname = pooled.hostname;
        url.port = pooled.port;
        return {
          ...counted,
          name: `${counted.name} via pgbouncer`,
          env: { ...counted.env, DATABASE_URL: url.toString() },
        };
      }
      return counted;
    })();
    const rows = await countInstructions({
      service: variant,
      // --no-baseline: the service alone (an --api build older than the baseline's schema).
      baseline: args['no-baseline']
        ? undefined
        : against !== undefined
          ? {
              ...counted,
              name: otherBuild ? `api ${otherBuild}` : `${counted.name} plain`,
              script: otherBuild ?? counted.script,
            }
          : {
              name: 'baseline 10k',
              script: BASELINE_MAIN,
              env: { DATABASE_URL: catalogue.url, JWT_PRIVATE_KEY: privateKeyPem },
              nodeArgs,
            },
      ids: await randomProviderIds(catalogue.url, 200),
      keys: [...INSTRUCTION_KEYS.filter(wanted), ...KEY_INSTRUCTION_KEYS.filter((key) => only?.has(key))],
      followersOf: KEY_INSTRUCTION_KEYS.some((key) => only?.has(key))
        ? await ensureFanOutProvider(catalogue.url)
        : undefined,
      // Both servers share the signing key, so the nonces minted here are theirs (sign-in.ts).
      verifyBodies: () =>
        verifyBodies(
          createNonceCodec(nonceSecretFromSigningKey(privateKeyPem)),
          Array.from({ length: 50 }, evmWallet),
          requestsPerRow(instructionPlan),
        ),
      plan: instructionPlan,
      // One folder per API build and flags, so a before/after can run side by side.
      dir: join(
        HERE,
        '..',
        'artifacts',
        'instructions',
        // and run (its pid), so starts of one build can run side by side too.
        `${createHash('sha256')
          .update(`${apiMain} ${nodeArgs.join(' ')}`)
          .digest('hex')
          .slice(0, 8)}${against && !otherBuild ? `-${against}` : ''}-${process.pid}`,
      ),
      log,
    });
    const sides = otherBuild
      ? ` (baseline column: the API build ${otherBuild})`
      : against
        ? ` (service: ${variant.name}; baseline column: the same build without it)`
        : '';
    console.log(`\nAPI: ${apiMain}${sides}\n${instructionTable(rows, instructionPlan, v8Flags)}\n`);
  } finally {
    await pooler?.stop();
    await release();
  }
}

async function main() {
  if (args.instructions) return instructionsMain();
  const started = performance.now();
  const loadBefore = loadavg()[0] as number;
  if (args.profile) await rm(PROFILE_DIR, { recursive: true, force: true });
  await mkdir(PROFILE_DIR, { recursive: true });
  const catalogues: Catalogue[] = [];
  const db = await catalogueDb();
  const releases: (() => Promise<void>)[] = [];
  // `mix-signals` publishes into a copy of the catalogue under load, made before it is held open.
  let mixCopy: CatalogueCopy | undefined;
  for (const size of sizes) {
    const prepared = await prepareCatalogue(size, log, db);
    if (catalogues.length === 0 && MIX_SIGNAL_KEYS.some(wanted)) {
      mixCopy = await copyCatalogue(prepared, log);
      releases.push(mixCopy.drop);
    }
    releases.push(await holdCatalogue(prepared.url));
    catalogues.push(prepared);
  }
  const privateKeyPem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const wallets = {
    evm: Array.from({ length: Math.max(connections, 200) }, evmWallet),
    solana: Array.from({ length: 200 }, solanaWallet),
  };

  const rows = new Map<string, Row>();
  if (wanted('raw'))
    for (const [key, value] of rawCeiling(
      wallets.evm,
      wallets.solana,
      createNonceCodec(nonceSecretFromSigningKey(privateKeyPem)),
    ))
      rows.set(key, value);

  // Statement verification for each signer kind (issue 39), in-process like the raw rows.
  for (const [key, value] of statementRows({ wanted, seconds: rawSeconds, rounds: plan.rounds, log }))
    rows.set(key, value);
  // The audit (issue 40): the SDK's signal-audit bin on a log served from memory (1M entries; 100k quick).
  for (const [key, value] of await auditRows({ wanted, quick, log })) rows.set(key, value);

  const [catalogue, small] = catalogues as [Catalogue, Catalogue | undefined];
  /** The API as the rows on a database of their own run it: the catalogue's settings on `url`. */
  const specOn = (url: string) => ({
    ...apiSpec(catalogue, privateKeyPem),
    env: { ...apiSpec(catalogue, privateKeyPem).env, DATABASE_URL: url },
  });
  const result = await runCatalogue(catalogue, small, privateKeyPem, wallets, quick || args.profile ? 1 : 3);
  for (const [key, value] of result.rows) rows.set(key, value);
  const { readyMs, peakRssMb, mixRssMb } = result;
  if (DEPLOYMENT_KEYS.some(wanted)) {
    const deployment = await deploymentRows({
      catalogue,
      spec: specOn,
      plan: { ...plan, connections, between: () => settle(catalogue.url) },
      wanted,
      replica: !quick || only !== null,
      log,
    });
    for (const [key, value] of deployment) rows.set(key, value);
  }

  for (const [key, value] of await webhookRows({
    spec: specOn,
    wanted,
    burst: quick ? 1_000 : 5_000,
    seconds: quick ? 2 : 10,
    log,
  }))
    rows.set(key, value);
  if (wanted(FEED_KEY)) {
    const spec = apiSpec(catalogue, privateKeyPem);
    rows.set(FEED_KEY, await feedRow({ catalogueUrl: catalogue.url, spec, rounds: quick ? 1 : 3, log }));
  }
  for (const [key, value] of await logRows({
    spec: (url) => ({
      ...apiSpec(catalogue, privateKeyPem, profileArgs('log')),
      env: { ...apiSpec(catalogue, privateKeyPem).env, DATABASE_URL: url },
    }),
    wanted,
    seconds: quick ? 2 : 10,
    connections: 32,
    log,
  }))
    rows.set(key, value);
  for (const [key, value] of await logReadRows({
    spec: specOn,
    catalogueUrl: catalogue.url,
    wanted,
    plan: { ...plan, connections },
    log,
  }))
    rows.set(key, value);
  for (const [key, value] of await liveRows({
    spec: specOn,
    wanted,
    quick,
    log,
  }))
    rows.set(key, value);
  for (const [key, value] of await livePublishRows({ spec: specOn, wanted, quick, log })) rows.set(key, value);
  for (const [key, value] of await mixSignalRows({
    // The service as the `mix` row runs it: answer cache on, metrics on.
    spec: (url) => {
      const { ANSWER_CACHE_MB: _, ...env } = specOn(url).env;
      return { ...specOn(url), env: { ...env, METRICS: 'true' } };
    },
    copy: mixCopy,
    privateKeyPem,
    nonces: createNonceCodec(nonceSecretFromSigningKey(privateKeyPem)),
    evm: wallets.evm,
    connections,
    plan,
    streams: liveSubscribers(quick) / 5,
    log,
  }))
    rows.set(key, value);

  const signalRun = {
    spec: specOn,
    catalogueUrl: catalogue.url,
    wanted,
    plan: { ...plan, connections },
    // 10 s at the full plan's 4-second rounds, 2.5 s at --quick's one-second ones.
    openSeconds: plan.seconds * 2.5,
    openRate: numberArg(args['signal-rate'], OPEN_RATE),
    meLogEntries: numberArg(args['feed-entries'], quick ? 20_000 : 1_000_000),
    log,
  };
  for (const [key, value] of await signalRows(signalRun)) rows.set(key, value);
  for (const [key, value] of await meSignalRows(signalRun)) rows.set(key, value);
  for (const [key, value] of await verifyBrowserRows({ ...signalRun, repetitions: quick ? 50 : 200 }))
    rows.set(key, value);

  const order = [
    'mix',
    'raw-evm',
    'raw-solana',
    ...STATEMENT_KEYS,
    ...SCENARIO_KEYS,
    ...OPERATOR_ROW_KEYS,
    ...CACHED_KEYS.slice(1),
    ...DEPLOYMENT_KEYS,
    ...WEBHOOK_KEYS,
    FEED_KEY,
    ...LOG_KEYS,
    ...LOG_READ_KEYS,
    ...AUDIT_KEYS,
    ...SIGNAL_KEYS,
    ...ME_SIGNAL_KEYS,
    ...VERIFY_BROWSER_KEYS,
    ...LIVE_KEYS,
    ...LIVE_PUBLISH_KEYS,
    ...MIX_SIGNAL_KEYS,
  ];
  const ordered = [...rows.entries()].sort(([a], [b]) => order.indexOf(a) - order.indexOf(b)).map(([, r]) => r);
  const cpu = cpus();
  const report: Report = {
    machine: {
      cpu: cpu[0]?.model.trim() ?? 'unknown',
      cores: cpu.length,
      memoryGb: Math.round(totalmem() / 2 ** 30),
      node: process.versions.node,
      postgres: await serverVersion(),
      os: `${type()} ${release()}`,
      // Other work on the machine skews every figure: the 1-minute load at start and end.
      loadAverage: [loadBefore, loadavg()[0] as number].map((v) => Number(v.toFixed(2))),
    },
    date: new Date().toISOString(),
    mode: quick ? 'quick' : 'full',
    settings: { connections, ...plan, catalogues: sizes },
    rows: ordered,
    api: { readyMs, peakRssMbUnderListLoad: peakRssMb },
    targets: [
      ...judge(rows, { readyMs, peakRssMb }),
      ...judgeCached(rows, mixRssMb),
      ...judgeMetricsCost(rows.get(METRICS_KEY)),
      ...judgeDeployment(rows),
      ...judgeWebhooks(rows),
      ...judgeFeed(rows.get(FEED_KEY)),
      ...judgeLog(rows),
      ...judgeLogReads(rows),
      ...judgeAudit(rows),
      ...judgeStatements(rows),
      ...judgeSignals(rows),
      ...judgeMeSignals(rows),
      ...judgeVerifyBrowser(rows),
      ...judgeLive(rows),
      ...judgeLivePublish(rows),
      ...judgeMixSignals(),
      ...judgeOperator(rows, result.operator),
    ],
  };

  console.log(`\n${textTable(ordered)}\n`);
  console.log(`API start to ready: ${readyMs.map((v) => `${Math.round(v)} ms`).join(', ')}`);
  console.log(`API peak resident memory under the list load: ${peakRssMb?.toFixed(0) ?? '–'} MB\n`);
  console.log(`${verdictLines(report.targets)}\n`);
  if (quick) console.log('quick mode: one-second runs on the 10k catalogue, a smoke test; judge by a full run.\n');
  if (args.out) {
    const out = isAbsolute(args.out) ? args.out : resolve(process.env.INIT_CWD ?? process.cwd(), args.out);
    await writeJson(out, report);
    log(`wrote ${out}`);
  }
  // BENCH.md carries the figures of a full, complete run only.
  if (!quick && only === null && !args.profile) {
    await updateBenchMarkdown(BENCH_MD, report);
    log(`updated ${BENCH_MD}`);
  }
  for (const release of releases) await release();
  log(`bench finished in ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
