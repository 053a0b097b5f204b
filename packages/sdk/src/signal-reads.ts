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
  /** The stored token while valid, for reads whose answer depends on the reader; never a sign-in. */
  readerToken: () => Promise<string | undefined>;
  /** Runs a signed-in call (signing in, and again once after a refused token, with a signer). */
  authed: <T>(call: (context: CallContext) => Promise<T>) => Promise<T>;
  /** The user's token for a stream connection (a sign-in first when there is none, with a signer). */
  userToken: () => Promise<string | undefined>;
  /** After the API refused `token`: a fresh one, or throws `refusal`. */
  renew: (refusal: unknown, token: string | undefined) => Promise<void>;
}

type Query = { query(input: unknown, options?: { context?: CallContext }): Promise<never> };

/** @internal */
export function signalMethods(options: SignalReadsOptions): SignalClient['signals'] {
  const { baseUrl, authed } = options;
  // Called by name like every procedure; typed by SignalClient['signals'] (core's schemas).
  const signals = (options.trpc as unknown as Record<string, Record<string, Query>>).signals as Record<string, Query>;
  const asReader = async () => ({ context: { token: await options.readerToken() } });
  return {
    list: async (providerId, { status, ...query } = {}) =>
      signals.list!.query(
        { id: providerId, ...query, ...(status && { status: [status].flat().join(',') }) },
        await asReader(),
      ),
    get: async (providerId, signalId) => signals.get!.query({ id: providerId, signalId }, await asReader()),
    mine: (query = {}) => authed((context) => signals.mine!.query(query, { context })),
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
