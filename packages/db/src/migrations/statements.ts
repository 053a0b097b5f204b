import type { Kysely, RawBuilder } from 'kysely';
import type { Migration } from 'kysely/migration';

/**
 * A migration made of SQL statements run one per query: PGlite runs queries through the
 * extended protocol, which takes a single command at a time.
 */
export function statementsMigration(statements: RawBuilder<unknown>[]): Migration {
  return {
    async up(db: Kysely<unknown>) {
      for (const statement of statements) await statement.execute(db);
    },
  };
}
