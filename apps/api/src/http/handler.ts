/**
 * The request handler: a small dispatch in front of the two transports. `/trpc/*` goes to the
 * tRPC dispatch (http/trpc.ts), every other path to the REST mapping of the same
 * procedures (their trpc-to-openapi meta, see rest.ts), a few fixed paths to their own answers;
 * both transports run the procedures through http/run-procedure.ts and report failures
 * through toWireError.
 *
 * It knows the procedures only as an AnyRouter and a context factory, and the pages only as
 * handlers: the composition root (services.ts) hands them in, so http/ imports neither
 * procedures/ nor openapi/ nor pages/ (README, "Where things live").
 */
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, ServerResponse } from 'node:http';
import { DomainError } from '@signal/core';
import type { VersionSink } from '@signal/db';
import type { AnyRouter } from '@trpc/server';
import type { Logger } from 'pino';
import { setRoute, trpcRoute } from '../ops/metrics.js';
import { readJsonBody } from '../wire/body.js';
import { noRoute, rootCause, toWireError, type WireError } from '../wire/errors.js';
import { parseRequestTarget } from '../wire/limits.js';
import { requestLog, requestState } from '../wire/request-state.js';
import { sendError, sendJson } from '../wire/respond.js';
import { isTrpcTarget, limitTrpcBatch, sendTrpcError } from '../wire/trpc-errors.js';
import type { RestCaching } from './caching.js';
import { applyCors } from './cors.js';
import { callRestProcedure, restInput, restRouter } from './rest.js';
import { trpcHandler } from './trpc.js';
import type { trpcStreamHandler } from './trpc-stream.js';

export type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;
export type StreamHandler = ReturnType<typeof trpcStreamHandler>;

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface HandlerDeps {
  router: AnyRouter;
  /** A procedure's context for this request (with the version sink of a cacheable read). */
  createContext: (exchange: { req: IncomingMessage; res: ServerResponse; cache?: VersionSink }) => object;
  caching: RestCaching;
  streams: StreamHandler;
  log: Logger;
  corsOrigins: readonly string[];
  /** Times every request for /metrics, when metrics are on. */
  metrics?: { observe(req: IncomingMessage, res: ServerResponse): void };
  /**
   * Whole answers by exact path, GET (and HEAD) only: the web app's files first, so that none of
   * them can take an API path, then /health, /ready, the JWKS, /openapi.json, /docs, /metrics.
   */
  routes: Record<string, Handler>;
  /** Whole answers under a path prefix, GET (and HEAD) only: the log's tiles (`/log/tile/…`). */
  prefixRoutes?: Record<string, Handler>;
  /** `/avatars/{seed}.svg`: generated, immutable. */
  avatar: { path: RegExp; render(seed: string): string };
}

/** Logs a failed request: unexpected ones as errors, 5xx as warnings. */
export function logFailure(log: Logger, error: unknown, wire: WireError, req: IncomingMessage): void {
  const requestLogger = requestLog(req, log);
  if (wire.unexpected) requestLogger.error({ err: rootCause(error) }, 'request failed');
  else if (wire.status >= 500) requestLogger.warn({ code: wire.body.code, err: rootCause(error) }, 'request failed');
}

export function createHandler(deps: HandlerDeps): Handler {
  const { router, createContext, caching, streams, metrics, routes, avatar } = deps;
  const prefixRoutes = Object.entries(deps.prefixRoutes ?? {});
  const logFailed = (error: unknown, wire: WireError, req: IncomingMessage) => logFailure(deps.log, error, wire, req);

  const restRoutes = restRouter(router);
  const rest = async (req: IncomingMessage, res: ServerResponse, target: URL) => {
    const method = req.method ?? 'GET';
    const match = restRoutes.match(method, target.pathname);
    if (!match) throw noRoute(method, target.pathname, restRoutes.methodsAt(target.pathname));
    setRoute(req, match.route.path);
    // Read here so that size, content type and JSON errors answer in the contract's terms.
    const body = method !== 'GET' ? await readJsonBody(req, match.route.maxBodyBytes) : undefined;
    const input = restInput(match, body, target);
    const { procedure } = match.route;
    if (caching.applies(procedure, req)) {
      await caching.serve(procedure, req, res, input, (cache) =>
        callRestProcedure(router, match, input, createContext({ req, res, cache })),
      );
      return;
    }
    // The route's success status, which the procedure may change for this answer (POST
    // /me/wallets: 200 when the wallet was linked already).
    res.statusCode = match.route.successStatus;
    const data = await callRestProcedure(router, match, input, createContext({ req, res }));
    sendJson(res, res.statusCode, data);
  };

  const trpcCall = trpcHandler({
    router,
    createContext: (req, res) => createContext({ req, res }),
    onError: logFailed,
  });
  const trpc = (req: IncomingMessage, res: ServerResponse, target: URL, head: boolean) => {
    const path = target.pathname.slice('/trpc/'.length);
    setRoute(req, trpcRoute(path, router._def.procedures));
    // Subscriptions (events.stream, signals.live) only: streamed by trpc-stream.ts.
    if (req.method === 'GET' && streams.serves(path)) return streams.handle(req, res, path, head);
    return trpcCall(req, res, target);
  };

  const accessLog = deps.log.isLevelEnabled('info');
  return async (req, res) => {
    const requestId = headerValue(req.headers['x-request-id']);
    const id = requestId && REQUEST_ID.test(requestId) ? requestId : randomUUID();
    requestState(req).id = id;
    res.setHeader('X-Request-Id', id);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // API answers are per user and time; the few cacheable ones (JWKS, avatars) say so themselves.
    res.setHeader('Cache-Control', 'no-store');
    metrics?.observe(req, res);
    if (accessLog) {
      const started = performance.now();
      res.on('finish', () => {
        requestLog(req, deps.log).info(
          { method: req.method, url: req.url, status: res.statusCode, ms: Math.round(performance.now() - started) },
          'request',
        );
      });
    }
    try {
      if (applyCors(req, res, deps.corsOrigins)) return;
      limitTrpcBatch(req.url);
      // HEAD is GET without the body: node's response already knows to send none (it looked at
      // the method when it was made), so every GET route answers HEAD with the same headers.
      // The one field of the request still rewritten: tRPC's own handler (the streams) and
      // node's response read req.method themselves, and must see the GET they serve.
      const head = req.method === 'HEAD';
      if (head) req.method = 'GET';
      const target = parseRequestTarget(req.url);
      const { pathname } = target;
      const fixed = routes[pathname];
      const prefixed = fixed ? undefined : prefixRoutes.find(([prefix]) => pathname.startsWith(prefix));
      if (fixed || prefixed) {
        setRoute(req, prefixed ? `${prefixed[0]}…` : pathname);
        if (req.method !== 'GET') throw new DomainError('NOT_FOUND', `${req.method} is not served on ${pathname}`);
        await (fixed ?? prefixed![1])(req, res);
      } else if (avatar.path.test(pathname) && req.method === 'GET') {
        setRoute(req, '/avatars/{seed}.svg');
        res.setHeader('Content-Type', 'image/svg+xml');
        res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
        res.end(avatar.render(avatar.path.exec(pathname)?.[1] ?? ''));
      } else if (pathname.startsWith('/trpc/')) {
        await trpc(req, res, target, head);
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
export function handlersInFlight() {
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
export function responseClass(isClosing: () => boolean): typeof ServerResponse {
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
