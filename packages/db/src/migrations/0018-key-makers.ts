import { sql } from 'kysely';
import { statementsMigration } from './statements.js';

/**
 * Who made a service key (CONTRACT.md, Version 4, "Changes to earlier versions"; issue 42): the
 * key that made it, or null for ADMIN_KEY (`"createdBy": "admin"`). A key made by a key expires
 * no later than its maker and is revoked with it, transitively: revoking walks the makers' tree
 * down this column (service-key.queries.ts), so the index serves that walk. Keys made before
 * this migration have no recorded maker and read as made by ADMIN_KEY.
 */
export const { up } = statementsMigration([
  sql`alter table service_keys add column created_by text references service_keys (id)`,
  sql`create index service_keys_created_by_idx on service_keys (created_by) where created_by is not null`,
]);
