/**
 * The subscriptions (`events.stream`, and `signals.live` the same way): server-sent events, a
 * stream of chunks that the lean dispatch does not write. Each one goes in two steps:
 *
 * 1. Admission: the procedure itself runs, through tRPC's public `callTRPCProcedure` (its
 *    middlewares: the credential, the scope, the stream slot; its input; the resolver's start,
 *    e.g. the position after `lastEventId`). A refusal is answered there, before any stream: its
 *    HTTP status (401, 403, 429, 400) with the error in tRPC's JSON, as every other `/trpc` error
 *    (CONTRACT.md, Version 4: "never 200 with an error event"; a browser's EventSource fails on
 *    a non-200 answer and does not reconnect, where after a 200 it would reconnect forever).
 * 2. The stream: a DirectStream (signals.live, wire/direct-stream.ts) writes itself to the
 *    response, in tRPC's framing; any other iterator the procedure returned is written by tRPC's own SSE producer
 *    (@trpc/server's node adapter, a web Request and Response per stream, not per event), over a
 *    router of the same paths whose procedures hand that iterator on, with the app's error
 *    format and SSE settings; so the procedure is not run twice. A later error (a key revoked
 *    mid-stream) is tRPC's `serialized-error` event, as before.
 *
 * An open stream is a connection that may give way at the connection cap (connection-limits.ts:
 * its client resumes, elsewhere or later, with its last event id). On stop, `closeAll` ends every
 * stream's connection (not with tRPC's `return`, which tells a client it is over): clients
 * reconnect with their last event id to a server still serving.
 */
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AnyRouter, callTRPCProcedure, getTRPCErrorFromUnknown, initTRPC, TRPCError } from '@trpc/server';
import { nodeHTTPRequestHandler } from '@trpc/server/adapters/node-http';
import { isDirectStream, SSE_HEADERS, writeDirectStream } from '../wire/direct-stream.js';
import { toWireError, type WireError } from '../wire/errors.js';
import { sendTrpcError } from '../wire/trpc-errors.js';
import { mayGiveWay } from './connection-limits.js';
import { procedureAt } from './run-procedure.js';

export interface TrpcStreamOptions {
  router: AnyRouter;
  createContext: (req: IncomingMessage, res: ServerResponse) => object;
  onError: (error: unknown, wire: WireError, req: IncomingMessage) => void;
}

export function trpcStreamHandler({ router, createContext, onError }: TrpcStreamOptions) {
  const open = new Set<ServerResponse>();
  let closing = false;
  const serves = (path: string) => procedureAt(router, path)?._def.type === 'subscription';
  const admitted = handOnRouter(router);
  return {
    /** True when `path` (after `/trpc/`) is a subscription: this handler's. */
    serves,

    /** `head`: a HEAD request (served as its GET, node sending no body). */
    async handle(req: IncomingMessage, res: ServerResponse, path: string, head = false): Promise<void> {
      // The call's signal: a stream admitted for a client that left gives its slot back.
      const ended = new AbortController();
      res.once('close', () => ended.abort());
      let iterator: unknown;
      try {
        iterator = await callTRPCProcedure({
          router,
          path,
          getRawInput: async () => subscriptionInput(req),
          ctx: createContext(req, res),
          type: 'subscription',
          signal: ended.signal,
          batchIndex: 0,
        });
      } catch (cause) {
        const error = getTRPCErrorFromUnknown(cause);
        const wire = toWireError(error);
        onError(error, wire, req);
        sendTrpcError(res, req.url ?? `/trpc/${path}`, wire);
        return;
      }
      if (ended.signal.aborted) return;
      // HEAD: the GET's head, admitted or refused the same, and no stream. Node sends no body for
      // a HEAD, so a stream would never flush its head, and would hold its slot until the client
      // left; ending the answer aborts the call's signal, which gives the slot back.
      if (head) {
        res.writeHead(200, SSE_HEADERS);
        res.end();
        return;
      }
      // Admitted while the server stops (its client reconnected at once): it resumes elsewhere.
      if (closing) {
        res.destroy();
        return;
      }
      open.add(res);
      const ordinaryAgain = mayGiveWay(req.socket);
      const closed = once(res, 'close').then(() => {
        open.delete(res);
        ordinaryAgain();
      });
      // A stream that writes its own events (signals.live): handed the response.
      if (isDirectStream(iterator)) {
        await Promise.race([writeDirectStream(iterator, res), closed]);
        return;
      }
      await Promise.race([
        nodeHTTPRequestHandler({
          router: admitted,
          req,
          res,
          path,
          createContext: () => ({ iterator }),
          onError: ({ error }) => onError(error, toWireError(getTRPCErrorFromUnknown(error)), req),
        }),
        closed,
      ]);
    },

    /** Ends every open stream's connection, and every one admitted from now on. */
    closeAll(): void {
      closing = true;
      for (const res of open) res.destroy();
      open.clear();
    },
  };
}

/**
 * A subscription's input as tRPC's HTTP handler reads it: `?input=` as JSON (none: undefined),
 * with the EventSource's `Last-Event-ID` (header, or `lastEventId` / `Last-Event-Id` in the
 * query, as tRPC reads it) as `lastEventId`, so a reconnecting client resumes where it was.
 */
function subscriptionInput(req: IncomingMessage): unknown {
  const query = new URL(req.url ?? '/', 'http://localhost').searchParams;
  let input: unknown;
  const text = query.get('input');
  if (text !== null) {
    try {
      input = JSON.parse(text);
    } catch {
      throw new TRPCError({ code: 'PARSE_ERROR', message: 'The input query parameter is not valid JSON' });
    }
  }
  const header = req.headers['last-event-id'];
  const lastEventId =
    (Array.isArray(header) ? header[0] : header) ?? query.get('lastEventId') ?? query.get('Last-Event-Id');
  if (!lastEventId) return input;
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) return { ...input, lastEventId };
  return input ?? { lastEventId };
}

/**
 * The router that streams admitted iterators: the app's subscription paths, each handing on the
 * iterator its admission made (ctx.iterator), with the app's error format and SSE settings (ping,
 * the client's reconnect delay).
 */
function handOnRouter(router: AnyRouter): AnyRouter {
  const { errorFormatter, sse } = router._def._config;
  const t = initTRPC.context<{ iterator: unknown }>().create({ errorFormatter, sse });
  const handOn = t.procedure.subscription(({ ctx }) => ctx.iterator as AsyncIterable<unknown>);
  const tree: Record<string, unknown> = {};
  for (const [path, procedure] of Object.entries(
    router._def.procedures as Record<string, { _def: { type: string } }>,
  )) {
    if (procedure._def.type !== 'subscription') continue;
    const parts = path.split('.');
    let node = tree;
    for (const part of parts.slice(0, -1)) {
      node[part] ??= {};
      node = node[part] as Record<string, unknown>;
    }
    node[parts.at(-1)!] = handOn;
  }
  return t.router(tree as Parameters<typeof t.router>[0]);
}
