/**
 * tRPC's own HTTP handler (@trpc/server's node adapter), for the subscriptions alone
 * (`events.stream`): they answer with server-sent events, a stream of chunks that the lean
 * dispatch of fast-path/trpc-dispatch.ts does not write. Every other `/trpc/<path>` stays on that dispatch;
 * this one costs a web Request and Response per call, once per stream rather than per event.
 *
 * The handler's errors are the service's (the router's errorFormatter): a missing or wrong
 * credential is a tRPC error (UNAUTHORIZED / FORBIDDEN) in tRPC's `serialized-error` event, and
 * the stream ends without an event. On stop, `closeAll` ends every stream's connection (not
 * with tRPC's `return`, which tells a client it is over): clients reconnect, with their last
 * event id, to a server still serving.
 */
import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AnyRouter, getTRPCErrorFromUnknown } from '@trpc/server';
import { nodeHTTPRequestHandler } from '@trpc/server/adapters/node-http';
import { procedureAt } from '../fast-path/run-procedure.js';
import { toWireError, type WireError } from '../wire/errors.js';

export interface TrpcStreamOptions {
  router: AnyRouter;
  createContext: (req: IncomingMessage, res: ServerResponse) => object;
  onError: (error: unknown, wire: WireError, req: IncomingMessage) => void;
}

export function trpcStreamHandler({ router, createContext, onError }: TrpcStreamOptions) {
  const open = new Set<ServerResponse>();
  return {
    /** True when `path` (after `/trpc/`) is a subscription: this handler's. */
    serves: (path: string) => procedureAt(router, path)?._def.type === 'subscription',

    async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
      open.add(res);
      const closed = once(res, 'close').then(() => open.delete(res));
      await Promise.race([
        nodeHTTPRequestHandler({
          router,
          req,
          res,
          path,
          createContext: ({ req: request, res: response }) => createContext(request, response),
          onError: ({ error }) => onError(error, toWireError(getTRPCErrorFromUnknown(error)), req),
        }),
        closed,
      ]);
    },

    /** Ends every open stream's connection. */
    closeAll(): void {
      for (const res of open) res.destroy();
      open.clear();
    },
  };
}
