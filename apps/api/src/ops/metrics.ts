/**
 * Prometheus metrics (prom-client), off unless METRICS=true (served at /metrics on the API's
 * port) or METRICS_PORT (served on a listener of its own). One registry per server, so several
 * servers in one process (tests) keep their own counts.
 *
 * Labels are bounded: a request's route is the template it matched (`/providers/{id}`), a tRPC
 * procedure name the router knows, a fixed path of this service, or `(none)` — never the raw
 * URL, which a client chooses.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DomainError } from '@signal/core';
import type { DatabaseHandle, ReadReplica } from '@signal/db';
import type { Registry } from 'prom-client';
import { toWireError } from '../wire/errors.js';
import { requestState } from '../wire/request-state.js';
import { sendError } from '../wire/respond.js';
import { requestHistogram } from './request-histogram.js';

export interface Metrics {
  readonly registry: Registry;
  /** Starts timing a request; its route is what setRoute said by the time it finishes. */
  observe(req: IncomingMessage, res: ServerResponse): void;
  /** One POST /auth/verify (REST or tRPC) answered: `success` or the contract's error code. */
  signIn(outcome: string): void;
  /** One contract-wallet check on the chain node ended so (ChainCheckOutcome in core's evm-chain). */
  chainCheck(outcome: string): void;
  /**
   * A gauge read at every scrape, for figures other modules own (a replica's lag, say):
   * `metrics.gauge('signal_db_replica_lag_seconds', 'Replay lag of the read replica', () => lag)`.
   */
  gauge(name: string, help: string, read: () => number | Promise<number>): void;
  /** A counter whose running total another module keeps (the answer cache's hits), read at every scrape. */
  counter(name: string, help: string, read: () => number): void;
  /**
   * A counter by `outcome` that another module counts into (webhook attempts), its `known`
   * outcomes shown at 0 from the start: returns what counts one.
   */
  outcomes(name: string, help: string, known: readonly string[]): (outcome: string) => void;
  /** The text of a scrape and its content type. */
  scrape(): Promise<{ contentType: string; body: string }>;
  /** Serves GET /metrics (and nothing else) on its own listener. */
  listen(port: number, host: string): Promise<{ url: string; close(): Promise<void> }>;
}

/** Names the route a request took, for its metrics label (a template, never the raw path). */
export function setRoute(req: IncomingMessage, route: string): void {
  requestState(req).route = route;
}

/**
 * The route label of a `/trpc/<path>` request: the procedure when the router has it, `(batch)`
 * for several (`a,b`), `(unknown)` otherwise, so a client cannot mint label values.
 */
export function trpcRoute(path: string, procedures: Record<string, unknown>): string {
  if (Object.hasOwn(procedures, path)) return `/trpc/${path}`;
  return path.includes(',') ? '/trpc/(batch)' : '/trpc/(unknown)';
}

/**
 * prom-client is loaded here, on first use, so a server with metrics off (the default) does not
 * pay for loading it at start.
 */
export async function createMetrics(database: DatabaseHandle): Promise<Metrics> {
  const { collectDefaultMetrics, Counter, Gauge, Registry } = await import('prom-client');
  const registry = new Registry();
  // Process figures: CPU, memory, heap, GC, handles, and the event loop's lag (a histogram of
  // its delay, reported as min/max/mean/percentiles, plus the lag at the scrape).
  collectDefaultMetrics({ register: registry });

  const duration = requestHistogram(registry);

  const outcomes = (name: string, help: string, known: readonly string[]) => {
    const counter = new Counter({ name, help, labelNames: ['outcome'] as const, registers: [registry] });
    for (const outcome of known) counter.inc({ outcome }, 0);
    return (outcome: string) => counter.inc({ outcome });
  };

  const signIn = outcomes(
    'signal_sign_ins_total',
    'Sign-in attempts (POST /auth/verify, REST and tRPC) by outcome: success or the error code answered',
    ['success'],
  );
  const chainCheck = outcomes(
    'signal_chain_checks_total',
    'Contract-wallet signature checks by outcome: valid, invalid, failed (one eth_call each, after an eth_getCode ' +
      'for a plain signature), no-code (one eth_getCode); no node call: no-code-known, invalid-known, shared, busy',
    [],
  );

  new Gauge({
    name: 'signal_db_pool_connections',
    help: 'Database connections of the pg pool by state: total (open), idle, waiting (requests queued for one); PGlite: one embedded connection',
    labelNames: ['pool', 'state'] as const,
    registers: [registry],
    collect() {
      const stats = database.poolStats();
      this.reset();
      this.set({ pool: 'primary', state: 'total' }, stats.total);
      if (stats.idle !== undefined) this.set({ pool: 'primary', state: 'idle' }, stats.idle);
      if (stats.waiting !== undefined) this.set({ pool: 'primary', state: 'waiting' }, stats.waiting);
    },
  });
  new Gauge({
    name: 'signal_db_pool_max',
    help: 'The most connections the pool opens (DATABASE_POOL_SIZE; 1 for PGlite)',
    labelNames: ['pool', 'backend'] as const,
    registers: [registry],
    collect() {
      this.reset();
      this.set({ pool: 'primary', backend: database.backend }, database.poolStats().max);
    },
  });

  const metrics: Metrics = {
    registry,
    observe: duration.observe,
    signIn,
    chainCheck,
    outcomes,
    gauge(name, help, read) {
      new Gauge({
        name,
        help,
        registers: [registry],
        async collect() {
          this.set(await read());
        },
      });
    },
    counter(name, help, read) {
      new Counter({
        name,
        help,
        registers: [registry],
        collect() {
          this.reset();
          this.inc(read());
        },
      });
    },
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
    async listen(port, host) {
      const server: Server = createHttpServer((req, res) => {
        res.setHeader('Cache-Control', 'no-store');
        res.setHeader('X-Content-Type-Options', 'nosniff');
        const path = (req.url ?? '').split('?')[0];
        if (path !== '/metrics' || req.method !== 'GET') {
          sendError(res, toWireError(new DomainError('NOT_FOUND', 'This listener serves GET /metrics only')));
          return;
        }
        void answerScrape(metrics, res);
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      const address = server.address() as AddressInfo;
      const shownHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
      return {
        url: `http://${shownHost}:${address.port}/metrics`,
        close: () =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      };
    },
  };
  return metrics;
}

/** Answers a scrape; a collector that fails is a 500 in the contract's shape, never a crash. */
export async function answerScrape(metrics: Metrics, res: ServerResponse): Promise<void> {
  try {
    const { contentType, body } = await metrics.scrape();
    res.writeHead(200, { 'Content-Type': contentType });
    res.end(body);
  } catch (error) {
    sendError(res, toWireError(error));
  }
}

/** The read replica's lag and state in /metrics (when DATABASE_READ_URL is set). */
export function replicaMetrics(metrics: Metrics, replica: ReadReplica): void {
  metrics.gauge(
    'signal_db_replica_lag_seconds',
    'Replay lag of the read replica at its last probe (every 2 s); -1 while it is unreachable',
    () => replica.lagSeconds() ?? -1,
  );
  metrics.gauge(
    'signal_db_replica_serving',
    '1 while public reads go to the read replica, 0 while the primary serves them',
    () => (replica.serving() ? 1 : 0),
  );
}
