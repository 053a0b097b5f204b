import { tilePath } from '@signal/core/log';
import * as db from '@signal/db';
import {
  ADMIN_URL,
  BENCH_STATEMENT_TIMEOUT,
  benchDatabase,
  randomProviderIds,
  settle,
  withClient,
} from './databases.js';
import { compare, type LoadPlan, type LoadTarget } from './load.js';
import { type Row, row, type Verdict } from './report.js';
import { type RowRun, type ServerProcess, startServer } from './servers.js';

export const LOG_READ_KEYS = ['log-proof', 'log-tile'] as const;
export const LOG_PROOF_SIZE = 1_000_000;
export const LOG_PROOF_TARGET_CPU = 2;
export const LOG_TILE_TARGET_RATIO = 0.9;
const SEED_CHUNK = 10_000;
/** Distinct proofs and tiles a run cycles through (each read once before the run). */
const PATHS = 5_000;

export interface LogReadRun extends RowRun {
  catalogueUrl: string;
  plan: Omit<LoadPlan, 'between'>;
}

/** The log database's name: its size and the migrations' digest, as the catalogues' names. */
const logDatabase = (size: number) => benchDatabase('log_', size);

/** Creates, migrates and fills the log database unless it holds exactly `size` entries (integrated or pending). */
async function prepareLogDatabase(size: number, log: (line: string) => void): Promise<string> {
  const { name, url } = logDatabase(size);
  const exists = await withClient(
    ADMIN_URL,
    async (client) => (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1,
  );
  if (!exists) await withClient(ADMIN_URL, (client) => client.query(`create database ${name}`));
  let database = db.createDatabase({ url, poolSize: 2 });
  try {
    // An API of another build (`--api`) migrates it further than this checkout knows: start over.
    await db.migrateToLatest(database.db).catch(async (error: Error) => {
      log(`${name}: ${error.message}: recreating it`);
      await database.close();
      await withClient(ADMIN_URL, (client) => client.query(`drop database ${name} with (force)`));
      await withClient(ADMIN_URL, (client) => client.query(`create database ${name}`));
      database = db.createDatabase({ url, poolSize: 2 });
      await db.migrateToLatest(database.db);
    });
    const held = await withClient(url, async (client) => {
      const { rows } = await client.query(
        'select (select size from log_state)::bigint + (select count(*) from log_pending) as n',
      );
      return Number(rows[0]?.n ?? 0);
    });
    if (held === size) return url;
    if (held !== 0)
      throw new Error(`${name} holds ${held} log entries, not ${size}: drop it (dropdb ${name}) and run again`);
    const started = performance.now();
    for (let at = 0; at < size; at += SEED_CHUNK) {
      const entries = Array.from({ length: Math.min(SEED_CHUNK, size - at) }, (_, i) =>
        new TextEncoder().encode(
          JSON.stringify({
            type: 'publisher.added',
            providerId: 1 + ((at + i) % 1000),
            wallet: `0x${(at + i).toString(16).padStart(40, '0')}`,
            at: '2026-12-02T00:00:00.000Z',
          }),
        ),
      );
      await database.db.transaction().execute((trx) => db.appendLogEntries(trx, entries));
    }
    log(`${name}: accepted ${size} log entries in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await database.close();
  }
  return url;
}

/** Waits until the server's checkpoint covers `size` entries (its sequencer integrating the seed). */
export async function waitForSize(api: ServerProcess, size: number, log: (line: string) => void): Promise<void> {
  const started = performance.now();
  for (;;) {
    const note = await (await fetch(`${api.url}/log/checkpoint`)).text();
    const now = Number(note.split('\n')[1]);
    if (now >= size) break;
    if (performance.now() - started > 30 * 60_000) throw new Error(`the log's sequencer stopped at ${now} of ${size}`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  const seconds = (performance.now() - started) / 1000;
  if (seconds > 2) log(`log: the sequencer integrated up to ${size} entries in ${seconds.toFixed(1)} s`);
}

/** GETs cycling through `paths`, each read once first; `etag`: revalidating with it (304). */
export function reads(server: ServerProcess, paths: string[], etag?: string): LoadTarget {
  return {
    url: server.url,
    cpuMs: server.cpuMs,
    ...(etag ? { expectStatus: 304 as const } : {}),
    async requests() {
      for (const path of paths) {
        const res = await fetch(`${server.url}${path}`);
        if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${await res.text()}`);
        await res.arrayBuffer();
      }
      let next = 0;
      return [
        {
          method: 'GET',
          setupRequest: (request) => ({
            ...request,
            path: paths[next++ % paths.length] as string,
            headers: etag ? { 'if-none-match': etag } : {},
          }),
        },
      ];
    },
  };
}

/** `count` distinct random integers below `below`. */
function randomBelow(below: number, count: number): number[] {
  const picked = new Set<number>();
  while (picked.size < Math.min(count, below)) picked.add(Math.floor(Math.random() * below));
  return [...picked];
}

export async function logReadRows(run: LogReadRun): Promise<Map<string, Row>> {
  const rows = new Map<string, Row>();
  if (!LOG_READ_KEYS.some(run.wanted)) return rows;
  const url = await prepareLogDatabase(LOG_PROOF_SIZE, run.log);
  const logApi = await startServer({ ...run.spec(url), name: 'api (log 1M)' });
  const catalogueApi = await startServer({ ...run.spec(run.catalogueUrl), name: 'api (catalogue)' });
  try {
    await waitForSize(logApi, LOG_PROOF_SIZE, run.log);
    // The seed's million pending rows are dead once integrated: vacuumed here as autovacuum would
    // (which this development cluster runs without), so the rows do not read a bloat of them.
    await withClient(url, (client) => client.query('vacuum (analyze) log_pending'));
    // As the catalogues have it (databases.ts), once the seed's integration is done: the next
    // run's servers start with it.
    const { name } = logDatabase(LOG_PROOF_SIZE);
    await withClient(ADMIN_URL, (client) =>
      client.query(`alter database ${name} set statement_timeout = '${BENCH_STATEMENT_TIMEOUT}'`),
    );
    const plan: LoadPlan = {
      ...run.plan,
      between: async () => {
        await settle(url);
        await settle(run.catalogueUrl);
      },
    };
    const size = LOG_PROOF_SIZE;
    if (run.wanted('log-proof')) {
      const proofs = randomBelow(size, PATHS).map((index) => `/log/proof/inclusion?index=${index}&size=${size}`);
      const details = (await randomProviderIds(run.catalogueUrl, PATHS)).map((id) => `/providers/${id}`);
      const result = await compare(reads(logApi, proofs), reads(catalogueApi, details), plan);
      rows.set(
        'log-proof',
        row(
          'log: inclusion proof at size 1M vs provider detail',
          result.service,
          result.baseline,
          `${proofs.length.toLocaleString('en-US')} random indexes of the tree of ${size.toLocaleString('en-US')}; baseline column: GET /providers/{id} of the catalogue (answer cache off)`,
        ),
      );
    }
    if (run.wanted('log-tile')) {
      const fullTiles = Math.floor(size / 256);
      const tiles = randomBelow(fullTiles, PATHS).map((index) => `/log/${tilePath({ level: 0, index, width: 256 })}`);
      const page = '/providers?page=1&limit=20';
      const first = await fetch(`${catalogueApi.url}${page}`);
      const etag = first.headers.get('etag');
      await first.arrayBuffer();
      if (!etag) throw new Error(`GET ${page} gave no ETag`);
      const result = await compare(reads(logApi, tiles), reads(catalogueApi, [page], etag), plan);
      rows.set(
        'log-tile',
        row(
          'log: full tile vs 304 of the catalogue',
          result.service,
          result.baseline,
          `${tiles.length.toLocaleString('en-US')} random full level-0 tiles of ${fullTiles.toLocaleString('en-US')}; baseline column: page 1 answered If-None-Match with 304`,
        ),
      );
    }
  } finally {
    await logApi.stop();
    await catalogueApi.stop();
  }
  return rows;
}

export function judgeLogReads(rows: Map<string, Row>): Verdict[] {
  const verdicts: Verdict[] = [];
  const proof = rows.get('log-proof');
  if (proof?.service.cpuUs != null && proof.baseline?.cpuUs != null) {
    const factor = proof.service.cpuUs / proof.baseline.cpuUs;
    verdicts.push({
      target: `log: an inclusion proof at size 1M costs ≤ ${LOG_PROOF_TARGET_CPU}× a provider detail's CPU`,
      measured: `${Math.round(proof.service.cpuUs)} vs ${Math.round(proof.baseline.cpuUs)} µs (${factor.toFixed(2)}×)`,
      met: factor <= LOG_PROOF_TARGET_CPU,
    });
  }
  const tile = rows.get('log-tile');
  if (tile?.ratio != null) {
    // The rate each side's server CPU affords is 1/CPU per request. When the load generator (this
    // process, one core of the machine's two) spends more per answer than the server does, the
    // req/s measure the generator: an 8 KiB body costs autocannon about twice a 304's headers.
    const service = tile.service;
    const baseline = tile.baseline;
    const cpuRatio =
      service.cpuUs != null && baseline?.cpuUs != null && service.cpuUs > 0 ? baseline.cpuUs / service.cpuUs : null;
    const generatorBound = service.clientCpuUs != null && service.cpuUs != null && service.clientCpuUs > service.cpuUs;
    const byCpu = tile.ratio < LOG_TILE_TARGET_RATIO && generatorBound && cpuRatio !== null;
    verdicts.push({
      target: `log: a full tile at ≥ ${LOG_TILE_TARGET_RATIO}× the req/s of a 304 of the catalogue${byCpu ? ' (judged by server CPU: the req/s are the load generator’s bound)' : ''}`,
      measured: `${tile.ratio.toFixed(2)}× (${Math.round(tile.service.rps)} vs ${Math.round(tile.baseline?.rps ?? 0)} req/s; server CPU ${Math.round(tile.service.cpuUs ?? 0)} vs ${Math.round(tile.baseline?.cpuUs ?? 0)} µs, load generator's ${Math.round(tile.service.clientCpuUs ?? 0)} vs ${Math.round(tile.baseline?.clientCpuUs ?? 0)} µs per request${cpuRatio === null ? '' : `; the server's CPU affords ${cpuRatio.toFixed(2)}× the 304's rate`})`,
      met: tile.ratio >= LOG_TILE_TARGET_RATIO || (byCpu && (cpuRatio ?? 0) >= LOG_TILE_TARGET_RATIO),
    });
  }
  return verdicts;
}
