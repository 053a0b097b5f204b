/**
 * The API's tRPC subscriptions (server-sent events) read with `fetch`: `service.events.stream()`
 * (`events.stream`, as an async iterator) and `client.signals.live()` (`signals.live`). No
 * EventSource (Node has none, and a browser's cannot send a credential in `Authorization`) and no
 * tRPC client: the stream's few message kinds are read here. Loaded on first use (service-client.ts
 * and client.ts import it dynamically), so the SDK's core bundle does not carry it.
 *
 * A dropped connection (network, a server stopping) reconnects after a growing pause (0.5 s up
 * to 30 s) with the id of the last event handed out, so the loop sees every event once, in
 * order. A refusal by the API (unknown key, missing scope, unknown `after`) ends the loop with
 * its SignalApiError.
 */
import type { SignalEvent, SignalEventType } from './wire.types.js';

export interface EventStreamOptions {
  /**
   * The id of the last event you handled: the stream resumes right after it. Without it: from
   * now on (events committed after the stream opened).
   */
  after?: string;
  /** Only these types. */
  types?: SignalEventType[];
  /** Ends the loop (the `for await` returns). */
  signal?: AbortSignal;
}

const MAX_PAUSE_MS = 30_000;

interface Message {
  event?: string;
  data: string;
  id?: string;
}

/** The server-sent events of a response body, as the WHATWG EventSource parses them (no `retry`). */
async function* messagesOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Message> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let message: Message = { data: '' };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.search(/\r\n|\r|\n/);
    while (end >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
      if (line === '') {
        if (message.data !== '' || message.event) yield message;
        message = { data: '' };
      } else if (!line.startsWith(':')) {
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
        if (field === 'data') message.data += message.data === '' ? text : `\n${text}`;
        else if (field === 'event') message.event = text;
        else if (field === 'id') message.id = text;
      }
      end = buffer.search(/\r\n|\r|\n/);
    }
  }
}

/** One tracked message of a subscription: its id (tRPC's tracked id) and its data, parsed. */
export interface TrackedMessage {
  id: string | undefined;
  data: unknown;
}

/** @internal What a subscription reader needs: where, as whom, and how to make the SDK's errors. */
export interface SubscriptionRequest {
  /** The subscription's URL without input, e.g. `<baseUrl>/trpc/signals.live`. */
  url: string;
  /** The input for a (re)connection that resumes after `last` (undefined: from now on). */
  input: (last: string | undefined) => Record<string, unknown>;
  /** The Authorization value for each connection (a token refreshed between connections). */
  authorization: () => Promise<string | undefined> | string | undefined;
  fetch: typeof globalThis.fetch | undefined;
  signal: AbortSignal | undefined;
  /** Where to resume at first (the caller's last event id), or undefined for now on. */
  after: string | undefined;
  /** The SDK's error for a refusal (tRPC's error shape); passed in, so this chunk shares no code with the core. */
  toError: (shape: unknown) => unknown;
}

/**
 * @internal A tRPC subscription over server-sent events, read with fetch: every tracked message
 * once, in order; a dropped connection reconnects after a growing pause, resuming after the last
 * id handed out; a refusal (4xx with tRPC's JSON error before any stream, or a `serialized-error`
 * event) ends the loop with the caller's error.
 */
export async function* readSubscription(request: SubscriptionRequest): AsyncGenerator<TrackedMessage, void, undefined> {
  const { signal } = request;
  let last = request.after;
  let failures = 0;
  let refusal: unknown;
  while (!signal?.aborted) {
    // Ours, so that leaving the loop early (break, return) also ends the request.
    const connection = new AbortController();
    const abort = () => connection.abort();
    signal?.addEventListener('abort', abort, { once: true });
    try {
      const input = request.input(last);
      const query = Object.keys(input).length > 0 ? `?input=${encodeURIComponent(JSON.stringify(input))}` : '';
      const authorization = await request.authorization();
      const response = await (request.fetch ?? globalThis.fetch)(`${request.url}${query}`, {
        headers: { ...(authorization && { authorization }), accept: 'text/event-stream' },
        signal: connection.signal,
      });
      // A refusal (no or a wrong credential, a missing scope, over the stream cap, an unknown id) is
      // answered before any stream, with its 4xx status and tRPC's error in JSON; a later error
      // comes in the stream. Anything else (a proxy's 502, a server starting) is retried.
      const json = response.headers.get('content-type')?.startsWith('application/json');
      if (!response.ok && response.status < 500 && json) {
        const body = (await response.json().catch(() => undefined)) as { error?: unknown } | undefined;
        if (body?.error !== undefined) refusal = request.toError(body.error);
      } else if (response.ok && response.body) {
        for await (const message of messagesOf(response.body)) {
          if (message.event === 'return') return;
          if (message.event === 'serialized-error') {
            refusal = request.toError(JSON.parse(message.data));
            break;
          }
          if (message.event === undefined) {
            const data: unknown = JSON.parse(message.data);
            last = message.id || last;
            failures = 0;
            yield { id: message.id, data };
          }
        }
      }
    } catch {
      // A network failure: retried below, unless the caller ended the loop.
    } finally {
      signal?.removeEventListener('abort', abort);
      connection.abort();
    }
    if (refusal !== undefined) throw refusal;
    if (signal?.aborted) return;
    failures += 1;
    const pause = Math.min(MAX_PAUSE_MS, 250 * 2 ** failures);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, pause);
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

/** @internal `events.stream`, with a service key. */
export async function* readEventStream(
  baseUrl: string,
  key: string,
  fetchImpl: typeof globalThis.fetch | undefined,
  options: EventStreamOptions,
  toError: (shape: unknown) => unknown,
): AsyncGenerator<SignalEvent, void, undefined> {
  const { types } = options;
  for await (const message of readSubscription({
    url: `${baseUrl}/trpc/events.stream`,
    input: (last) => ({ ...(types && { types }), ...(last && { lastEventId: last }) }),
    authorization: () => `Bearer ${key}`,
    fetch: fetchImpl,
    signal: options.signal,
    after: options.after,
    toError,
  })) {
    yield message.data as SignalEvent;
  }
}

/** @internal What `client.signals.live` hands over: the client's credential handling, and the caller's options. */
export interface LiveSignalsRequest {
  baseUrl: string;
  fetch: typeof globalThis.fetch | undefined;
  signal: AbortSignal;
  providerIds?: number[] | undefined;
  lastEventId?: string | undefined;
  onSignal: (data: never, id: string) => unknown;
  /** The user's token for a connection (signing in first when the client has a signer and no token). */
  token: () => Promise<string | undefined>;
  /** After the API refused `token`: a fresh one, or the refusal when none can be had. */
  renew: (refusal: unknown, token: string | undefined) => Promise<void>;
  toError: (shape: unknown) => unknown;
}

/**
 * @internal `signals.live`, tracked by log index: each event handed to `onSignal` (awaited) in
 * order; reconnections resume after the last one; a refused token is renewed once (`renew`
 * throws when it cannot be) and the stream resumes where it was. Resolves when `signal` aborts;
 * rejects with the refusal or the handler's error.
 */
export async function liveSignals(request: LiveSignalsRequest): Promise<void> {
  const { providerIds } = request;
  let last = request.lastEventId;
  let sent: string | undefined;
  let renewed = false;
  for (;;) {
    try {
      for await (const { id, data } of readSubscription({
        url: `${request.baseUrl}/trpc/signals.live`,
        input: (after) => ({ ...(providerIds && { providerIds }), ...(after && { lastEventId: after }) }),
        authorization: async () => {
          sent = await request.token();
          return sent && `Bearer ${sent}`;
        },
        fetch: request.fetch,
        signal: request.signal,
        after: last,
        toError: request.toError,
      })) {
        last = id;
        renewed = false;
        await request.onSignal(data as never, id as string);
      }
      return;
    } catch (error) {
      if (renewed) throw error;
      renewed = true;
      await request.renew(error, sent);
    }
  }
}
