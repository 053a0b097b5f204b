/**
 * Rows of the deployment options (issue 15), each the service against the service itself:
 *   named         detail with DATABASE_PREPARED_STATEMENTS=true against the default (unnamed
 *                 statements), both direct: what turning prepared statements off costs
 *                 (target ≥ 1.0×)
 *   pooler-detail detail through a transaction-mode PgBouncer against direct (target: the API's CPU per request ≤ 1.05× direct; PgBouncer's CPU apart)
 *   pooler-list   list page 1 the same way (the same target)
 *   replica-list  list page 1 (no token) served by a streaming replica against the same service
 *                 without DATABASE_READ_URL, on a small primary + replica cluster pair of the
 *                 bench's own (full runs, or `--only replica-list`; skipped with a message when
 *                 clusters cannot be created here) (target ≥ 0.8×)
 * The pooler and the replica run on the same two cores as everything else: the rows price
 * the extra hop, not the capacity a separate machine adds.
 */
import { createDatabase, migrateToLatest, seedDemoCatalogue } from '@signal/db';
import { replicaToolsMissing, startPgBouncer, startReplicatedClusters } from '@signal/test-support';
import { type Catalogue, randomProviderIds, settle } from './databases.js';
import { kernelCounts, perRequest } from './kernel-counts.js';
import { compare, type LoadPlan, type Sample } from './load.js';
import { type Row, row, type Verdict } from './report.js';
import { get, PAGE_1 } from './scenarios.js';
import { processCpuMs, type RowRun, type ServerProcess, type ServerSpec, startServer } from './servers.js';

export const DEPLOYMENT_KEYS = ['named', 'pooler-detail', 'pooler-list', 'replica-list'] as const;
/**
 * Issue 29: through the pooler, the API's own CPU per request at most this much of direct's (the
 * pooler's own CPU is reported apart: on these shared cores it, not the API, is what req/s loses).
 */
export const POOLER_TARGET = 1.05;
/** Named statements exist to save PostgreSQL the parse and plan: the opt-in must not lose to the default. */
export const NAMED_TARGET = 1.0;
/** On the same cores a replica adds no capacity, only a hop to another server: the pooler's allowance. */
export const REPLICA_TARGET = 0.8;

export interface DeploymentRun extends RowRun {
  catalogue: Catalogue;
  plan: LoadPlan;
  /** Whether the replica row runs (it creates two clusters: ≈30 s). */
  replica: boolean;
}

const figures = (s: Sample) => ({ rps: s.rps, p50: s.p50, p99: s.p99, cpuUs: s.cpuUs });

async function measure(
  name: string,
  service: ServerProcess,
  reference: ServerProcess,
  paths: readonly string[],
  plan: LoadPlan,
  note: string,
  poolerPid?: number,
): Promise<Row> {
  const poolerBefore = poolerPid ? await processCpuMs(poolerPid) : null;
  const kernelBefore = await Promise.all([kernelCounts(service.pid), kernelCounts(reference.pid)]);
  const result = await compare(get(service, [...paths]), get(reference, [...paths]), plan);
  const kernelAfter = await Promise.all([kernelCounts(service.pid), kernelCounts(reference.pid)]);
  const poolerAfter = poolerPid ? await processCpuMs(poolerPid) : null;
  // Each process serves only its own side's rounds (and warm-up), so its counts divide by those.
  const serviceKernel = perRequest(kernelBefore[0], kernelAfter[0], result.service.served);
  const referenceKernel = result.baseline && perRequest(kernelBefore[1], kernelAfter[1], result.baseline.served);
  // Only the service side goes through the pooler: its CPU over every request of that side.
  const poolerUs =
    poolerBefore !== null && poolerAfter !== null && result.service.served > 0
      ? ((poolerAfter - poolerBefore) * 1000) / result.service.served
      : null;
  const failures = result.service.failed + (result.baseline?.failed ?? 0);
  const notes = [
    note,
    poolerUs !== null ? `PgBouncer's own CPU ${Math.round(poolerUs)} µs/req` : undefined,
    serviceKernel && referenceKernel
      ? `API per request, service: ${serviceKernel}; baseline column: ${referenceKernel}`
      : undefined,
    failures > 0 ? `${failures} failed responses` : undefined,
  ]
    .filter(Boolean)
    .join('; ');
  return row(name, figures(result.service), result.baseline && figures(result.baseline), notes);
}

export async function deploymentRows(run: DeploymentRun): Promise<Map<string, Row>> {
  const { catalogue, spec, plan, wanted, log } = run;
  const rows = new Map<string, Row>();
  const servers: ServerProcess[] = [];
  const start = async (s: ServerSpec) => {
    const server = await startServer(s);
    servers.push(server);
    return server;
  };
  const named = (s: ServerSpec, suffix: string, env: Record<string, string> = {}) => ({
    ...s,
    name: `${s.name} ${suffix}`,
    env: { ...s.env, ...env },
  });
  try {
    const ids = await randomProviderIds(catalogue.url, 2_000);
    const details = ids.map((id) => `/providers/${id}`);
    const poolerKeys = ['pooler-detail', 'pooler-list'].filter(wanted);
    const direct =
      wanted('named') || poolerKeys.length > 0 ? await start(named(spec(catalogue.url), 'direct')) : undefined;
    if (direct && wanted('named')) {
      const prepared = await start(named(spec(catalogue.url), 'prepared', { DATABASE_PREPARED_STATEMENTS: 'true' }));
      rows.set(
        'named',
        await measure(
          'detail, named prepared statements vs unnamed (direct)',
          prepared,
          direct,
          details,
          plan,
          'service column: DATABASE_PREPARED_STATEMENTS=true; baseline column: the default, unnamed',
        ),
      );
      log(`named: ${describe(rows.get('named'))}`);
    }
    if (direct && poolerKeys.length > 0) {
      let pooler: Awaited<ReturnType<typeof startPgBouncer>> | undefined;
      try {
        pooler = await startPgBouncer({ upstream: catalogue.url });
      } catch (error) {
        log(`pooler rows skipped: ${(error as Error).message}`);
      }
      if (pooler) {
        let through: ServerProcess | undefined;
        try {
          const url = new URL(catalogue.url);
          const pooled = new URL(pooler.url);
          url.hostname = pooled.hostname;
          url.port = pooled.port;
          // BENCH_POOLED_POOL_SIZE: the pooled API's DATABASE_POOL_SIZE (default: the same 10 as
          // direct), for trying a larger client pool in front of PgBouncer's 20 server connections.
          const poolSize = process.env.BENCH_POOLED_POOL_SIZE;
          through = await start(
            named(spec(url.toString()), 'via pgbouncer', poolSize ? { DATABASE_POOL_SIZE: poolSize } : {}),
          );
          for (const [key, name, paths] of [
            ['pooler-detail', 'detail through PgBouncer vs direct', details],
            ['pooler-list', 'list page 1 through PgBouncer vs direct', [PAGE_1]],
          ] as const) {
            if (!wanted(key)) continue;
            rows.set(
              key,
              await measure(
                name,
                through,
                direct,
                paths,
                plan,
                'PgBouncer 1.18, pool_mode = transaction, on the same cores',
                await pooler.pid(),
              ),
            );
            log(`${key}: ${describe(rows.get(key))} (${rows.get(key)?.note})`);
          }
        } finally {
          // The server first: stopped after its pooler, its workers log a refused connection
          // every cycle until it is gone.
          if (through) {
            await through.stop();
            servers.splice(servers.indexOf(through), 1);
          }
          await pooler.stop();
        }
      }
    }
    if (wanted('replica-list')) {
      if (!run.replica) log('replica-list skipped in --quick (it creates two clusters); `--only replica-list` runs it');
      else await replicaRow(run, start, named, rows);
    }
  } finally {
    for (const server of servers.reverse()) await server.stop();
  }
  return rows;
}

async function replicaRow(
  run: DeploymentRun,
  start: (s: ServerSpec) => Promise<ServerProcess>,
  named: (s: ServerSpec, suffix: string, env?: Record<string, string>) => ServerSpec,
  rows: Map<string, Row>,
): Promise<void> {
  const missing = replicaToolsMissing();
  if (missing) {
    run.log(`replica-list skipped: ${missing}`);
    return;
  }
  const providers = Math.min(run.catalogue.providers, 100_000);
  run.log(`replica-list: creating a primary + streaming replica pair with ${providers} providers`);
  const clusters = await startReplicatedClusters('bench');
  const stopped: ServerProcess[] = [];
  try {
    const { Client } = (await import('pg')).default;
    const admin = new Client({ connectionString: clusters.primaryUrl });
    await admin.connect();
    await admin.query('create database signal_bench');
    await admin.end();
    const primaryUrl = clusters.primaryUrl.replace(/\/postgres$/, '/signal_bench');
    const replicaUrl = clusters.replicaUrl.replace(/\/postgres$/, '/signal_bench');
    const seeding = createDatabase({ url: primaryUrl, poolSize: 2 });
    try {
      await migrateToLatest(seeding.db);
      await seedDemoCatalogue(seeding.db, { providers });
    } finally {
      await seeding.close();
    }
    await settle(primaryUrl);
    const onPrimary = await start(named(run.spec(primaryUrl), 'replica pair primary only'));
    const withReplica = await start(named(run.spec(primaryUrl), 'replica pair', { DATABASE_READ_URL: replicaUrl }));
    stopped.push(onPrimary, withReplica);
    rows.set(
      'replica-list',
      await measure(
        'list page 1 (no token) from the replica vs the primary',
        withReplica,
        onPrimary,
        [PAGE_1],
        run.plan,
        `${providers / 1_000}k catalogue on a cluster pair of the bench's own; replica on the same cores`,
      ),
    );
    run.log(`replica-list: ${describe(rows.get('replica-list'))}`);
  } catch (error) {
    run.log(`replica-list failed: ${(error as Error).message}`);
  } finally {
    for (const server of stopped) await server.stop();
    await clusters.drop();
  }
}

function describe(r: Row | undefined): string {
  if (!r?.baseline) return 'no figures';
  const cpu =
    r.service.cpuUs != null && r.baseline.cpuUs != null
      ? `, CPU ${Math.round(r.service.cpuUs)} vs ${Math.round(r.baseline.cpuUs)} µs/req`
      : '';
  return `${Math.round(r.service.rps)} vs ${Math.round(r.baseline.rps)} req/s (${(r.ratio ?? 0).toFixed(2)}×)${cpu}`;
}

/** Each deployment row's service column against its baseline column, in req/s (targets above). */
export function judgeDeployment(rows: Map<string, Row>): Verdict[] {
  const verdicts: Verdict[] = [];
  for (const [key, what] of [
    ['pooler-detail', 'detail'],
    ['pooler-list', 'list page 1'],
  ] as const) {
    const r = rows.get(key);
    if (r?.service.cpuUs == null || r.baseline?.cpuUs == null) continue;
    const factor = r.service.cpuUs / r.baseline.cpuUs;
    verdicts.push({
      target: `${what} through PgBouncer: the API's CPU per request ≤ ${POOLER_TARGET}× direct (the pooler's apart)`,
      measured: `${Math.round(r.service.cpuUs)} vs ${Math.round(r.baseline.cpuUs)} µs (${factor.toFixed(2)}×); ${/PgBouncer's own CPU \d+ µs\/req/.exec(r.note ?? '')?.[0] ?? 'PgBouncer CPU unknown'}; ${Math.round(r.service.rps)} vs ${Math.round(r.baseline.rps)} req/s`,
      met: factor <= POOLER_TARGET,
    });
  }
  for (const [key, target, floor] of [
    ['named', `detail with named prepared statements: ≥ ${NAMED_TARGET.toFixed(1)}× the unnamed default`, NAMED_TARGET],
    ['replica-list', `list page 1 (no token) from the replica: ≥ ${REPLICA_TARGET}× the primary alone`, REPLICA_TARGET],
  ] as const) {
    const r = rows.get(key);
    if (r?.ratio == null) continue;
    verdicts.push({ target, measured: describe(r), met: r.ratio >= floor });
  }
  return verdicts;
}
