/**
 * The API started in-process for a test: on a free port, against a scratch PostgreSQL database
 * (or a PGlite directory of its own), with a clock the test moves to reach expiry. The service
 * itself is handed in (`apiStarter(module)`): the API's own tests start it from its sources, the
 * SDK's tests from its build, and this package depends on neither.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MIGRATED_DATABASE_VARIABLE, MIGRATED_PGLITE_VARIABLE } from './migrated-templates.js';
import { type Backend, createScratchDatabase, serviceDatabaseUrl, TEST_ADMIN_URL } from './scratch-database.js';

const run = promisify(execFile);

/**
 * What every service under test starts with (in-process or spawned): quiet, no demo catalogue,
 * and no rate limits, since every test signs in fresh wallets from one address. A test names
 * what it changes.
 */
export const TEST_SERVICE_ENV: Readonly<Record<string, string>> = {
  LOG_LEVEL: 'silent',
  SEED_PROVIDERS: '0',
  SEED_SIGNAL_PROVIDERS: '0',
  AUTH_RATE_LIMIT_PER_MINUTE: '0',
  FOLLOW_RATE_LIMIT_PER_MINUTE: '0',
  READ_RATE_LIMIT_PER_MINUTE: '0',
  SEARCH_DB_MS_PER_SECOND: '0',
  NEW_USER_RATE_LIMIT_PER_HOUR: '0',
  NEW_USER_RATE_LIMIT_PER_HOUR_PER_56: '0',
};

/** The parts of @signal/api (and @signal/db) a test start needs; structural, so either build fits. */
export interface ApiModule<Config extends { port: number }, Handle extends { close(): Promise<void> }, Logger> {
  loadConfig(env: Record<string, string | undefined>): Config;
  createServer(options: { config: Config; now?: () => Date; webDistDir?: string; logger?: Logger }): {
    start(): Promise<{ url: string; port: number; metricsUrl?: string; services: { database: Handle } }>;
    stop(): Promise<void>;
  };
  createDatabase(options: { url: string; poolSize?: number }): Handle;
}

export interface TestApi<Config, Handle> {
  url: string;
  /** A direct handle on the same database, for checking what the service wrote. */
  db: Handle;
  /** Moves the server's clock (nonce and token expiry) by this many milliseconds. */
  advanceClock(ms: number): void;
  /** The server's clock (real time plus every advance). */
  now(): Date;
  config: Config;
  /** Where METRICS_PORT serves /metrics, when set. */
  metricsUrl: string | undefined;
  stop(): Promise<void>;
  /** Stops the server only, keeping the database, so a restart can reuse it. */
  restart(): Promise<void>;
}

export interface StartOptions<Logger> {
  /** Settings over TEST_SERVICE_ENV (and the starter's defaults). */
  env?: Record<string, string>;
  /** Reuse a data dir / database between starts. */
  dataDir?: string;
  databaseUrl?: string;
  /** The web build served at `/`; default the service's own default. */
  webDistDir?: string;
  /** The server's logger (a test that reads the log lines); default one built from LOG_LEVEL. */
  logger?: Logger;
}

/**
 * `startApi(backend, options)` for the service `api`; `defaults` are settings of every start
 * (over TEST_SERVICE_ENV, under the options' env).
 */
export function apiStarter<Config extends { port: number }, Handle extends { close(): Promise<void> }, Logger>(
  api: ApiModule<Config, Handle, Logger>,
  defaults: Record<string, string> = {},
) {
  return async function startApi(
    backend: Backend,
    options: StartOptions<Logger> = {},
  ): Promise<TestApi<Config, Handle>> {
    let offset = 0;
    const now = () => new Date(Date.now() + offset);
    const scratch =
      backend === 'postgres' && !options.databaseUrl
        ? await createScratchDatabase(TEST_ADMIN_URL, { template: process.env[MIGRATED_DATABASE_VARIABLE] })
        : undefined;
    const databaseUrl = options.databaseUrl ?? scratch?.url;
    const ownDataDir = options.dataDir ? undefined : await mkdtemp(join(tmpdir(), 'signal-api-test-'));
    const dataDir = options.dataDir ?? (ownDataDir as string);
    const pgliteTemplate = process.env[MIGRATED_PGLITE_VARIABLE];
    if (backend === 'pglite' && ownDataDir && pgliteTemplate) {
      // cp -a: node's fs.cp took about twice as long for the template's ≈1,000 files.
      await run('cp', ['-a', pgliteTemplate, join(ownDataDir, 'pglite')]);
    }
    const config = api.loadConfig({
      ...TEST_SERVICE_ENV,
      PORT: '0',
      ...defaults,
      DATA_DIR: dataDir,
      ...(databaseUrl ? { DATABASE_URL: serviceDatabaseUrl(databaseUrl) } : {}),
      ...options.env,
    });
    const serve = (port: number) =>
      api.createServer({
        config: { ...config, port },
        now,
        ...(options.webDistDir ? { webDistDir: options.webDistDir } : {}),
        ...(options.logger ? { logger: options.logger } : {}),
      });
    let server = serve(config.port);
    let running = await server.start();
    // PGlite is single-process: the inspection handle is the server's own; PostgreSQL gets a
    // separate pool, as an outside observer would.
    const db = databaseUrl ? api.createDatabase({ url: databaseUrl, poolSize: 4 }) : running.services.database;
    const started: TestApi<Config, Handle> = {
      url: running.url,
      db,
      config,
      metricsUrl: running.metricsUrl,
      advanceClock(ms) {
        offset += ms;
      },
      now,
      async restart() {
        await server.stop();
        server = serve(running.port);
        running = await server.start();
        if (!databaseUrl) started.db = running.services.database;
      },
      async stop() {
        await server.stop();
        if (databaseUrl) await db.close();
        await scratch?.drop();
        if (ownDataDir) await rm(ownDataDir, { recursive: true, force: true });
      },
    };
    return started;
  };
}
