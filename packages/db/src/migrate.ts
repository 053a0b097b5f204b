import { type Kysely, sql } from 'kysely';
import { type MigrationResultSet, Migrator } from 'kysely/migration';
import { MIGRATION_LOCK_ID } from './connect.js';
import { isDatabaseUnavailable, isSchemaMissingCode } from './errors.js';
import { migrations } from './migrations/index.js';
import { type Database, TABLES } from './schema.js';

/**
 * Brings the schema to the latest version. Safe to run from several servers at once, directly
 * or through a transaction-mode pooler: everything runs in one transaction that first takes a
 * transaction-scoped advisory lock (released at commit or rollback, on the server connection
 * that took it, so no lock can outlive it on a pooled connection), and applied migrations are
 * recorded, so a second run does nothing. The lock comes first so that the migrator's own
 * bookkeeping tables are created by one server at a time.
 */
export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  const result: MigrationResultSet = await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK_ID)})`.execute(trx);
    const migrator = new Migrator({
      db: trx,
      provider: { getMigrations: async () => migrations },
      // Numbers are handed out to work landing in parallel, so a database may have run a later
      // number before an earlier one lands; each migration stands alone, so order of arrival is fine.
      allowUnorderedMigrations: true,
    });
    const outcome = await migrator.migrateToLatest();
    // Thrown inside the transaction so that nothing of a failed run is committed.
    if (outcome.error) throw outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error));
    return outcome;
  });
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Whether the database is ready for this code: `current` when the newest migration this build
 * knows is recorded and every table of the schema exists, `behind` when not (never migrated,
 * tables dropped, an older schema), `unreachable` when the query fails otherwise. One query.
 */
export async function schemaState(db: Kysely<Database>): Promise<'current' | 'behind' | 'unreachable'> {
  // Every migration, not only the highest number: numbers may arrive out of order.
  const names = migrationNames();
  try {
    const { rows } = await sql<{ migrated: boolean; tables: number }>`
      select (select count(*) from kysely_migration where name in (${sql.join(names)})) = ${names.length} as migrated,
             (select count(*)::int from pg_catalog.pg_tables
               where schemaname = current_schema() and tablename in (${sql.join([...TABLES])})) as tables`.execute(db);
    const row = rows[0];
    return row?.migrated && row.tables === TABLES.length ? 'current' : 'behind';
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && isSchemaMissingCode(code)) return 'behind';
    return isDatabaseUnavailable(error) ? 'unreachable' : 'behind';
  }
}

/** The names of every migration this build has, in order. */
export function migrationNames(): string[] {
  return Object.keys(migrations).sort();
}
