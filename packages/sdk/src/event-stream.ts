/**
 * `service.events.stream()`: the API's `events.stream` tRPC subscription (server-sent events)
 * read with `fetch`, as an async iterator. No EventSource (Node has none, and a browser's cannot
 * send the key in `Authorization`) and no tRPC client: the stream's few message kinds are read
 * here. Loaded on first use (service-client.ts imports it dynamically), so the SDK's core bundle
 * does not carry it.
 *
 * A dropped connection (network, a server stopping) reconnects after a growing pause (0.5 s up
 * to 30 s) with the id of the last event handed out, so the loop sees every event once, in feed
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

/** @internal */
export async function* readEventStream(
  baseUrl: string,
  key: string,
  fetchImpl: typeof globalThis.fetch | undefined,
  options: EventStreamOptions,
  /** The SDK's error for a refusal (tRPC's error shape); passed in, so this chunk shares no code with the core. */
  toError: (shape: unknown) => unknown,
): AsyncGenerator<SignalEvent, void, undefined> {
  const { signal, types } = options;
  let last = options.after;
  let failures = 0;
  let refusal: unknown;
  while (!signal?.aborted) {
    // Ours, so that leaving the loop early (break, return) also ends the request.
    const request = new AbortController();
    const abort = () => request.abort();
    signal?.addEventListener('abort', abort, { once: true });
    try {
      const input = encodeURIComponent(JSON.stringify({ ...(types && { types }), ...(last && { lastEventId: last }) }));
      const response = await (fetchImpl ?? globalThis.fetch)(`${baseUrl}/trpc/events.stream?input=${input}`, {
        headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
        signal: request.signal,
      });
      // A refusal (no or a wrong key, a missing scope, over the stream cap, an unknown id) is
      // answered before any stream, with its 4xx status and tRPC's error in JSON; a later error
      // comes in the stream. Anything else (a proxy's 502, a server starting) is retried.
      const json = response.headers.get('content-type')?.startsWith('application/json');
      if (!response.ok && response.status < 500 && json) {
        const body = (await response.json().catch(() => undefined)) as { error?: unknown } | undefined;
        if (body?.error !== undefined) refusal = toError(body.error);
      } else if (response.ok && response.body) {
        for await (const message of messagesOf(response.body)) {
          if (message.event === 'return') return;
          if (message.event === 'serialized-error') {
            refusal = toError(JSON.parse(message.data));
            break;
          }
          if (message.event === undefined) {
            const event = JSON.parse(message.data) as SignalEvent;
            last = message.id || event.id;
            failures = 0;
            yield event;
          }
        }
      }
    } catch {
      // A network failure: retried below, unless the caller ended the loop.
    } finally {
      signal?.removeEventListener('abort', abort);
      request.abort();
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
