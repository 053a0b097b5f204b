export { type ApiModule, apiStarter, type StartOptions, TEST_SERVICE_ENV, type TestApi } from './api.js';
export { freePort } from './free-port.js';
export {
  buildGoLogCheck,
  GoLogCheckError,
  type GoLogCheckOptions,
  type GoLogCheckSummary,
  verifyLogWithGo,
} from './go-log-check.js';
export {
  MissingToolError,
  type PgBouncer,
  reroute,
  startPgBouncer,
  waitForDatabase,
} from './local-servers.js';
export { type LogFixture, startLogFixture } from './log-fixture.js';
export {
  MIGRATED_DATABASE_VARIABLE,
  MIGRATED_PGLITE_VARIABLE,
  type Migrations,
  makeMigratedTemplates,
} from './migrated-templates.js';
export { type ReplicatedClusters, replicaToolsMissing, startReplicatedClusters } from './replica-clusters.js';
export {
  BACKENDS,
  type Backend,
  createPooledScratchDatabase,
  createScratchDatabase,
  type PooledScratchDatabase,
  type ScratchDatabase,
  serviceDatabaseUrl,
  TEST_ADMIN_URL,
} from './scratch-database.js';
