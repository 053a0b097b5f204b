/**
 * The bench catalogues: one database per size on the server of BENCH_DATABASE_URL, migrated
 * and seeded by the db package. A database already holding exactly that many providers is
 * reused, so a rerun starts in seconds instead of reseeding a million rows.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as ownDb from '@signal/db';
import pg from 'pg';

/**
 * The db package that migrates and seeds a catalogue: this checkout's, or the one built beside
 * another checkout's API (`--api`), whose migrations the database must match for it to start.
 */
export type DbPackage = Pick<
  typeof ownDb,
  'createDatabase' | 'migrateToLatest' | 'migrationNames' | 'seedDemoCatalogue'
>;

/** A database the bench may create databases from (like TEST_DATABASE_URL for the tests). */
/** statement_timeout of the bench catalogues' sessions (set on each database). */
export const BENCH_STATEMENT_TIMEOUT = '10s';

export const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface Catalogue {
  name: string;
  url: string;
  providers: number;
  /** Seconds spent seeding; 0 when an existing database was reused. */
  seededSeconds: number;
}

export async function withClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

const admin = <T>(run: (client: pg.Client) => Promise<T>) => withClient(ADMIN_URL, run);

function databaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function providerCount(url: string): Promise<number | null> {
  return withClient(url, async (client) => {
    try {
      const { rows } = await client.query('select provider_count from catalogue_counters');
      return Number(rows[0]?.provider_count ?? 0);
    } catch {
      return null; // not migrated yet
    }
  });
}

/**
 * A bench database's name and URL, `signal_bench_<prefix><size>_<digest>`: its size and a digest
 * of the migrations it is built with, so checkouts with different migrations (branches in flight
 * on one machine) never share one. The catalogues have no prefix; the log's is `log_`.
 */
export function benchDatabase(prefix: string, size: number, db: DbPackage = ownDb): { name: string; url: string } {
  const digest = createHash('sha256').update(db.migrationNames().join(',')).digest('hex').slice(0, 8);
  const name = `signal_bench_${prefix}${size}_${digest}`;
  return { name, url: databaseUrl(name) };
}

const catalogueName = (providers: number, db: DbPackage) => benchDatabase('', providers, db).name;

/** Drops catalogues of this size built with other migrations, unless something is using them. */
async function dropStale(providers: number, keep: string, log: (line: string) => void): Promise<void> {
  const { rows } = await admin((client) =>
    client.query<{ datname: string }>('select datname from pg_database where datname like $1 and datname <> $2', [
      `signal_bench_${providers}_%`,
      keep,
    ]),
  );
  // Exactly this size (signal_bench_10000_… is a prefix of signal_bench_1000000_…).
  const sameSize = new RegExp(`^signal_bench_${providers}_[0-9a-f]{8}$`);
  for (const { datname } of rows) {
    if (!sameSize.test(datname)) continue;
    // Without FORCE: a database another checkout is benchmarking right now stays.
    await admin((client) => client.query(`drop database ${datname}`))
      .then(() => log(`dropped ${datname} (built with other migrations)`))
      .catch(() => {});
  }
}

export async function prepareCatalogue(
  providers: number,
  log: (line: string) => void,
  db: DbPackage = ownDb,
): Promise<Catalogue> {
  const name = catalogueName(providers, db);
  await dropStale(providers, name, log);
  const url = databaseUrl(name);
  let exists = await admin(
    async (client) => (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1,
  );
  const count = exists ? await providerCount(url) : null;
  if (count !== null && count > 0 && count !== providers) {
    log(`${name} holds ${count} providers, not ${providers}: recreating it`);
    await admin((client) => client.query(`drop database ${name} with (force)`));
    exists = false;
  }
  if (!exists) await admin((client) => client.query(`create database ${name}`));

  const database = db.createDatabase({ url, poolSize: 2 });
  let seededSeconds = 0;
  try {
    await db.migrateToLatest(database.db);
    const started = performance.now();
    // Distinct names (a number after the words), so that the search row's `q` matches about 50
    // of 1M names as a real board's would (operator-rows.ts); an older build's seed ignores it.
    const seeded = await db.seedDemoCatalogue(database.db, { providers, distinctNames: true });
    seededSeconds = seeded ? (performance.now() - started) / 1000 : 0;
    if (seeded) {
      log(`${name}: seeded ${providers} providers and ${seeded.follows} follows in ${seededSeconds.toFixed(1)} s`);
    } else {
      log(`${name}: reusing ${providers} providers`);
    }
    // Used nonces of earlier runs are dead weight.
    await database.db.deleteFrom('used_nonces').where('expires_at', '<', new Date()).execute();
  } finally {
    await database.close();
  }
  // A previous run's follows, unfollows and logins leave dead rows and clear visibility-map
  // bits, which would turn deep pages' index-only scans into heap visits.
  await withClient(url, async (client) => {
    await client.query('set statement_timeout = 0');
    await client.query('vacuum (analyze) providers, follows, users, used_nonces');
  });
  // As a deployment sets one (docs/deployment.md): a statement whose request gave up (a load
  // run that ended, a client that timed out) ends within this instead of running on into the
  // next row's measurement. The seed and the fan-out setup lift it for their own transactions.
  await admin((client) => client.query(`alter database ${name} set statement_timeout = '${BENCH_STATEMENT_TIMEOUT}'`));
  return { name, url, providers, seededSeconds };
}

/**
 * Keeps a connection open on the catalogue until the returned function is called: another
 * checkout's bench drops catalogues built with other migrations unless they are in use
 * (`dropStale`), and servers started under callgrind take minutes to connect.
 */
export async function holdCatalogue(url: string): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return () => client.end();
}

/**
 * Waits until the database has no statement running for the bench's servers: a run that
 * ends with queued slow queries (a plain-OFFSET deep page) must not bleed into the next.
 */
export function settle(url: string, timeoutMs = 60_000): Promise<void> {
  return withClient(url, async (client) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const { rows } = await client.query(
        `select count(*)::int as busy from pg_stat_activity
         where datname = current_database() and backend_type = 'client backend' and state = 'active'
           and pid <> pg_backend_pid()`,
      );
      if (rows[0]?.busy === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
}

/** `count` provider ids in random order, for requests spread over the whole catalogue. */
export function randomProviderIds(url: string, count: number): Promise<number[]> {
  return withClient(url, async (client) => {
    const { rows } = await client.query('select id::int from providers order by random() limit $1', [count]);
    return rows.map((row) => row.id as number);
  });
}

export async function serverVersion(): Promise<string> {
  return admin(async (client) => (await client.query('show server_version')).rows[0]?.server_version ?? 'unknown');
}

export interface CatalogueCopy {
  url: string;
  drop: () => Promise<void>;
}

/**
 * A copy of a catalogue for a row that writes into it (mix-signal-rows.ts): by CREATE DATABASE
 * … TEMPLATE, which refuses a template anyone is connected to (another checkout's bench on the
 * same catalogue); then, after a few tries, a database of its own seeded alike.
 */
export async function copyCatalogue(catalogue: Catalogue, log: (line: string) => void): Promise<CatalogueCopy> {
  const name = `signal_bench_mix_signals_${process.pid}_${randomBytes(3).toString('hex')}`;
  const url = databaseUrl(name);
  const drop = () => admin((client) => client.query(`drop database if exists ${name} with (force)`)).then(() => {});
  for (let attempt = 1; ; attempt++) {
    try {
      await admin((client) => client.query(`create database ${name} template ${catalogue.name} strategy file_copy`));
      break;
    } catch (error) {
      if (attempt < 5) {
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        continue;
      }
      log(`${catalogue.name} is in use (${(error as Error).message}): seeding ${name} instead`);
      await admin((client) => client.query(`create database ${name}`));
      const database = ownDb.createDatabase({ url, poolSize: 2 });
      try {
        await ownDb.migrateToLatest(database.db);
        await ownDb.seedDemoCatalogue(database.db, { providers: catalogue.providers, distinctNames: true });
      } finally {
        await database.close();
      }
      await withClient(url, (client) => client.query('vacuum (analyze) providers, follows, users'));
      break;
    }
  }
  await admin((client) => client.query(`alter database ${name} set statement_timeout = '${BENCH_STATEMENT_TIMEOUT}'`));
  return { url, drop };
}
