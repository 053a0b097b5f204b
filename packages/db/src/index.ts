export * from './answer-versions.queries.js';
export * from './auth.queries.js';
export * from './catalogue-version.queries.js';
export * from './catalogue-write.queries.js';
export {
  type Backend,
  createDatabase,
  type DatabaseHandle,
  type DatabaseOptions,
  type PoolStats,
  statementTimeout,
} from './connect.js';
export { isDatabaseUnavailable, isForeignKeyViolation, isUniqueViolation } from './errors.js';
export * from './event-relay.queries.js';
export * from './events.queries.js';
export * from './follow.queries.js';
export * from './idempotency.queries.js';
export * from './live.queries.js';
export * from './log.queries.js';
export * from './log-sequencer.js';
export * from './log-tile-cache.js';
export { migrateToLatest, migrationNames, schemaState } from './migrate.js';
export * from './new-user-limit.queries.js';
export * from './paging.js';
export * from './performance.queries.js';
export * from './provider.queries.js';
export { nameIndexCanNarrow } from './provider-list.parts.js';
export { listProviders } from './provider-list.queries.js';
export * from './publisher.queries.js';
export * from './publisher-key.queries.js';
export * from './purge.queries.js';
export * from './rate-limit.queries.js';
export { createReadReplica, type ReadReplica, type ReadReplicaOptions, type ReplicaEvent } from './replica.js';
export type { Database } from './schema.js';
export { type SeedResult, seedDemoCatalogue } from './seed.js';
export * from './service-key.queries.js';
export * from './session.queries.js';
export * from './signal.queries.js';
export * from './signal-read.queries.js';
export * from './user.queries.js';
export * from './wallet.queries.js';
export * from './webhook.queries.js';
export * from './webhook-delivery.queries.js';
export * from './webhook-log.queries.js';
