/**
 * A suite's global setup (apps/api/test/global-setup.ts, packages/sdk/test/global-setup.ts)
 * migrates one PostgreSQL database and one PGlite directory for its whole run and names them
 * here; the servers `startApi` starts then begin from a copy, so a start checks its migrations
 * instead of running them, and a PGlite start skips initdb. startApi's start, on 2 busy cores (load 10), 3 Dec 2026: PostgreSQL
 * 1.3–2.2 s → 0.5–0.8 s, PGlite 9–13 s → 3–4.5 s. Unset, every start begins empty.
 * What migrating from empty is left to: server pairs, process tests, packages/db's tests,
 * schema-loss.test.ts, and any start given its own database URL or data directory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminQuery, databaseUrl } from './scratch-database.js';

/** The name of a migrated database on the test server, for `create database … template …`. */
export const MIGRATED_DATABASE_VARIABLE = 'TEST_MIGRATED_DATABASE';

/** A migrated PGlite directory (a data directory's `pglite/`), copied into each new data directory. */
export const MIGRATED_PGLITE_VARIABLE = 'TEST_MIGRATED_PGLITE';

/** What of the db package the templates need (`import * as db from '@signal/db'`). */
export interface Migrations<Db> {
  createDatabase(options: { url: string; poolSize: number } | { dataDir: string }): {
    db: Db;
    close(): Promise<void>;
  };
  migrateToLatest(db: Db): Promise<unknown>;
}

/**
 * For a suite's global setup: makes the run's migrated database (not named `test_…`, which
 * PgBouncer's count of test databases reads) and PGlite directory with the service's own
 * migrations, names them in the two variables (the workers inherit them) and returns what drops
 * both.
 */
export async function makeMigratedTemplates<Db>(migrations: Migrations<Db>): Promise<() => Promise<void>> {
  const name = `signal_migrated_${process.pid}`;
  // A run that was killed left its template behind: drop those of processes that are gone (and
  // one of this pid's, from a run before the pid was reused).
  const templates = await adminQuery<{ datname: string }>(
    `select datname from pg_database where datname ~ '^signal_migrated_[0-9]+$'`,
  );
  for (const { datname } of templates) {
    const pid = Number(datname.slice('signal_migrated_'.length));
    if (pid === process.pid || !running(pid)) await adminQuery(`drop database if exists ${datname} with (force)`);
  }
  await adminQuery(`create database ${name}`);
  const dataDir = await mkdtemp(join(tmpdir(), 'signal-migrated-'));
  for (const options of [{ url: databaseUrl(name), poolSize: 1 }, { dataDir }]) {
    const database = migrations.createDatabase(options);
    try {
      await migrations.migrateToLatest(database.db);
    } finally {
      await database.close();
    }
  }
  process.env[MIGRATED_DATABASE_VARIABLE] = name;
  process.env[MIGRATED_PGLITE_VARIABLE] = join(dataDir, 'pglite');
  return async () => {
    await adminQuery(`drop database if exists ${name} with (force)`);
    await rm(dataDir, { recursive: true, force: true });
  };
}

/** Whether a process with this pid exists (EPERM: it does, as another user's). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
