/**
 * `signals.live` as clients meet it: through @trpc/client 11's `httpSubscriptionLink` (EventSource
 * from the `eventsource` package, so Node sends the credential in the Authorization header), and
 * read by hand over a socket of its own (its status, the events as they came, a reader that stops
 * reading to be a slow one).
 */
import { connect, type Socket } from 'node:net';
import type { SignalLiveEvent } from '@signal/core';
import { subscriptionClient } from '../subscription-client.js';

export interface LiveInput {
  lastEventId?: string;
  providerIds?: number[];
}

export const liveTarget = (input?: unknown) =>
  `/trpc/signals.live${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`;

/** A live event as a client receives it: its id (the log index) and data. */
export interface LiveEvent {
  id: string;
  data: SignalLiveEvent;
}

/** A subscription of signals.live through @trpc/client, collecting what it receives. */
export const liveClient = (url: string, token: string | undefined, input?: LiveInput) =>
  subscriptionClient<LiveEvent>(url, token, (client) => client.signals.live, input);

/**
 * A stream read by hand: a GET over a socket of its own, from `forwardedFor` when given (a server
 * with TRUST_PROXY reads the client's address there). `pause()` stops reading (a slow reader:
 * what the server writes stays in the kernel's buffers, then in the server's).
 */
export function rawLive(url: string, token: string | undefined, input?: unknown, forwardedFor?: string) {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  const state = { status: 0, head: '', body: '', ended: false };
  let bytes = Buffer.alloc(0);
  const answered = new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      bytes = Buffer.concat([bytes, chunk]);
      const split = bytes.indexOf('\r\n\r\n');
      if (split < 0) return;
      state.head = bytes.subarray(0, split).toString('latin1');
      state.status = Number(state.head.split(' ')[1]);
      const rest = bytes.subarray(split + 4);
      state.body = /transfer-encoding: chunked/i.test(state.head) ? dechunk(rest) : rest.toString('utf8');
      resolve();
    });
    socket.on('close', () => {
      state.ended = true;
      resolve();
    });
    socket.on('error', () => {});
  });
  const headers = [
    `GET ${liveTarget(input)} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    'Accept: text/event-stream',
    ...(token ? [`Authorization: Bearer ${token}`] : []),
    ...(forwardedFor ? [`X-Forwarded-For: ${forwardedFor}`] : []),
    '',
    '',
  ];
  socket.write(headers.join('\r\n'));
  return Object.assign(state, {
    answered,
    /** The events (id and data) received so far, whole ones only. */
    events(): LiveEvent[] {
      return state.body
        .split('\n\n')
        .slice(0, -1)
        .filter((message) => /^id: /m.test(message))
        .map((message) => {
          const id = /^id: (.*)$/m.exec(message)![1]!;
          const data = /^data: (.*)$/m.exec(message)![1]!;
          return { id, data: JSON.parse(data) };
        });
    },
    json: () => JSON.parse(state.body.trim()),
    pause: () => socket.pause(),
    resume: () => socket.resume(),
    close: () => socket.destroy(),
  });
}

/** The body of a chunked answer so far (whole chunks). */
function dechunk(bytes: Buffer): string {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const line = bytes.indexOf('\r\n', at);
    if (line < 0) break;
    const size = Number.parseInt(bytes.subarray(at, line).toString('latin1'), 16);
    if (Number.isNaN(size) || size === 0 || line + 2 + size > bytes.length) break;
    parts.push(bytes.subarray(line + 2, line + 2 + size));
    at = line + 2 + size + 2;
  }
  return Buffer.concat(parts).toString('utf8');
}
