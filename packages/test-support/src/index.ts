export { type ApiModule, apiStarter, type StartOptions, TEST_SERVICE_ENV, type TestApi } from './api.js';
export { freePort } from './free-port.js';
export {
  MissingToolError,
  type PgBouncer,
  type ReplicatedClusters,
  replicaToolsMissing,
  reroute,
  startPgBouncer,
  startReplicatedClusters,
  waitForDatabase,
} from './local-servers.js';
export {
  BACKENDS,
  type Backend,
  createScratchDatabase,
  type ScratchDatabase,
  serviceDatabaseUrl,
  TEST_ADMIN_URL,
} from './scratch-database.js';
