/**
 * The server's lifecycle: start (build the services, then the host, then listen; the background
 * work after) and stop (drain, then close). What is built lives in services.ts (the composition
 * root), how a request is served in http/handler.ts.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { secp256k1Backend } from '@signal/core/verify';
import type { Logger } from 'pino';
import type { Config } from './config/config.js';
import { restrictToOwner } from './config/data-dir.js';
import { limitConnections, timeoutOptions } from './http/connection-limits.js';
import { handlersInFlight, responseClass, type StreamHandler } from './http/handler.js';
import { seedDemoSignals } from './ops/demo-signals.js';
import { type EventRelay, relayMetrics, startEventRelay } from './ops/event-relay.js';
import { type LiveBus, startLiveBus } from './ops/live-bus.js';
import { type Maintenance, startMaintenance } from './ops/maintenance.js';
import { webhookMetrics } from './ops/webhook-metrics.js';
import { startWebhookWorker, type WebhookWorker, webhookWarnings } from './ops/webhook-worker.js';
import type { Services } from './procedures/context.js';
import { type BuiltServices, createHost, createServices } from './services.js';
import { answerClientError, answerConnect, MAX_HEADER_BYTES } from './wire/limits.js';

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

export function createServer(options: ServerOptions) {
  const { config } = options;
  let server: Server | undefined;
  let services: Services | undefined;
  let built: BuiltServices | undefined;
  let maintenance: Maintenance | undefined;
  let metricsListener: { url: string; close(): Promise<void> } | undefined;
  let closing = false;
  let webhooks: WebhookWorker | undefined;
  let relay: EventRelay | undefined;
  let liveBus: LiveBus | undefined;
  let streams: StreamHandler | undefined;
  const inFlight = handlersInFlight();

  async function start(): Promise<RunningServer> {
    built = await createServices(options);
    services = built.services;
    // Before listening: the first pass signs a new log's first checkpoint, and every server then
    // has a checkpoint to serve from its first request on.
    await services.logSequencer.start();
    const { metrics, pump } = built;
    const isClosing = () => closing;
    const host = createHost(built, { webDistDir: options.webDistDir, isClosing });
    streams = host.streams;
    const handle = inFlight.track(host.handle);
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
    const hostName = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${hostName === '0.0.0.0' ? '127.0.0.1' : hostName}:${port}`;
    if (metrics && config.metricsPort !== undefined) {
      metricsListener = await metrics.listen(config.metricsPort, config.host);
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
    // The demo's signals go through this server's own statement routes, so it must listen first;
    // the start waits for them (a few seconds at most), so the first page shows them.
    if (config.seedProviders > 0 && config.seedSignalProviders > 0) {
      const seeded = await seedDemoSignals(services, url);
      if (seeded) services.log.info(seeded, 'demo signals seeded');
    }
    maintenance = startMaintenance(services);
    for (const warning of webhookWarnings(config)) services.log.warn(warning);
    const onDelivery = metrics && webhookMetrics(metrics, services);
    const worker = startWebhookWorker(services, { onOutcome: onDelivery });
    webhooks = worker;
    pump.onAdvance(() => worker.feedMoved());
    if (config.eventBusUrl) {
      relay = startEventRelay(services, pump, config.eventBusUrl);
      if (metrics) relayMetrics(metrics, services, relay);
      const { live } = built;
      const sequencer = services.logSequencer;
      const bus = startLiveBus({
        url: config.eventBusUrl,
        subjectPrefix: config.eventBusSubjectPrefix,
        log: services.log,
        known: () => live.size(),
        wake: () => sequencer.kick(),
      });
      liveBus = bus;
      metrics?.counter(
        'signal_live_bus_received',
        'Signal events this server’s live hub received from the event bus, since it started',
        () => bus.received,
      );
      metrics?.counter(
        'signal_live_bus_wakeups',
        'Signal events from the event bus that woke this server’s live hub before its database poll did, since it started',
        () => bus.wakeups,
      );
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
    await liveBus?.stop();
    await built?.live.stop();
    built?.pump.stop();
    await services?.logSequencer.stop();
    await built?.keyUsage.flush();
    await services?.replica?.close();
    await services?.database.close();
    if (!config.databaseUrl) await restrictToOwner(join(config.dataDir, 'pglite'));
  }

  return { start, stop };
}
