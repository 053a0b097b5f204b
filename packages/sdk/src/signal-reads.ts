/**
 * `client.signals`: a provider's signals as this reader sees them (CONTRACT.md, Version 4,
 * "Signals"): `list`, `get` and `mine` over tRPC, and `live`, the `signals.live` subscription,
 * whose reader (event-stream.ts) loads on first use. The types are core's schemas'
 * (client.types.ts); the credential handling is the client's (client.ts), handed in.
 */
import { toSignalApiError } from './api-error.js';
import type { SignalClient } from './client.types.js';
import type { CallContext, TransportClient } from './transport.js';

/** @internal What the signal reads need of the client. */
export interface SignalReadsOptions {
  baseUrl: string;
  trpc: TransportClient;
  fetch: typeof globalThis.fetch | undefined;
  /** The stored token while valid: reads whose answer depends on the reader send it, and never sign in for it. */
  readerToken: () => Promise<string | undefined>;
  /** Runs a signed-in call (signing in, and again once after a refused token, with a signer). */
  authed: <T>(call: (context: CallContext) => Promise<T>) => Promise<T>;
  /** The user's token for a stream connection (a sign-in first when there is none, with a signer). */
  userToken: () => Promise<string | undefined>;
  /** After the API refused `token`: a fresh one, or throws `refusal`. */
  renew: (refusal: unknown, token: string | undefined) => Promise<void>;
}

/** @internal */
export function signalMethods(options: SignalReadsOptions): SignalClient['signals'] {
  const { baseUrl, authed } = options;
  const { signals } = options.trpc;
  /**
   * A read as this reader: with the stored token, as a signed-in call (a token the API refuses is
   * renewed once with a signer, else the refusal is thrown and the token dropped: the API answers
   * 401, never a silent public view, to a token that lapsed); without one, as the public.
   */
  const asReader = async <T>(call: (context: CallContext) => Promise<T>): Promise<T> =>
    (await options.readerToken()) ? authed(call) : call({});
  return {
    list: (providerId, { status, ...query } = {}) =>
      asReader((context) =>
        signals.list.query(
          { id: providerId, ...query, ...(status && { status: [status].flat().join(',') }) },
          { context },
        ),
      ),
    get: (providerId, signalId) => asReader((context) => signals.get.query({ id: providerId, signalId }, { context })),
    mine: (query = {}) => authed((context) => signals.mine.query(query, { context })),
    live(onSignal, { onError = console.error, ...live } = {}) {
      const stop = new AbortController();
      // Loaded on first use: the reader is not in the core bundle (event-stream.ts).
      import('./event-stream.js')
        .then(({ liveSignals }) =>
          liveSignals({
            ...live,
            baseUrl,
            fetch: options.fetch,
            signal: stop.signal,
            onSignal,
            token: options.userToken,
            renew: options.renew,
            toError: (shape) => toSignalApiError(shape, baseUrl),
          }),
        )
        .catch((error: unknown) => stop.signal.aborted || onError(error));
      return () => stop.abort();
    },
  };
}
