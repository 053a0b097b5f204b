/**
 * Throwaway databases for tests: each test file gets a database of its own on the real
 * PostgreSQL server (or an in-memory PGlite), so files run in parallel without sharing rows.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { MissingToolError, type PgBouncer, reroute, startPgBouncer } from './local-servers.js';

/** The two database backends every suite runs on (the service's own `Backend`). */
export type Backend = 'postgres' | 'pglite';

/** The server tests use; CI and the machine's PostgreSQL answer here with trust auth. */
export const TEST_ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * The URL a service under test connects with: through the pooler named by TEST_POOLER_URL
 * (a transaction-mode PgBouncer in front of the test server) when set, so the same tests run
 * again through it; else `url` itself. Only URLs of the test server are rerouted (a test's own
 * proxy keeps its address). Databases are still created and inspected directly.
 */
export function serviceDatabaseUrl(url: string): string {
  const pooler = process.env.TEST_POOLER_URL;
  if (!pooler) return url;
  const admin = new URL(TEST_ADMIN_URL);
  const target = new URL(url);
  if (target.hostname !== admin.hostname || target.port !== admin.port) return url;
  return reroute(url, pooler);
}

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

export interface ScratchOptions {
  /** Copy this database (`create database … template …`) instead of starting empty. */
  template?: string | undefined;
}

/** One statement on the test server's admin connection (create, drop, list databases). */
export async function adminQuery<Row extends object = Record<string, unknown>>(
  statement: string,
  adminUrl = TEST_ADMIN_URL,
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return (await client.query<Row>(statement)).rows;
  } finally {
    await client.end();
  }
}

/** The URL of database `name` on the server `adminUrl` names. */
export function databaseUrl(name: string, adminUrl = TEST_ADMIN_URL): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function createScratchDatabase(
  adminUrl = TEST_ADMIN_URL,
  options: ScratchOptions = {},
): Promise<ScratchDatabase> {
  const name = `test_${process.pid}_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create database ${name}${options.template ? ` template ${options.template}` : ''}`, adminUrl);
  return {
    url: databaseUrl(name, adminUrl),
    drop: async () => {
      await adminQuery(`drop database if exists ${name} with (force)`, adminUrl);
    },
  };
}

export const BACKENDS: Backend[] = ['postgres', 'pglite'];

export interface PooledScratchDatabase extends ScratchDatabase {
  /** The PgBouncer in front of it; undefined where PgBouncer is not installed (outside CI only). */
  pooler: PgBouncer | undefined;
  /** The database through the pooler, or `url` itself when there is none. */
  pooledUrl: string;
}

/**
 * A scratch database and a transaction-mode PgBouncer in front of it. CI installs PgBouncer; a
 * machine without it gets no pooler and a warning that `direct` (who would have used the pooler)
 * connects directly. `drop()` stops the pooler and drops the database.
 */
export async function createPooledScratchDatabase(direct: string): Promise<PooledScratchDatabase> {
  const scratch = await createScratchDatabase();
  const pooler = await startPgBouncer({ upstream: TEST_ADMIN_URL }).catch((error) => {
    if (error instanceof MissingToolError && !process.env.CI) {
      console.warn(`${error.message}: ${direct} directly`);
      return undefined;
    }
    throw error;
  });
  return {
    url: scratch.url,
    pooler,
    pooledUrl: pooler ? reroute(scratch.url, pooler.url) : scratch.url,
    async drop() {
      await pooler?.stop();
      await scratch.drop();
    },
  };
}
