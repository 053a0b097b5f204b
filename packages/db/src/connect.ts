/**
 * One factory, two backends behind the same Kysely instance: PostgreSQL through `pg` when a
 * URL is given, PGlite (PostgreSQL compiled to WASM) persisted in a directory when not.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { type DialectAdapter, Kysely, PGliteDialect, PostgresAdapter, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { DirectKysely, rowsOf } from './compiled-query.js';
import type { Database } from './schema.js';

export type Backend = 'postgres' | 'pglite';

export interface DatabaseOptions {
  /** A PostgreSQL connection string; when absent the embedded PGlite backend is used. */
  url?: string | undefined;
  /** Where PGlite keeps its files; absent means in memory (tests). */
  dataDir?: string | undefined;
  /** pg pool size (PostgreSQL only). */
  poolSize?: number;
  /** How long to wait for a pooled connection before failing the request. */
  connectTimeoutMs?: number;
  /**
   * Run the hot compiled queries as named prepared statements (PostgreSQL only). Off by
   * default: a named statement lives on one server connection, and a transaction-mode pooler
   * (PgBouncer before 1.21, or without max_prepared_statements) hands server connections
   * around between transactions, so the next client that gets it fails with "prepared statement
   * already exists" or "does not exist". Turn it on for direct connections, or a pooler that
   * tracks prepared statements.
   */
  preparedStatements?: boolean;
  /** A client-side bound on each query (pg's query_timeout); unset: none. */
  queryTimeoutMs?: number;
}

/**
 * The pool's connections: `max` it may open, `total` open now, of them `idle`, and `waiting`
 * requests queued for one. PGlite is one embedded connection and reports no queue.
 */
export interface PoolStats {
  max: number;
  total: number;
  idle?: number;
  waiting?: number;
}

export interface DatabaseHandle {
  /**
   * Kysely over the backend. Which path a query takes: written with `runCompiled` (a hot
   * statement whose SQL depends only on its key) and run on this `db` on PostgreSQL, it goes
   * straight to the pg pool (a DirectKysely, compiled-query.ts); in a transaction, on PGlite, or
   * written with Kysely's builder, it runs through Kysely.
   */
  db: Kysely<Database>;
  backend: Backend;
  /** True when the database answers a trivial query. */
  ping(): Promise<boolean>;
  /** Connections now, for the metrics. */
  poolStats(): PoolStats;
  close(): Promise<void>;
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

// bigint ids and counts come back as JS numbers: every id is below 2^53 (the contract caps
// ids there), and the wire carries numbers.
const toNumber = (value: string) => Number(value);

export function createDatabase(options: DatabaseOptions = {}): DatabaseHandle {
  if (options.url) return createPostgres(options.url, options);
  return createPglite(options.dataDir);
}

function createPostgres(url: string, options: DatabaseOptions): DatabaseHandle {
  // No startup parameters beyond user, database and client_encoding (no statement_timeout,
  // no options): a transaction-mode pooler refuses the ones it does not track, and a setting
  // made on one server connection would not follow the client to the next. The statement
  // timeout belongs to the role or database (ALTER ROLE … SET statement_timeout), which every
  // server connection, pooled or not, picks up when it starts.
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    ...(options.queryTimeoutMs === undefined ? {} : { query_timeout: options.queryTimeoutMs }),
    // Keep TCP alive so a silently dropped connection is noticed instead of hanging.
    keepAlive: true,
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === INT8_OID || oid === NUMERIC_OID
          ? toNumber
          : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client that loses its server emits 'error' on the pool; without a listener that
  // would crash the process. The next query gets a fresh connection.
  pool.on('error', () => {});
  // A client checked out of the pool has no pool listener, yet pg emits 'error' on it when its
  // connection dies (after failing its queries with the same error): unheard, that event is an
  // uncaught exception and a database outage would crash the process. The query's own
  // rejection carries the failure; the pool drops the dead client when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
  const prepared = options.preparedStatements ?? false;
  // pg's promise with the rows taken off it (no async frame: it runs for every hot statement, see
  // compiled-query.ts). The plain path (keyed rows, unnamed) hands pg the text and values; a named
  // statement or array rows, the statement's config (statementConfig) and the values.
  const run = (sql: string, parameters: unknown[], name: string | undefined, rowMode: 'array' | undefined) =>
    name === undefined && rowMode === undefined
      ? pool.query(sql, parameters)
      : pool.query(statementConfig(sql, name, rowMode), parameters);
  const db = new DirectKysely(
    { dialect: new PooledPostgresDialect({ pool }) },
    ({ name, sql, parameters, rowMode }) => {
      if (name === undefined || !prepared) return run(sql, parameters, undefined, rowMode).then(rowsOf);
      return run(sql, parameters, name, rowMode).then(rowsOf, (error: unknown) => {
        // A migration that changed a column's type under a statement this connection prepared
        // earlier: PostgreSQL refuses the stale plan. The query itself is sound; run it unnamed.
        if ((error as { code?: string }).code !== '0A000') throw error;
        return run(sql, parameters, undefined, rowMode).then(rowsOf);
      });
    },
  );
  return {
    db,
    backend: 'postgres',
    ping: () => pingDatabase(db),
    poolStats: () => ({
      max: pool.options.max ?? 10,
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
    }),
    close: () => db.destroy(),
  };
}

/** The advisory lock id migrations serialise on (any fixed bigint no other code uses). */
export const MIGRATION_LOCK_ID = 7270002n;

/**
 * Kysely's PostgreSQL migration lock is a session-level advisory lock, taken and released by
 * separate statements. Behind a transaction-mode pooler those statements can run on different
 * server connections: the unlock misses, and the lock stays held on a pooled connection until
 * the pooler closes it, so the next migration waits for it. A transaction-scoped lock ends
 * with the transaction that took it, on whatever connection that was (migrateToLatest runs
 * the migrator inside one).
 */
class TransactionLockAdapter extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`select pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK_ID)})`.execute(db);
  }
  override async releaseMigrationLock(): Promise<void> {}
}

class PooledPostgresDialect extends PostgresDialect {
  override createAdapter(): DialectAdapter {
    return new TransactionLockAdapter();
  }
}

/** Per row mode, each statement's config, by its name (or its text when unnamed). */
const statementConfigs = { array: new Map<string, pg.QueryConfig>(), keyed: new Map<string, pg.QueryConfig>() };

/**
 * The query config of a named or array-row statement, for `pool.query(config, values)`. pg copies
 * every config it is given through its property descriptors (≈1.5–10 µs a query, the largest
 * single cost of a lookup by id in node: BENCH.md), keeping its prototype: so the statement's
 * fixed fields (text, name, row mode) sit on a config made once per statement, and each query
 * passes a new object with that config as its prototype and no fields of its own to copy (−20k
 * instructions a detail). The rest of what array rows used to pay, pg's result building a keyed
 * row template they never read (44k a detail), is gone by a one-line pnpm patch of pg (the root
 * folder patches/). test/compiled-query.test.ts reads rows both ways, named and unnamed, call
 * after call.
 */
function statementConfig(text: string, name: string | undefined, rowMode: 'array' | undefined): pg.QueryConfig {
  const configs = rowMode === undefined ? statementConfigs.keyed : statementConfigs.array;
  const key = name ?? text;
  let config = configs.get(key);
  if (config === undefined) {
    config = Object.freeze({
      text,
      ...(rowMode === undefined ? {} : { rowMode }),
      ...(name === undefined ? {} : { name }),
    }) as pg.QueryConfig;
    configs.set(key, config);
  }
  return Object.create(config) as pg.QueryConfig;
}

function createPglite(dataDir: string | undefined): DatabaseHandle {
  let dir: string | undefined;
  if (dataDir) {
    dir = join(dataDir, 'pglite');
    // Private: the database's files are nobody else's to read.
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }
  // One options object: PGlite ignores its second argument when the first (the directory) is
  // undefined, as it is in memory. pg_trgm: the name search's trigram index (migration 0014).
  const pglite = new PGlite({
    ...(dir === undefined ? {} : { dataDir: dir }),
    parsers: { [INT8_OID]: toNumber, [NUMERIC_OID]: toNumber },
    extensions: { pg_trgm },
    // PostgreSQL keeps every relation file it touched open, up to max_files_per_process (1,000
    // by default): an embedded database then grows by ≈1 descriptor per table or index used, long
    // after the HTTP server sized its connection cap from the descriptors open at start. 64 (the
    // lowest PostgreSQL allows) bounds that growth; files beyond it are reopened on demand.
    startParams: [...PGlite.defaultStartParams, '-c', 'max_files_per_process=64'],
  });
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
  return {
    db,
    backend: 'pglite',
    ping: () => pingDatabase(db),
    poolStats: () => ({ max: 1, total: pglite.closed ? 0 : 1 }),
    close: () => db.destroy(),
  };
}

/**
 * The statement_timeout the server applies to this service's statements ('0' = none): the
 * role's or database's setting, since the service sends no startup parameters.
 */
export async function statementTimeout(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ value: string }>`select current_setting('statement_timeout') as value`.execute(db);
  return rows[0]?.value ?? '0';
}

async function pingDatabase(db: Kysely<Database>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
