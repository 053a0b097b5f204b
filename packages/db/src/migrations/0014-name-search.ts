import { sql } from 'kysely';
import { statementsMigration } from './statements.js';

/**
 * Name search (`GET /providers?q=`): a trigram index, so that `name ILIKE '%text%'` reads the
 * index entries of the pattern's trigrams instead of every name. pg_trgm ships with PostgreSQL
 * (contrib; trusted, so the database owner may create it) and with PGlite (loaded by the factory,
 * connect.ts). GIN rather than GiST: exact posting lists, faster to read, the usual choice for a
 * table read far more often than its names change. Why ILIKE over trigrams and not full-text
 * search or lower(name) indexes: docs/design.md, "Searching the catalogue".
 */
export const { up } = statementsMigration([
  sql`create extension if not exists pg_trgm`,
  sql`create index providers_name_trgm_idx on providers using gin (name gin_trgm_ops)`,
]);
