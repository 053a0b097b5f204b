import { sql } from 'kysely';
import { statementsMigration } from './statements.js';

/**
 * Sorting the catalogue on performance figures (`GET /providers`, CONTRACT.md Version 3); the
 * name search's index is migration 0014. Plans: docs/design.md, "Searching the catalogue".
 *
 * Figure sorts: one btree per sort ending in id (the tie-break), partial like the other public
 * sort indexes (migration 0010), so a page (and a cursor page at any depth) is a range of index
 * entries. A nullable figure sorts its nulls last in both orders, which one btree cannot give:
 * (x, id) read forwards is x ascending with nulls last; x descending with nulls last is
 * (x nulls first, id) read backwards. So each ROI figure has both.
 */
export const { up } = statementsMigration([
  ...(['roi_7d_pct', 'roi_30d_pct', 'roi_90d_pct', 'roi_all_pct'] as const).flatMap((column) => [
    sql`create index ${sql.id(`providers_${column}_id_idx`)} on providers (${sql.ref(column)}, id) where archived_at is null`,
    sql`create index ${sql.id(`providers_${column}_nf_id_idx`)} on providers (${sql.ref(column)} nulls first, id) where archived_at is null`,
  ]),
  ...(['max_drawdown_pct', 'win_rate', 'trading_days'] as const).map(
    (column) =>
      sql`create index ${sql.id(`providers_${column}_id_idx`)} on providers (${sql.ref(column)}, id) where archived_at is null`,
  ),
]);
