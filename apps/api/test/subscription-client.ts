/**
 * A tRPC subscription as a client meets it: through @trpc/client 11's `httpSubscriptionLink`
 * (EventSource from the `eventsource` package, so Node sends the credential in the Authorization
 * header), collecting what it receives. The `events.stream` and `signals.live` tests share it.
 */
import type { AppRouter } from '@signal/api';
import { createTRPCClient, httpSubscriptionLink, type TRPCClientError } from '@trpc/client';
import { EventSource } from 'eventsource';

type Client = ReturnType<typeof createTRPCClient<AppRouter>>;

interface Subscribable {
  subscribe(
    input: unknown,
    handlers: {
      onStarted(): void;
      onConnectionStateChange(state: { state: string }): void;
      onData(value: unknown): void;
      onError(cause: unknown): void;
    },
  ): { unsubscribe(): void };
}

/** Subscribes to the procedure `pick` names with `input`, as `token` (a bearer token or key) when given. */
export function subscriptionClient<T>(
  url: string,
  token: string | undefined,
  pick: (client: Client) => unknown,
  input?: unknown,
) {
  const client = createTRPCClient<AppRouter>({
    links: [
      httpSubscriptionLink({
        url: `${url}/trpc`,
        EventSource,
        eventSourceOptions: () => ({
          fetch: (target, init) =>
            fetch(target, {
              ...init,
              headers: { ...init.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
            }),
        }),
      }),
    ],
  });
  const received: T[] = [];
  let started = false;
  let error: TRPCClientError<AppRouter> | undefined;
  let connections = 0;
  const subscription = (pick(client) as Subscribable).subscribe(input, {
    onStarted: () => {
      started = true;
    },
    onConnectionStateChange: (state) => {
      if (state.state === 'pending') connections += 1;
    },
    onData: (value) => received.push(value as T),
    onError: (cause) => {
      error = cause as TRPCClientError<AppRouter>;
    },
  });
  return {
    received,
    get started() {
      return started;
    },
    get error() {
      return error;
    },
    /** Times the stream (re)connected. */
    get connections() {
      return connections;
    },
    stop: () => subscription.unsubscribe(),
  };
}
