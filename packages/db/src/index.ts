export * from './auth.queries.js';
export { type Backend, createDatabase, type DatabaseHandle, type DatabaseOptions } from './connect.js';
export { isDatabaseUnavailable, isForeignKeyViolation } from './errors.js';
export { migrateToLatest } from './migrate.js';
export type { Database } from './schema.js';
export * from './user.queries.js';
