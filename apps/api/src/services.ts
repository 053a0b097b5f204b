/**
 * The composition root: builds the services whole (database, keys, codecs, metrics, replica),
 * then the host that serves them — the only module that imports every folder (README, "Where
 * things live"). What each layer may not import, it is handed here: http/ gets the router as an
 * AnyRouter, the cache policies from the procedures' meta and the OpenAPI document's text.
 */
import { join } from 'node:path';
import { DomainError } from '@signal/core';
import { createCursorCodec, cursorSecretFromSigningKey } from '@signal/core/cursor';
import { createEvmChainVerifier } from '@signal/core/evm-chain';
import { createNonceCodec, nonceSecretFromSigningKey } from '@signal/core/nonce';
import { createTokenService } from '@signal/core/token';
import { createDatabase, migrateToLatest, schemaState, seedDemoCatalogue, statementTimeout } from '@signal/db';
import type { Logger } from 'pino';
import type { Config } from './config/config.js';
import { prepareDataDir, restrictToOwner } from './config/data-dir.js';
import { resolveSigningKey } from './config/keys.js';
import { resolveLogSigner } from './config/log-key.js';
import { answerCacheMetrics, restCaching } from './http/caching.js';
import { createHandler, type Handler, logFailure, type StreamHandler } from './http/handler.js';
import { trpcStreamHandler } from './http/trpc-stream.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { eventMetrics } from './ops/event-metrics.js';
import { type FeedPump, startFeedPump } from './ops/feed-pump.js';
import { liveEventReader } from './ops/live-events.js';
import { liveMetrics, type StartedLiveHub, startLiveHub } from './ops/live-hub.js';
import { createLogSequencer } from './ops/log-sequencer.js';
import { createLogger, withUrlRedaction } from './ops/logger.js';
import { answerScrape, createMetrics, type Metrics, replicaMetrics } from './ops/metrics.js';
import { createServiceKeyUsage, type ServiceKeyUsage } from './ops/service-key-usage.js';
import { AVATAR_PATH, renderAvatar } from './pages/avatar.js';
import { docsRoutes } from './pages/docs.js';
import { LOG_TILE_PREFIX, logFileRoutes } from './pages/log-files.js';
import { webRoutes } from './pages/web.js';
import { cachePolicies, cacheReads } from './procedures/cache-policy.js';
import { contextFactory, type LiveHub, type Services } from './procedures/context.js';
import { openReadReplica } from './procedures/read-replica.js';
import { appRouter } from './procedures/routers/index.js';
import { signInDomainWarning } from './procedures/sign-in.js';
import { createStreamSlots } from './procedures/stream-slots.js';
import { toWireError } from './wire/errors.js';
import { sendError, sendJson } from './wire/respond.js';

/** How often the feed pump numbers what committed and looks for a new head (ops/feed-pump.ts). */
const FEED_PUMP_MS = 200;
const READY_TIMEOUT_MS = 2_000;

export interface ServiceOptions {
  config: Config;
  /** Clock for nonces and tokens; tests inject one to reach expiry. */
  now?: () => Date;
  logger?: Logger;
}

export interface BuiltServices {
  services: Services;
  /** The whole of /metrics (procedures see only the counters they feed): set with METRICS or METRICS_PORT. */
  metrics?: Metrics;
  /** The process's feed pump (stopped by the server's stop), which services.feed reads. */
  pump: FeedPump;
  /** lastUsedAt gathered for services.keyUsage, flushed at stop. */
  keyUsage: ServiceKeyUsage;
  /** The process's live hub (signals.live), which services.live is; stopped by the server's stop. */
  live: StartedLiveHub;
}

/** Opens the database (migrated, seeded when asked) and builds every service on it. */
export async function createServices(options: ServiceOptions): Promise<BuiltServices> {
  const { config } = options;
  const log = withUrlRedaction(options.logger ?? createLogger(config.logLevel), [config.adminKey]);
  const domainWarning = signInDomainWarning(config);
  if (domainWarning) log.warn(domainWarning);
  // DATA_DIR holds the embedded database and the generated key; with neither, it is not used.
  const dataDir = config.databaseUrl && config.jwtPrivateKey && config.logPrivateKey ? undefined : config.dataDir;
  if (dataDir) await prepareDataDir(dataDir);
  // Before the database: a key refused (see keys.ts) stops the start before anything is written.
  const privateKeyPem = await resolveSigningKey(config.jwtPrivateKey, config.dataDir);
  const logSigner = await resolveLogSigner(config);
  const database = createDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    preparedStatements: config.databasePreparedStatements,
  });
  let replica: Awaited<ReturnType<typeof openReadReplica>>;
  try {
    const applied = await migrateToLatest(database.db);
    if (applied.length > 0) log.info({ applied }, 'migrations applied');
    if (database.backend === 'postgres' && (await statementTimeout(database.db)) === '0') {
      log.warn(
        'statement_timeout is off for this role and database: a stuck statement holds its request until TCP ' +
          "gives up. Set one on the server, e.g. ALTER ROLE <role> SET statement_timeout = '10s' (see docs/deployment.md)",
      );
    }
    if (config.seedProviders > 0) {
      const seeded = await seedDemoCatalogue(database.db, { providers: config.seedProviders });
      if (seeded) log.info(seeded, 'demo catalogue seeded');
    }
    if (dataDir && !config.databaseUrl) await restrictToOwner(join(dataDir, 'pglite'));
    const now = options.now ?? (() => new Date());
    const tokens = await createTokenService({
      privateKeyPem,
      previousPublicKeyPems: config.jwtPreviousPublicKeys,
      issuer: config.jwtIssuer,
      audience: config.jwtAudience,
      now,
    });
    const metrics = config.metrics || config.metricsPort !== undefined ? await createMetrics(database) : undefined;
    const evmChain = config.evmRpcUrl
      ? createEvmChainVerifier({
          rpcUrl: config.evmRpcUrl,
          timeoutMs: config.evmRpcTimeoutMs,
          maxConcurrent: config.evmRpcMaxConcurrent,
          maxCallsPerMinute: config.evmRpcMaxCallsPerMinute,
          gasCap: BigInt(config.evmRpcGasCap),
          onOutcome: (outcome) => metrics?.chainCheck(outcome),
          now: () => now().getTime(),
        })
      : undefined;
    const nonces = createNonceCodec(nonceSecretFromSigningKey(privateKeyPem));
    const cursors = createCursorCodec(cursorSecretFromSigningKey(privateKeyPem));
    const pump = startFeedPump({ database, log }, { intervalMs: FEED_PUMP_MS });
    const keyUsage = createServiceKeyUsage({ database, log });
    const logSequencer = createLogSequencer({ database, log }, logSigner);
    replica = await openReadReplica(config, database, log);
    const services: Services = {
      config,
      database,
      tokens,
      nonces,
      cursors,
      now,
      log,
      evmChain,
      feed: pump,
      streams: createStreamSlots({
        perCredential: config.streamsPerCredential,
        perAddress: config.streamsPerAddress,
        total: config.streamsMax,
      }),
      // Set once the rest is built (the hub reads through the services): just below.
      live: undefined as unknown as LiveHub,
      keyUsage,
      logSequencer,
      ...(metrics ? { metrics } : {}),
      ...(replica ? { replica } : {}),
    };
    const live = startLiveHub(services, liveEventReader(services));
    services.live = live;
    if (metrics) {
      liveMetrics(metrics, live);
      eventMetrics(metrics, services);
      if (replica) replicaMetrics(metrics, replica);
    }
    return { services, pump, keyUsage, live, ...(metrics ? { metrics } : {}) };
  } catch (error) {
    await replica?.close().catch(() => {});
    await database.close().catch(() => {});
    throw error;
  }
}

export interface HostOptions {
  /** The built demo app served at `/`; default apps/web/dist next to this package. */
  webDistDir?: string;
  /** True once a graceful stop has begun: /ready answers 503. */
  isClosing: () => boolean;
}

/** The request handler over the services, and the handler of the event streams (closed at stop). */
export function createHost(built: BuiltServices, options: HostOptions): { handle: Handler; streams: StreamHandler } {
  const { services, metrics } = built;
  const { isClosing } = options;
  const createContext = contextFactory(services);
  const streams = trpcStreamHandler({
    router: appRouter,
    createContext: (req, res) => createContext({ req, res }),
    onError: (error, wire, req) => logFailure(services.log, error, wire, req),
  });
  const { replica } = services;
  const caching = restCaching({
    config: services.config,
    now: services.now,
    primary: (query) => query(services.database.db),
    ...(replica ? { replica } : {}),
    policies: cachePolicies(appRouter, services),
    documentText: () => JSON.stringify(buildOpenApiDocument()),
    ...cacheReads(services),
  });
  if (metrics) answerCacheMetrics(metrics, caching);
  const { logSequencer } = services;
  const logFiles = logFileRoutes({
    db: services.database.db,
    checkpoint: () => logSequencer.checkpoint(),
    verifierKey: logSequencer.verifierKey,
  });

  const routes: Record<string, Handler> = {
    // First, so that no file of the web build can take an API path.
    ...webRoutes({ distDir: options.webDistDir, log: services.log }),
    '/health': async (_req, res) => sendJson(res, 200, { status: 'ok' }),
    '/ready': async (_req, res) => {
      if (isClosing()) throw new DomainError('SERVICE_UNAVAILABLE', 'The server is shutting down');
      // Not only a connection: the schema this build needs must be there (migrated, tables present).
      const state = await Promise.race([
        schemaState(services.database.db),
        new Promise<'unreachable'>((resolve) => setTimeout(() => resolve('unreachable'), READY_TIMEOUT_MS).unref()),
      ]);
      // A stop that began while the schema was being read: not ready either.
      if (isClosing()) throw new DomainError('SERVICE_UNAVAILABLE', 'The server is shutting down');
      if (state === 'current') sendJson(res, 200, { status: 'ready' });
      else {
        const message = state === 'behind' ? 'The database schema is not migrated' : 'The database is not answering';
        sendError(res, toWireError(new DomainError('SERVICE_UNAVAILABLE', message)));
      }
    },
    '/.well-known/jwks.json': async (_req, res) =>
      sendJson(res, 200, services.tokens.jwks(), { 'Cache-Control': 'public, max-age=300' }),
    '/openapi.json': async (req, res) => caching.openApi(req, res),
    ...docsRoutes(),
    ...logFiles.routes,
    ...(metrics && services.config.metrics ? { '/metrics': (_req, res) => answerScrape(metrics, res) } : {}),
  };

  const handle = createHandler({
    router: appRouter,
    createContext,
    caching,
    streams,
    log: services.log,
    corsOrigins: services.config.corsOrigins,
    ...(metrics ? { metrics } : {}),
    routes,
    prefixRoutes: { [LOG_TILE_PREFIX]: logFiles.tiles },
    avatar: { path: AVATAR_PATH, render: renderAvatar },
  });
  return { handle, streams };
}
