/**
 * A subscription that writes its own server-sent events (`signals.live`): its procedure returns a
 * DirectStream, and http/trpc-stream.ts hands it the response instead of running tRPC's SSE
 * producer over an iterator. The framing is tRPC's own (@trpc/server's sse.ts: `connected` with
 * the client's options, `id`/`data` for a tracked event, `ping`, `serialized-error`), so
 * `httpSubscriptionLink` and a browser's EventSource read it as any tRPC subscription; what
 * differs is that an event's bytes are made once and written to every stream that carries it.
 */
import type { ServerResponse } from 'node:http';

const DIRECT_STREAM = Symbol('direct stream');

export interface DirectStream {
  [DIRECT_STREAM]: (res: ServerResponse) => Promise<void>;
}

/** A stream written by `write` (which resolves once the stream has ended). */
export const directStream = (write: (res: ServerResponse) => Promise<void>): DirectStream => ({
  [DIRECT_STREAM]: write,
});

export const isDirectStream = (value: unknown): value is DirectStream =>
  typeof value === 'object' && value !== null && DIRECT_STREAM in value;

/** A stream's head, as tRPC's producer sends it (and a HEAD of a subscription gets). */
export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
  Connection: 'keep-alive',
} as const;

/** Writes the stream to `res`: its headers sent first, as tRPC's producer sends them. */
export function writeDirectStream(stream: DirectStream, res: ServerResponse): Promise<void> {
  res.writeHead(200, SSE_HEADERS);
  return stream[DIRECT_STREAM](res);
}

/** The first message: the client's reconnect option, as tRPC's `connected` event. */
export const sseConnected = (client: object) => `event: connected\ndata: ${JSON.stringify(client)}\n\n`;

/** A tracked event: `id` then `data` (one line of JSON). */
export const sseEvent = (id: string, json: string) => Buffer.from(`id: ${id}\ndata: ${json}\n\n`);

/** tRPC's keep-alive; its client reconnects after `reconnectAfterInactivityMs` without one. */
export const SSE_PING = Buffer.from('event: ping\ndata: \n\n');

/** The error that ends a stream (tRPC's `serialized-error`, its data the app's error shape). */
export const sseError = (shape: unknown) => `event: serialized-error\ndata: ${JSON.stringify(shape)}\n\n`;
