/**
 * One factory, two backends behind the same Kysely instance: PostgreSQL through `pg` when a
 * URL is given, PGlite (PostgreSQL compiled to WASM) persisted in a directory when not.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PGliteDialect, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { executeCompiledDirectly } from './compiled-query.js';
import type { Database } from './schema.js';

export type Backend = 'postgres' | 'pglite';

export interface DatabaseOptions {
  /** A PostgreSQL connection string; when absent the embedded PGlite backend is used. */
  url?: string | undefined;
  /** Where PGlite keeps its files; absent means in memory (tests). */
  dataDir?: string | undefined;
  /** pg pool size (PostgreSQL only). */
  poolSize?: number;
  /** Per-statement timeout on PostgreSQL, so a stuck query cannot hold a request forever. */
  statementTimeoutMs?: number;
  /** How long to wait for a pooled connection before failing the request. */
  connectTimeoutMs?: number;
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
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    statement_timeout: options.statementTimeoutMs ?? 10_000,
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
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  executeCompiledDirectly(db, async ({ name, sql, parameters }) => {
    if (name === undefined) return (await pool.query(sql, parameters)).rows;
    try {
      return (await namedQuery(pool, name, sql, parameters)).rows;
    } catch (error) {
      // A migration that changed a column's type under a statement this connection prepared
      // earlier: PostgreSQL refuses the stale plan. The query itself is sound; run it unnamed.
      if ((error as { code?: string }).code !== '0A000') throw error;
      return (await pool.query(sql, parameters)).rows;
    }
  });
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

/**
 * `pool.query({ name, text, values })`, without its cost: pg copies a config object through
 * its property descriptors (≈1.5-4 µs, the largest single cost of a lookup by id in node).
 * A Query built from the text alone skips that copy; its name, read when it is sent, makes it
 * the same named prepared statement. The pool then runs it as any query it is handed, calling
 * back with its result.
 */
function namedQuery(pool: pg.Pool, name: string, text: string, values: unknown[]): Promise<pg.QueryResult> {
  const query = new pg.Query(text, values);
  (query as pg.Query & { name: string }).name = name;
  // Typed as returning the Query (a stream-like submittable); at runtime the pool calls back.
  return pool.query(query as never) as unknown as Promise<pg.QueryResult>;
}

function createPglite(dataDir: string | undefined): DatabaseHandle {
  let dir: string | undefined;
  if (dataDir) {
    dir = join(dataDir, 'pglite');
    mkdirSync(dir, { recursive: true });
  }
  const pglite = new PGlite(dir, { parsers: { [INT8_OID]: toNumber, [NUMERIC_OID]: toNumber } });
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
  return {
    db,
    backend: 'pglite',
    ping: () => pingDatabase(db),
    poolStats: () => ({ max: 1, total: pglite.closed ? 0 : 1 }),
    close: () => db.destroy(),
  };
}

async function pingDatabase(db: Kysely<Database>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
