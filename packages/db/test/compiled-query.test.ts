/**
 * Queries compiled once and, when the operator turns it on, run as named prepared statements on
 * PostgreSQL: they must answer like freshly built ones, with each call's own values, and survive
 * a schema change under a statement a pooled connection prepared before it. Off (the default),
 * nothing is prepared on the server: a transaction-mode pooler may hand the connection on.
 */

import { createScratchDatabase, type ScratchDatabase } from '@signal/test-support';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCompiled, runCompiledColumns } from '../src/compiled-query.js';
import { createDatabase, type DatabaseHandle, findProvider, findProviderStats, migrateToLatest } from '../src/index.js';
import { PROVIDER_COLUMN_NAMES, PROVIDER_COLUMNS, providerOf, providerOfRow } from '../src/provider.queries.js';

describe('compiled queries on postgres', () => {
  let scratch: ScratchDatabase;
  let database: DatabaseHandle;
  beforeAll(async () => {
    scratch = await createScratchDatabase();
    // One connection, so every call reuses the statements that connection prepared.
    database = createDatabase({ url: scratch.url, poolSize: 1, preparedStatements: true });
    await migrateToLatest(database.db);
    await database.db
      .insertInto('providers')
      .values([
        { name: 'First', description: null, avatar_url: null, follower_count: 0 },
        { name: 'Second', description: 'd', avatar_url: null, follower_count: 0 },
      ])
      .execute();
  });
  afterAll(async () => {
    await database.close();
    await scratch.drop();
  });

  it('passes each call its own values', async () => {
    for (let round = 0; round < 8; round++) {
      expect((await findProvider(database.db, 1))?.name).toBe('First');
      expect((await findProvider(database.db, 2))?.name).toBe('Second');
      expect(await findProvider(database.db, 3)).toBeUndefined();
      const stats = await findProviderStats(database.db, 2, new Date());
      expect(stats).toMatchObject({ providerId: 2, followersGained7d: 0, followersGained30d: 0 });
    }
  });

  it('runs them as named statements, prepared once on the connection', async () => {
    await findProvider(database.db, 1);
    await findProvider(database.db, 2);
    // The pool's only connection: the statements it prepared are listed in its session.
    const { rows } = await sql<{ name: string; calls: number }>`
      select name, generic_plans + custom_plans as calls from pg_prepared_statements where name like 'signal_%'
    `.execute(database.db);
    const lookups = rows.filter((row) => row.calls >= 2);
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(lookups.length, JSON.stringify(rows)).toBeGreaterThanOrEqual(1);
  });

  it('prepares nothing on the server unless turned on', async () => {
    const unprepared = createDatabase({ url: scratch.url, poolSize: 1 });
    try {
      expect((await findProvider(unprepared.db, 1))?.name).toBe('First');
      expect((await findProvider(unprepared.db, 2))?.name).toBe('Second');
      const { rows } = await sql<{ name: string }>`select name from pg_prepared_statements`.execute(unprepared.db);
      expect(rows).toEqual([]);
    } finally {
      await unprepared.close();
    }
  });

  it("runs on the transaction's own connection inside a transaction, not the direct path", async () => {
    // Two connections: were the compiled lookup sent straight to the pool, it would run on the
    // other one and miss the row this transaction has not committed yet.
    const twoConnections = createDatabase({ url: scratch.url, poolSize: 2, preparedStatements: true });
    try {
      await twoConnections.db
        .transaction()
        .execute(async (trx) => {
          const { id } = await trx
            .insertInto('providers')
            .values({ name: 'Uncommitted', description: null, avatar_url: null, follower_count: 0 })
            .returning('id')
            .executeTakeFirstOrThrow();
          expect((await findProvider(trx, id))?.name).toBe('Uncommitted');
          expect(await findProvider(twoConnections.db, id)).toBeUndefined();
          throw new Error('roll back');
        })
        .catch((error: Error) => expect(error.message).toBe('roll back'));
    } finally {
      await twoConnections.close();
    }
  });

  it('reads rows as their columns in order (array row mode), named, unnamed and in a transaction', async () => {
    const unprepared = createDatabase({ url: scratch.url, poolSize: 1 });
    const build = (handle: DatabaseHandle['db']) => (id: number) =>
      handle
        .selectFrom('providers')
        .select(['id', 'name', 'description', 'follower_count', sql<string>`version::text`.as('version')])
        .where('id', '<=', id)
        .orderBy('id');
    try {
      const keyed = await runCompiled(database.db, 'columnsTest:keyed', [2], build(database.db));
      const expected = keyed.map((row) => Object.values(row));
      expect(expected).toEqual([
        [1, 'First', null, 0, expect.any(String)],
        [2, 'Second', 'd', 0, expect.any(String)],
      ]);
      for (let round = 0; round < 3; round++) {
        expect(await runCompiledColumns(database.db, 'columnsTest', [2], build(database.db))).toEqual(expected);
        expect(await runCompiledColumns(unprepared.db, 'columnsTest', [2], build(unprepared.db))).toEqual(expected);
        // The pool's type parsers apply to array rows too: ids (bigint) are numbers.
        expect(await runCompiledColumns(database.db, 'columnsTest', [1], build(database.db))).toEqual([expected[0]]);
      }
      await database.db.transaction().execute(async (trx) => {
        expect(await runCompiledColumns(trx, 'columnsTest', [2], build(trx))).toEqual(expected);
      });
    } finally {
      await unprepared.close();
    }
  });

  it('maps an array row of PROVIDER_COLUMNS and the keyed row to the Provider the columns hold, field by field (providerOf)', async () => {
    // Every column a distinct, non-null value, so a column read from the wrong position shows.
    await database.db
      .updateTable('providers')
      .set({
        avatar_url: 'https://example.com/a.png',
        follower_count: 7,
        roi_30d_pct: 12.5,
        max_drawdown_pct: 3.25,
        win_rate: 0.625,
        reveal_delay_seconds: 90,
      })
      .where('id', '=', 2)
      .execute();
    const build = (id: number) =>
      database.db.selectFrom('providers as p').select(PROVIDER_COLUMNS).where('p.id', '=', id);
    const [keyed] = await runCompiled(database.db, 'providerOfTest:keyed', [2], build);
    const [columns] = await runCompiledColumns(database.db, 'providerOfTest', [2], build);
    expect(keyed).toBeDefined();
    // The wire's name of each column is its camelCase (avatar_url: avatarUrl), read here by name:
    // a line of providerOf at the wrong position, or a column it leaves out, shows as a difference.
    const row = keyed as Record<string, unknown>;
    expect(Object.keys(row)).toEqual([...PROVIDER_COLUMN_NAMES]);
    const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    const expected = Object.fromEntries(PROVIDER_COLUMN_NAMES.map((name) => [camel(name), row[name]]));
    expect(expected).toMatchObject({
      avatarUrl: 'https://example.com/a.png',
      followerCount: 7,
      revealDelaySeconds: 90,
    });
    // Every column a distinct value (a new column set above too), so a swapped position shows.
    expect(new Set(Object.values(expected)).size).toBe(PROVIDER_COLUMN_NAMES.length);
    expect(providerOf(columns as unknown[])).toEqual(expected);
    expect(providerOfRow(row)).toEqual(expected);
    expect(await findProvider(database.db, 2)).toEqual(expected);
  });

  it('still answers after a column type changes under a prepared statement', async () => {
    expect((await findProvider(database.db, 1))?.name).toBe('First');
    await sql`alter table providers alter column description type varchar(500)`.execute(database.db);
    expect((await findProvider(database.db, 2))?.description).toBe('d');
    expect((await findProvider(database.db, 2))?.description).toBe('d');
  });
});
