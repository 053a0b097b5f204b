/**
 * Compile once, run many. Kysely builds a query's operation tree and compiles it to SQL on
 * every call, a tenth of a catalogue request's CPU in the service (figures: apps/bench/BENCH.md,
 * "Where the service's CPU went"). A hot query has one shape per key (the values change, the
 * SQL does not), so it is compiled on first use with placeholders in place of its values, and
 * later calls only put their values into the parameter list. PostgreSQL and PGlite compile to
 * the same SQL, so one cache serves both backends.
 *
 * The rule for which path a query takes (also on DatabaseHandle.db): a hot statement whose SQL
 * depends only on its key is written with `runCompiled`, and on the handle's own `db` (a
 * DirectKysely, PostgreSQL only) it goes straight to the pg pool; in a transaction, on PGlite,
 * and for every query not written with `runCompiled`, it runs through Kysely.
 *
 * Why straight to the pool: Kysely's executor and connection provider add a dozen promise hops
 * per query, and PostgreSQL spends longer planning these short queries than running them, a
 * plan a named prepared statement can keep (DATABASE_PREPARED_STATEMENTS). Transactions and
 * PGlite (one connection, which Kysely's driver serialises) keep going through Kysely.
 */
import { createHash } from 'node:crypto';
import { type Compilable, CompiledQuery, Kysely, type KyselyConfig } from 'kysely';
import type { Database } from './schema.js';

/** Stands in for the value at `index` while the shape compiles; it may only become a parameter. */
class Placeholder {
  constructor(readonly index: number) {}
  toString(): string {
    throw new Error('a cached query inlined a value into its SQL instead of passing it as a parameter');
  }
}

interface Shape {
  sql: string;
  /** Statement name, the same on every server (a digest of the SQL); unset: run unnamed. */
  name: string | undefined;
  /** Per parameter: the value's index among the call's values, or a constant of the shape. */
  parameters: (Placeholder | { constant: unknown })[];
}

const shapes = new Map<string, Shape>();

/**
 * Runs one compiled statement on the pool; unnamed when `name` is undefined. `rowMode: 'array'`:
 * each row is its columns' values in the order selected (pg's array row mode), not an object.
 */
export type DirectExecutor = (statement: {
  name: string | undefined;
  sql: string;
  parameters: unknown[];
  rowMode: 'array' | undefined;
}) => Promise<unknown[]>;

/**
 * The database handle's Kysely on PostgreSQL, with the fast path in plain sight: `runCompiled`
 * on it sends the compiled SQL to `direct` (the pg pool) instead of through Kysely's executor.
 * Its transactions (and any instance Kysely derives from it, e.g. withPlugin) are plain Kysely
 * instances, so whatever runs in a transaction stays on that transaction's connection.
 */
export class DirectKysely extends Kysely<Database> {
  constructor(
    config: KyselyConfig,
    readonly direct: DirectExecutor,
  ) {
    super(config);
  }
}

/**
 * Runs `build(...values)`, compiling it only the first time `key` is seen. `key` must name
 * everything that changes the SQL text (a sort column, a direction); `values` are scalars that
 * only ever become parameters (not lists spread into `in (...)`). `prepare: false` for a query
 * whose plan must depend on its values: it is then sent unnamed and planned every time.
 */
export function runCompiled<const V extends readonly unknown[], R>(
  db: Kysely<Database>,
  key: string,
  values: V,
  build: (...values: V) => Compilable<R>,
  options: { prepare?: boolean } = {},
): Promise<R[]> {
  return run(db, key, values, build, options.prepare, undefined) as Promise<R[]>;
}

/**
 * runCompiled with each row as its columns' values, in the order the statement selects them
 * (pg's array row mode): no object with a key per column is made for each row, which a hot
 * read of many rows then maps by position (a catalogue page: apps/bench/BENCH.md, issue 25's
 * last gate). Off the direct path (a transaction, PGlite) Kysely's keyed rows are turned into
 * the same arrays, so a caller reads one shape on both backends.
 */
export function runCompiledColumns<const V extends readonly unknown[]>(
  db: Kysely<Database>,
  key: string,
  values: V,
  build: (...values: V) => Compilable<unknown>,
  options: { prepare?: boolean } = {},
): Promise<unknown[][]> {
  return run(db, key, values, build, options.prepare, 'array') as Promise<unknown[][]>;
}

function run<const V extends readonly unknown[]>(
  db: Kysely<Database>,
  key: string,
  values: V,
  build: (...values: V) => Compilable<unknown>,
  prepare: boolean | undefined,
  rowMode: 'array' | undefined,
): Promise<unknown[]> {
  // Not an async function: the query's own promise is returned, with no frame and no await of
  // this function's around it (each await a request makes is allocation and a microtask; the
  // hot statements run several per request). A failure to compile still rejects, never throws.
  try {
    let shape = shapes.get(key);
    if (!shape) {
      const placeholders = values.map((_, index) => new Placeholder(index)) as unknown as V;
      const compiled = build(...placeholders).compile();
      shape = {
        sql: compiled.sql,
        name:
          prepare === false
            ? undefined
            : `signal_${createHash('sha256').update(compiled.sql).digest('hex').slice(0, 24)}`,
        parameters: compiled.parameters.map((p) => (p instanceof Placeholder ? p : { constant: p })),
      };
      shapes.set(key, shape);
    }
    const parameters = shape.parameters.map((p) => (p instanceof Placeholder ? values[p.index] : p.constant));
    if (db instanceof DirectKysely) return db.direct({ name: shape.name, sql: shape.sql, parameters, rowMode });
    const rows = db.executeQuery(CompiledQuery.raw(shape.sql, parameters)).then(rowsOf);
    return rowMode ? rows.then(columnsOf) : rows;
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Keyed rows as their values in column order (the order a driver's row object keeps its keys in). */
const columnsOf = (rows: unknown[]): unknown[][] => rows.map((row) => Object.values(row as object));

/** A driver's result's rows (the executors' `.then`, here and in connect.ts). */
export const rowsOf = <R>(result: { rows: R[] }): R[] => result.rows;
