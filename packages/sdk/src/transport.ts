/**
 * The SDK's transport: @trpc/client 11's `httpLink`, one HTTP request per call, run as the only
 * link of a chain, and a typed `router.procedure.query|mutate` surface inferred from the API's
 * router. Not `createTRPCClient`: its proxy client carries what this SDK never uses (batching
 * and subscription plumbing, and the WebSocket link, which the package keeps as a side effect),
 * about 3 KiB gzipped, and the SDK's budget is 6 KiB (`pnpm --filter @signal/sdk size`). The
 * requests, answers and errors (TRPCClientError) are the link's own.
 */
import type { AppRouter } from '@signal/api';
import { httpLink } from '@trpc/client/links/httpLink';
import type { inferRouterInputs, inferRouterOutputs, TRPCMutationProcedure, TRPCQueryProcedure } from '@trpc/server';
import { toSignalApiError } from './api-error.js';

type Inputs = inferRouterInputs<AppRouter>;
type Outputs = inferRouterOutputs<AppRouter>;
type Record_ = AppRouter['_def']['record'];

/**
 * @internal Per call: the token and Idempotency-Key to send (read by the `headers` callback), and
 * a signal that aborts the request (the publisher's time limit per attempt).
 */
// A type, not an interface: it must fit tRPC's OperationContext (an index signature).
export type CallContext = { token?: string; idempotencyKey?: string; signal?: AbortSignal };
interface CallOptions {
  context?: CallContext;
}

type Callable<Procedure, Input, Output> =
  Procedure extends TRPCQueryProcedure<infer _>
    ? { query(input: Input, options?: CallOptions): Promise<Output> }
    : Procedure extends TRPCMutationProcedure<infer _>
      ? { mutate(input: Input, options?: CallOptions): Promise<Output> }
      : never;

/** @internal `client.providers.list.query(input)` and so on, typed from the router. */
export type TransportClient = {
  [Router in keyof Inputs & keyof Record_]: {
    [Procedure in keyof Inputs[Router] & keyof Record_[Router]]: Callable<
      Record_[Router][Procedure],
      Inputs[Router][Procedure],
      Outputs[Router][Procedure & keyof Outputs[Router]]
    >;
  };
};

/** @internal */
export interface TransportOptions {
  url: string;
  fetch?: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
  /** What a failed call rejects with, made from the link's TRPCClientError. */
  toError: (error: unknown) => unknown;
}

/** @internal The SDK's own; its declarations are not published (they name the private router). */
export function createTransport({ url, fetch, toError }: TransportOptions): TransportClient {
  const link = httpLink<AppRouter>({
    url,
    // Called bare, so a fetch passed in as a method (window.fetch) never gets another `this`.
    fetch: async (input, init) => {
      const response = await (fetch ?? globalThis.fetch)(input as RequestInfo | URL, init as RequestInit);
      // httpLink reads every answer as JSON, and drops the response when that fails: a proxy's
      // HTML error page keeps its status this way (api-error.ts reads it).
      if (!/json/i.test(response.headers.get('content-type') ?? '')) {
        throw Object.assign(new Error('not a JSON answer'), { response });
      }
      return response;
    },
    // Each call carries its own token in its context, so a retry can send a fresh one.
    headers: ({ op }) => {
      const { token, idempotencyKey } = op.context;
      return {
        ...(typeof token === 'string' && { authorization: `Bearer ${token}` }),
        ...(typeof idempotencyKey === 'string' && { 'idempotency-key': idempotencyKey }),
      };
    },
  })({});

  const run = (type: 'query' | 'mutation', path: string, input: unknown, context: CallContext = {}) =>
    new Promise<unknown>((resolve, reject) => {
      // httpLink does not read the id (batching and WebSocket links match answers by it).
      const op = { id: 0, type, path, input, context, signal: context.signal ?? null };
      link({
        op,
        // httpLink ends the chain: it never calls a next link.
        next: undefined as never,
      }).subscribe({
        next: (envelope) => resolve((envelope.result as { data?: unknown }).data),
        error: (error) => reject(toError(error)),
      });
    });

  const procedures = (router: string) =>
    new Proxy(
      {},
      {
        get: (_, procedure) => {
          const path = `${router}.${String(procedure)}`;
          return {
            query: (input: unknown, options?: CallOptions) => run('query', path, input, options?.context),
            mutate: (input: unknown, options?: CallOptions) => run('mutation', path, input, options?.context),
          };
        },
      },
    );
  return new Proxy({}, { get: (_, router) => procedures(String(router)) }) as TransportClient;
}

/**
 * @internal The transport of a client of the service at `baseUrl` (trailing slashes dropped):
 * every call's failure a SignalApiError. Answers the base URL as used.
 */
export function serviceTransport(options: { baseUrl: string; fetch?: TransportOptions['fetch'] }): {
  baseUrl: string;
  trpc: TransportClient;
} {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const trpc = createTransport({
    url: `${baseUrl}/trpc`,
    fetch: options.fetch,
    toError: (error) => toSignalApiError(error, baseUrl),
  });
  return { baseUrl, trpc };
}

/**
 * @internal A mutation called by its name (`signals.open`), aborted by `signal`: the publisher's
 * calls, whose procedures it types itself (publisher-core.ts).
 */
export const mutateByName =
  (trpc: TransportClient) =>
  (procedure: string, input: unknown, signal: AbortSignal): Promise<unknown> => {
    const [router, name] = procedure.split('.') as [string, string];
    const byName = trpc as unknown as Record<
      string,
      Record<string, { mutate(input: unknown, options?: CallOptions): Promise<unknown> }>
    >;
    return byName[router]![name]!.mutate(input, { context: { signal } });
  };
