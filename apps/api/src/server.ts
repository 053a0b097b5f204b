/**
 * The HTTP host: plain node:http with a small dispatch in front of the two transports.
 * `/trpc/*` goes to the tRPC dispatch (http/trpc.ts), every other path to the REST mapping of the
 * same procedures (their trpc-to-openapi meta, see rest.ts); both run the procedures through
 * run-procedure.ts (tRPC's procedure call, leaner) and report failures through toWireError.
 */
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DomainError } from '@signal/core';
import { createCursorCodec, cursorSecretFromSigningKey } from '@signal/core/cursor';
import { createEvmChainVerifier } from '@signal/core/evm-chain';
import { createNonceCodec, nonceSecretFromSigningKey } from '@signal/core/nonce';
import { createTokenService } from '@signal/core/token';
import { secp256k1Backend } from '@signal/core/verify';
import {
  createDatabase,
  migrateToLatest,
  type ReadReplica,
  schemaState,
  seedDemoCatalogue,
  statementTimeout,
} from '@signal/db';
import type { Logger } from 'pino';
import type { Config } from './config/config.js';
import { prepareDataDir, restrictToOwner } from './config/data-dir.js';
import { resolveSigningKey } from './config/keys.js';
import { trpcHandler } from './fast-path/trpc-dispatch.js';
import { answerCacheMetrics, restCaching } from './http/caching.js';
import { limitConnections, timeoutOptions } from './http/connection-limits.js';
import { applyCors } from './http/cors.js';
import { sendError, sendJson } from './http/respond.js';
import { callRestProcedure, noRoute, restInput, restRouter } from './http/rest.js';
import { trpcStreamHandler } from './http/trpc-stream.js';
import { eventMetrics } from './ops/event-metrics.js';
import { type EventRelay, relayMetrics, startEventRelay } from './ops/event-relay.js';
import { createFeedWatcher } from './ops/feed-watcher.js';
import { createLogger } from './ops/logger.js';
import { type Maintenance, startMaintenance } from './ops/maintenance.js';
import { answerScrape, createMetrics, setRoute, trpcRoute } from './ops/metrics.js';
import { webhookMetrics } from './ops/webhook-metrics.js';
import { startWebhookWorker, type WebhookWorker, webhookWarnings } from './ops/webhook-worker.js';
import { AVATAR_PATH, renderAvatar } from './pages/avatar.js';
import { docsRoutes } from './pages/docs.js';
import { webRoutes } from './pages/web.js';
import { contextFactory, requestLog, type Services, setRequestId } from './procedures/context.js';
import { openReadReplica, replicaMetrics } from './procedures/read-replica.js';
import { answersCheckedByZodAlone, appRouter } from './procedures/routers/index.js';
import { flushServiceKeyUsage } from './procedures/service-key-usage.js';
import { signInDomainWarning } from './procedures/sign-in.js';
import { readJsonBody } from './wire/body.js';
import { rootCause, toWireError, type WireError } from './wire/errors.js';
import { answerClientError, answerConnect, MAX_HEADER_BYTES, parseRequestTarget } from './wire/limits.js';
import { isTrpcTarget, limitTrpcBatch, sendTrpcError } from './wire/trpc-errors.js';

export interface ServerOptions {
  config: Config;
  /** Clock for nonces and tokens; tests inject one to reach expiry. */
  now?: () => Date;
  logger?: Logger;
  /** The built demo app served at `/`; default apps/web/dist next to this package. */
  webDistDir?: string;
}

export interface RunningServer {
  url: string;
  port: number;
  services: Services;
  /** Where METRICS_PORT serves /metrics, when set. */
  metricsUrl?: string;
}

/** How long a graceful stop waits for in-flight requests before closing their sockets. */
const SHUTDOWN_GRACE_MS = 10_000;
const READY_TIMEOUT_MS = 2_000;
/** How often the feed's head is polled while a stream or the relay waits (events/feed-watcher.ts). */
const FEED_POLL_MS = 200;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;
type StreamHandler = ReturnType<typeof trpcStreamHandler>;

export function createServer(options: ServerOptions) {
  const { config } = options;
  let server: Server | undefined;
  let services: Services | undefined;
  let maintenance: Maintenance | undefined;
  let metricsListener: { url: string; close(): Promise<void> } | undefined;
  let closing = false;
  let replica: ReadReplica | undefined;
  let webhooks: WebhookWorker | undefined;
  let relay: EventRelay | undefined;
  let streams: StreamHandler | undefined;
  const inFlight = handlersInFlight();

  async function start(): Promise<RunningServer> {
    const log = options.logger ?? createLogger(config.logLevel);
    const domainWarning = signInDomainWarning(config);
    if (domainWarning) log.warn(domainWarning);
    // DATA_DIR holds the embedded database and the generated key; with neither, it is not used.
    const dataDir = config.databaseUrl && config.jwtPrivateKey ? undefined : config.dataDir;
    if (dataDir) await prepareDataDir(dataDir);
    // Before the database: a key refused (see keys.ts) stops the start before anything is written.
    const privateKeyPem = await resolveSigningKey(config.jwtPrivateKey, config.dataDir);
    const database = createDatabase({
      url: config.databaseUrl,
      dataDir: config.dataDir,
      poolSize: config.databasePoolSize,
      preparedStatements: config.databasePreparedStatements,
    });
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
      const evmChain = config.evmRpcUrl
        ? createEvmChainVerifier({
            rpcUrl: config.evmRpcUrl,
            timeoutMs: config.evmRpcTimeoutMs,
            maxConcurrent: config.evmRpcMaxConcurrent,
            maxCallsPerMinute: config.evmRpcMaxCallsPerMinute,
            gasCap: BigInt(config.evmRpcGasCap),
            // Metrics are made below; a check only runs once the server serves.
            onOutcome: (outcome) => services?.metrics?.chainCheck(outcome),
            now: () => now().getTime(),
          })
        : undefined;
      const nonces = createNonceCodec(nonceSecretFromSigningKey(privateKeyPem));
      const cursors = createCursorCodec(cursorSecretFromSigningKey(privateKeyPem));
      const feedWatcher = createFeedWatcher({ database, log }, { intervalMs: FEED_POLL_MS });
      services = { config, database, tokens, nonces, cursors, now, log, evmChain, feedWatcher };
      if (config.metrics || config.metricsPort !== undefined) {
        services.metrics = await createMetrics(database);
        eventMetrics(services.metrics, services);
      }
      replica = await openReadReplica(config, database, log);
      if (replica) {
        services.replica = replica;
        if (services.metrics) replicaMetrics(services.metrics, replica);
      }
    } catch (error) {
      await replica?.close().catch(() => {});
      await database.close().catch(() => {});
      throw error;
    }

    const isClosing = () => closing;
    streams = trpcStreamHandler({
      router: appRouter,
      createContext: (req, res) => contextFactory(services as Services)({ req, res }),
      onError: (error, wire, req) => logFailure(services as Services, error, wire, req),
    });
    const handle = inFlight.track(buildHandler(services, options.webDistDir, isClosing, streams));
    server = createHttpServer(
      { maxHeaderSize: MAX_HEADER_BYTES, ServerResponse: responseClass(isClosing), ...timeoutOptions(config) },
      handle,
    );
    // After the database is open: the default cap counts the descriptors it holds.
    const maxConnections = limitConnections(server, config, config.trustProxy);
    server.on('clientError', answerClientError);
    server.on('connect', answerConnect);
    // An Expect other than 100-continue: node would answer 417 with an empty body. The
    // expectation is ignored (RFC 9110 allows it) and the request served as usual.
    server.on('checkExpectation', handle);
    const httpServer = server;
    await new Promise<void>((resolve, reject) => {
      httpServer.once('error', reject);
      httpServer.listen(config.port, config.host, () => {
        httpServer.off('error', reject);
        resolve();
      });
    });
    const { port } = httpServer.address() as AddressInfo;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
    if (services.metrics && config.metricsPort !== undefined) {
      metricsListener = await services.metrics.listen(config.metricsPort, config.host);
    }
    const secp256k1 = secp256k1Backend();
    services.log.info(
      {
        url,
        backend: services.database.backend,
        secp256k1,
        maxConnections,
        metrics: metricsListener?.url ?? config.metrics,
      },
      'listening',
    );
    if (secp256k1 === 'js') {
      services.log.warn(
        'secp256k1: the native binding did not load, so EVM signatures are checked by the pure-JS fallback (much slower); reinstall on a supported platform or rebuild the secp256k1 package',
      );
    }
    if (answersCheckedByZodAlone.length > 0) {
      services.log.info(
        { procedures: answersCheckedByZodAlone },
        'answers checked by zod alone: their schemas are beyond the compiled answer check (apps/api/src/answer-checks.ts)',
      );
    }
    maintenance = startMaintenance(services);
    for (const warning of webhookWarnings(config)) services.log.warn(warning);
    const onDelivery = services.metrics && (await webhookMetrics(services.metrics, services));
    webhooks = startWebhookWorker(services, { onOutcome: onDelivery });
    if (config.eventBusUrl) {
      relay = startEventRelay(services, services.feedWatcher, config.eventBusUrl);
      relayMetrics(services, relay);
    }
    return { url, port, services, ...(metricsListener ? { metricsUrl: metricsListener.url } : {}) };
  }

  /**
   * /ready turns 503 at once (and answers say Connection: close); after SHUTDOWN_DELAY_SECONDS
   * of serving so, for a balancer to notice, stops accepting, lets in-flight requests finish,
   * then closes the database pool.
   */
  async function stop(): Promise<void> {
    if (closing) return;
    closing = true;
    // Webhook attempts in flight finish (or are released for another server) while requests drain.
    const webhooksStopped = webhooks?.stop(SHUTDOWN_GRACE_MS);
    if (config.shutdownDelaySeconds > 0) await new Promise((r) => setTimeout(r, config.shutdownDelaySeconds * 1000));
    const httpServer = server;
    if (httpServer) {
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeIdleConnections();
      // Open event streams end now; their clients resume elsewhere from their last event id.
      streams?.closeAll();
      let forced!: () => void;
      const deadline = new Promise<void>((resolve) => {
        forced = resolve;
      });
      const force = setTimeout(() => {
        httpServer.closeAllConnections();
        forced();
      }, SHUTDOWN_GRACE_MS);
      await closed;
      // A request whose client went away is no connection any more, but its handler may still
      // be at work (a query, a write): the pool closes after it has finished, or at the deadline.
      await Promise.race([inFlight.settled(), deadline]);
      clearTimeout(force);
    }
    await metricsListener?.close();
    await webhooksStopped;
    await maintenance?.stop();
    await relay?.stop();
    services?.feedWatcher.stop();
    if (services) await flushServiceKeyUsage(services);
    await services?.replica?.close();
    await services?.database.close();
    if (!config.databaseUrl) await restrictToOwner(join(config.dataDir, 'pglite'));
  }

  return { start, stop };
}

/** Logs a failed request: unexpected ones as errors, 5xx as warnings. */
function logFailure(services: Services, error: unknown, wire: WireError, req: IncomingMessage): void {
  const log = requestLog(req, services.log);
  if (wire.unexpected) log.error({ err: rootCause(error) }, 'request failed');
  else if (wire.status >= 500) log.warn({ code: wire.body.code, err: rootCause(error) }, 'request failed');
}

function buildHandler(
  services: Services,
  webDistDir: string | undefined,
  isClosing: () => boolean,
  streams: StreamHandler,
): Handler {
  const createContext = contextFactory(services);
  const { metrics } = services;
  const caching = restCaching(services);
  if (metrics) answerCacheMetrics(metrics, caching);

  const logFailed = (error: unknown, wire: WireError, req: IncomingMessage) => logFailure(services, error, wire, req);

  const restRoutes = restRouter(appRouter);
  const rest = async (req: IncomingMessage & { body?: unknown }, res: ServerResponse, target: URL) => {
    const method = req.method ?? 'GET';
    const match = restRoutes.match(method, target.pathname);
    if (!match) throw noRoute(method, target.pathname, restRoutes.methodsAt(target.pathname));
    setRoute(req, match.route.path);
    // Read here so that size, content type and JSON errors answer in the contract's terms.
    if (method !== 'GET') req.body = await readJsonBody(req, match.route.maxBodyBytes);
    const input = restInput(match, req, target.searchParams);
    const { procedure } = match.route;
    if (caching.applies(procedure, req)) {
      await caching.serve(procedure, req, res, input, (cache) =>
        callRestProcedure(appRouter, match, input, createContext({ req, res, cache })),
      );
      return;
    }
    // The route's success status, which the procedure may change for this answer (POST
    // /me/wallets: 200 when the wallet was linked already).
    res.statusCode = match.route.successStatus;
    const data = await callRestProcedure(appRouter, match, input, createContext({ req, res }));
    sendJson(res, res.statusCode, data);
  };

  const trpcCall = trpcHandler({
    router: appRouter,
    createContext: (req, res) => createContext({ req, res }),
    onError: logFailed,
  });
  const trpc = (req: IncomingMessage, res: ServerResponse, target: URL) => {
    const path = target.pathname.slice('/trpc/'.length);
    setRoute(req, trpcRoute(path, appRouter._def.procedures));
    // Subscriptions (events.stream) only: tRPC's own handler streams their events.
    if (req.method === 'GET' && streams.serves(path)) return streams.handle(req, res, path);
    return trpcCall(req, res, target);
  };

  const routes: Record<string, Handler> = {
    // First, so that no file of the web build can take an API path.
    ...webRoutes({ distDir: webDistDir, log: services.log }),
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
    ...(metrics && services.config.metrics ? { '/metrics': (_req, res) => answerScrape(metrics, res) } : {}),
  };

  const accessLog = services.log.isLevelEnabled('info');
  return async (req, res) => {
    const requestId = headerValue(req.headers['x-request-id']);
    const id = requestId && REQUEST_ID.test(requestId) ? requestId : randomUUID();
    setRequestId(req, id);
    res.setHeader('X-Request-Id', id);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // API answers are per user and time; the few cacheable ones (JWKS, avatars) say so themselves.
    res.setHeader('Cache-Control', 'no-store');
    metrics?.observe(req, res);
    if (accessLog) {
      const started = performance.now();
      res.on('finish', () => {
        requestLog(req, services.log).info(
          { method: req.method, url: req.url, status: res.statusCode, ms: Math.round(performance.now() - started) },
          'request',
        );
      });
    }
    try {
      if (applyCors(req, res, services.config.corsOrigins)) return;
      limitTrpcBatch(req.url);
      // HEAD is GET without the body: node's response already knows to send none (it looked at
      // the method when it was made), so every GET route answers HEAD with the same headers.
      if (req.method === 'HEAD') req.method = 'GET';
      const target = parseRequestTarget(req.url);
      const { pathname } = target;
      const fixed = routes[pathname];
      if (fixed) {
        setRoute(req, pathname);
        if (req.method !== 'GET') throw new DomainError('NOT_FOUND', `${req.method} is not served on ${pathname}`);
        await fixed(req, res);
      } else if (AVATAR_PATH.test(pathname) && req.method === 'GET') {
        setRoute(req, '/avatars/{seed}.svg');
        res.setHeader('Content-Type', 'image/svg+xml');
        res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
        res.end(renderAvatar(AVATAR_PATH.exec(pathname)?.[1] ?? ''));
      } else if (pathname.startsWith('/trpc/')) {
        await trpc(req, res, target);
      } else {
        await rest(req, res, target);
      }
    } catch (error) {
      const wire = toWireError(error);
      logFailed(error, wire, req);
      if (isTrpcTarget(req.url)) sendTrpcError(res, req.url as string, wire);
      else sendError(res, wire);
    }
  };
}

/** Counts the handlers still running, whether or not their client is still there. */
function handlersInFlight() {
  let running = 0;
  let idle: (() => void) | undefined;
  return {
    track(handler: Handler): Handler {
      return async (req, res) => {
        running += 1;
        try {
          await handler(req, res);
        } finally {
          running -= 1;
          if (running === 0) idle?.();
        }
      };
    },
    settled(): Promise<void> {
      if (running === 0) return Promise.resolve();
      return new Promise((resolve) => {
        idle = resolve;
      });
    },
  };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * During a graceful stop every response, also one to a request that came in before it began,
 * tells the client to close, so keep-alive connections end instead of bringing more. A class
 * of the server's own rather than a wrapper per response.
 */
function responseClass(isClosing: () => boolean): typeof ServerResponse {
  class ClosingAwareResponse extends ServerResponse {}
  const writeHead = ServerResponse.prototype.writeHead;
  ClosingAwareResponse.prototype.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    if (isClosing() && !this.headersSent) this.setHeader('Connection', 'close');
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse['writeHead'];
  // A HEAD answer has no body, and node then leaves out the Content-Length it would have set
  // for the GET's; set it from the body given, so HEAD carries the GET's headers (tRPC's too).
  const end = ServerResponse.prototype.end;
  ClosingAwareResponse.prototype.end = function (this: ServerResponse, ...args: unknown[]) {
    const [chunk] = args;
    if (
      this.req?.method === 'GET' &&
      !this.headersSent &&
      (typeof chunk === 'string' || chunk instanceof Uint8Array) &&
      !this.hasHeader('Content-Length') &&
      !this.hasHeader('Transfer-Encoding')
    ) {
      this.setHeader('Content-Length', Buffer.byteLength(chunk));
    }
    return (end as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse['end'];
  return ClosingAwareResponse as typeof ServerResponse;
}
