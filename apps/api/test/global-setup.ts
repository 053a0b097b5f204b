/**
 * Process tests run the built server (dist/main.js). When a source file is newer than the
 * build, or there is none, build it first, so `vitest run` never tests a stale dist. Then make
 * the run's migrated database and PGlite directory (makeMigratedTemplates), dropped at the end.
 *
 * With TEST_POOLER=pgbouncer, start a transaction-mode PgBouncer in front of the test server
 * for the whole run and send every service under test through it (TEST_POOLER_URL, read by
 * serviceDatabaseUrl; the test files' workers inherit it); it is stopped at the end.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDatabase, migrateToLatest } from '@signal/db';
import {
  MIGRATED_DATABASE_VARIABLE,
  MIGRATED_PGLITE_VARIABLE,
  startPgBouncer,
  TEST_ADMIN_URL,
} from '@signal/test-support';
import pg from 'pg';

const root = fileURLToPath(new URL('..', import.meta.url));

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

export default async function setup() {
  buildIfStale();
  const dropTemplates = await makeMigratedTemplates();
  if (process.env.TEST_POOLER !== 'pgbouncer') return dropTemplates;
  const pooler = await startPgBouncer({ upstream: TEST_ADMIN_URL });
  process.env.TEST_POOLER_URL = pooler.url;
  console.log(`services under test connect through PgBouncer (transaction mode) at ${pooler.url}`);
  return async () => {
    await dropTemplates();
    try {
      // Proof that the run went through the pooler, not around it.
      const carried = [...(await pooler.transactions())].filter(([database]) => database.startsWith('test_'));
      const total = carried.reduce((sum, [, count]) => sum + count, 0);
      console.log(`PgBouncer carried ${total} transactions to ${carried.length} test databases`);
      if (total === 0) throw new Error('PgBouncer carried no transaction to a test database: the services bypassed it');
    } finally {
      await pooler.stop();
    }
  };
}

/**
 * The run's migrated PostgreSQL database and PGlite directory, which the servers `startApi`
 * starts copy (packages/test-support/src/migrated-templates.ts says what is still migrated from
 * empty); the workers inherit the variables. The database is not named `test_…`: PgBouncer's
 * count above is of the test databases. Returns what drops both.
 */
async function makeMigratedTemplates(): Promise<() => Promise<void>> {
  const name = `signal_migrated_${process.pid}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: TEST_ADMIN_URL });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(TEST_ADMIN_URL);
  url.pathname = `/${name}`;
  const dataDir = await mkdtemp(join(tmpdir(), 'signal-migrated-'));
  for (const options of [{ url: url.toString(), poolSize: 1 }, { dataDir }]) {
    const database = createDatabase(options);
    try {
      await migrateToLatest(database.db);
    } finally {
      await database.close();
    }
  }
  process.env[MIGRATED_DATABASE_VARIABLE] = name;
  process.env[MIGRATED_PGLITE_VARIABLE] = join(dataDir, 'pglite');
  return async () => {
    await admin(`drop database if exists ${name} with (force)`);
    await rm(dataDir, { recursive: true, force: true });
  };
}

function buildIfStale() {
  let built = 0;
  try {
    built = statSync(join(root, 'dist', 'main.js')).mtimeMs;
  } catch {
    // not built yet
  }
  if (built >= newest(join(root, 'src'))) return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
}
