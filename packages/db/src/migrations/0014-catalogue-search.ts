import { sql } from 'kysely';
import { statementsMigration } from './statements.js';

/**
 * Searching the catalogue (`GET /providers`, CONTRACT.md Version 3): indexes for the name
 * search and the sorts on performance figures. Plans: docs/design.md, "Searching the catalogue".
 *
 * Name search: a trigram index, so that `name ILIKE '%text%'` reads the index entries of the
 * pattern's trigrams instead of every name. pg_trgm ships with PostgreSQL (contrib; trusted, so
 * the database owner may create it) and with PGlite (loaded by the factory, connect.ts). GIN
 * rather than GiST: exact posting lists, faster to read, the usual choice for a table read far
 * more often than its names change.
 *
 * Figure sorts: one btree per sort ending in id (the tie-break), partial like the other public
 * sort indexes (migration 0010), so a page (and a cursor page at any depth) is a range of index
 * entries. A nullable figure sorts its nulls last in both orders, which one btree cannot give:
 * (x, id) read forwards is x ascending with nulls last; x descending with nulls last is
 * (x nulls first, id) read backwards. So each ROI figure has both.
 */
export const { up } = statementsMigration([
  sql`create extension if not exists pg_trgm`,
  sql`create index providers_name_trgm_idx on providers using gin (name gin_trgm_ops) where archived_at is null`,
  ...(['roi_7d_pct', 'roi_30d_pct', 'roi_90d_pct', 'roi_all_pct'] as const).flatMap((column) => [
    sql`create index ${sql.id(`providers_${column}_id_idx`)} on providers (${sql.ref(column)}, id) where archived_at is null`,
    sql`create index ${sql.id(`providers_${column}_nf_id_idx`)} on providers (${sql.ref(column)} nulls first, id) where archived_at is null`,
  ]),
  ...(['max_drawdown_pct', 'win_rate', 'trading_days'] as const).map(
    (column) =>
      sql`create index ${sql.id(`providers_${column}_id_idx`)} on providers (${sql.ref(column)}, id) where archived_at is null`,
  ),
]);
