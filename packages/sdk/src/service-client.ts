/**
 * The client of internal services: the same API over tRPC, authenticated by a service key
 * (`Authorization: Bearer sgk_…`, or the operator's ADMIN_KEY) instead of a wallet. No signer,
 * no token store: the key is sent on every call, and a refused one is an error to act on
 * (`UNAUTHORIZED`: unknown, revoked or expired; `FORBIDDEN`: the key lacks the route's scope).
 *
 * To add a route: one method below, calling `trpc.<router>.<procedure>` with `{ context }`.
 */
import { toSignalApiError } from './api-error.js';
import { type CatalogueWriteMethods, catalogueWriteMethods } from './catalogue-writes.js';
import type { EventStreamOptions } from './event-stream.js';
import { serviceTransport } from './transport.js';
import { walk } from './walk.js';
import type {
  CreatedServiceKey,
  CreatedWebhookEndpoint,
  CreateServiceKeyBody,
  CreateWebhookBody,
  DeletedWebhook,
  DeliveryPage,
  Follower,
  FollowerPage,
  ProviderId,
  RevokedServiceKey,
  ServiceKeyPage,
  SignalEvent,
  WebhookEndpoint,
  WebhookPatch,
} from './wire.types.js';

export interface ServiceClientOptions {
  /** Where the API is served, e.g. `https://api.example.com`. */
  baseUrl: string;
  /** The service key (`sgk_…`) or ADMIN_KEY; keep it out of source code and logs. */
  key: string;
  /** A fetch implementation; default the global `fetch`. */
  fetch?: typeof globalThis.fetch;
}

/** Key management, followers, webhooks, and the catalogue writes of catalogue-writes.ts (provider writes, publishing). */
export interface SignalServiceClient extends CatalogueWriteMethods {
  /** `POST /admin/keys` (`keys:manage`): a new key; its secret `key` is in this answer only. */
  createKey(body: CreateServiceKeyBody): Promise<CreatedServiceKey>;
  /** `GET /admin/keys` (`keys:manage`): a page of keys, newest first, revoked ones included. */
  listKeys(query?: { page?: number; limit?: number }): Promise<ServiceKeyPage>;
  /** `DELETE /admin/keys/{id}` (`keys:manage`): refused from the next request on; idempotent. */
  revokeKey(id: string): Promise<RevokedServiceKey>;
  /**
   * `GET /providers/{id}/followers` (`followers:read`): one page by user id; pass its
   * `nextCursor` as `cursor` for the next (null at the end).
   */
  followersPage(providerId: ProviderId, query?: { limit?: number; cursor?: string }): Promise<FollowerPage>;
  /**
   * Every follower of a provider, by user id, fetched `limit` (default 1000) at a time as the
   * loop consumes them: `for await (const follower of service.followers(5))`. Everyone who
   * followed before the walk and stays is seen exactly once.
   */
  followers(providerId: ProviderId, options?: { limit?: number }): AsyncIterableIterator<Follower>;
  /** `POST /webhooks` (`webhooks:manage`): a new endpoint; its `secret` (`whsec_…`) is in this answer only. */
  createWebhook(body: CreateWebhookBody): Promise<CreatedWebhookEndpoint>;
  /** `GET /webhooks` (`webhooks:manage`): every endpoint, oldest first. */
  listWebhooks(): Promise<{ items: WebhookEndpoint[] }>;
  /** `GET /webhooks/{id}` (`webhooks:manage`). */
  getWebhook(id: string): Promise<WebhookEndpoint>;
  /** `PATCH /webhooks/{id}` (`webhooks:manage`): edit, disable (`enabled: false`) or enable. */
  updateWebhook(id: string, patch: WebhookPatch): Promise<WebhookEndpoint>;
  /** `DELETE /webhooks/{id}` (`webhooks:manage`): the endpoint, its pending deliveries and its log. */
  deleteWebhook(id: string): Promise<DeletedWebhook>;
  /**
   * `GET /webhooks/{id}/deliveries` (`webhooks:manage`): one page of the attempts, newest first;
   * pass its `nextCursor` as `cursor` for the next (null at the end).
   */
  webhookDeliveries(id: string, query?: { limit?: number; cursor?: string }): Promise<DeliveryPage>;
  events: {
    /**
     * The `events.stream` subscription (`events:read`) as an async iterator: every event from
     * now on, or right after the event id `after`, in feed order, each once; reconnects by
     * itself. `for await (const event of service.events.stream({ after: lastId, signal }))`.
     * Ends with a SignalApiError when the API refuses (key, scope, unknown `after`).
     */
    stream(options?: EventStreamOptions): AsyncGenerator<SignalEvent, void, undefined>;
  };
}

export function createServiceClient(options: ServiceClientOptions): SignalServiceClient {
  const { baseUrl, trpc } = serviceTransport(options);
  const context = { token: options.key };
  const followersPage = (id: ProviderId, query: { limit?: number; cursor?: string } = {}) =>
    trpc.followers.list.query({ id, ...query }, { context });
  return {
    createKey: (body) => trpc.keys.create.mutate(body, { context }),
    listKeys: (query = {}) => trpc.keys.list.query(query, { context }),
    revokeKey: (id) => trpc.keys.revoke.mutate({ id }, { context }),
    followersPage,
    followers: (id, { limit = 1000 } = {}) =>
      walk((query: { cursor?: string }) => followersPage(id, { limit, ...query }), {}),
    createWebhook: (body) => trpc.webhooks.create.mutate(body, { context }),
    listWebhooks: () => trpc.webhooks.list.query(undefined, { context }),
    getWebhook: (id) => trpc.webhooks.get.query({ id }, { context }),
    updateWebhook: (id, patch) => trpc.webhooks.update.mutate({ id, ...patch }, { context }),
    deleteWebhook: (id) => trpc.webhooks.delete.mutate({ id }, { context }),
    webhookDeliveries: (id, query = {}) => trpc.webhooks.deliveries.query({ id, ...query }, { context }),
    ...catalogueWriteMethods(trpc, options.key),
    events: {
      async *stream(streamOptions) {
        // Loaded on first use: the reader is not in the core bundle (event-stream.ts).
        const { readEventStream } = await import('./event-stream.js');
        yield* readEventStream(baseUrl, options.key, options.fetch, streamOptions ?? {}, (shape) =>
          toSignalApiError(shape, baseUrl),
        );
      },
    },
  };
}
