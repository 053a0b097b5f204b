/**
 * The operator's side of the catalogue for internal services holding a service key: provider
 * writes (`providers:write`) and performance publishing (`stats:write`). The methods are made
 * by `catalogueWriteMethods` over a transport and a key, and `createServiceClient` (service-client.ts)
 * spreads them into its surface.
 *
 * `idempotencyKey` (the `Idempotency-Key` header) makes a create or a publication safe to
 * retry: within 24 h the same key with the same input returns the first answer and changes
 * nothing, even while the first attempt is still running.
 */
import type { CallContext, TransportClient } from './transport.js';
import type {
  PerformancePublishBody,
  ProviderArchived,
  ProviderCreateBody,
  ProviderId,
  ProviderPatch,
  ProviderStats,
  ProviderWrite,
} from './wire.types.js';

/** Per call: the `Idempotency-Key` to send (1..255 printable ASCII characters). */
export interface WriteOptions {
  idempotencyKey?: string;
}

export interface CatalogueWriteMethods {
  /** `POST /providers` (`providers:write`): the new provider, with `archived: false`. */
  createProvider(body: ProviderCreateBody, options?: WriteOptions): Promise<ProviderWrite>;
  /** `PATCH /providers/{id}` (`providers:write`): any non-empty subset of the fields, and/or `archived`. */
  updateProvider(id: ProviderId, patch: ProviderPatch): Promise<ProviderWrite>;
  /** `DELETE /providers/{id}` (`providers:write`): hidden from every public read; idempotent. */
  archiveProvider(id: ProviderId): Promise<ProviderArchived>;
  /** `PATCH /providers/{id}` with `archived: false`: back as it was, followers included. */
  restoreProvider(id: ProviderId): Promise<ProviderWrite>;
  /**
   * `POST /providers/{id}/performance` (`stats:write`): NAV points (at most 1,000 a call,
   * upserted by date) and/or signal counters; answers the provider's Stats, derived again from
   * the whole stored series.
   */
  publishPerformance(id: ProviderId, body: PerformancePublishBody, options?: WriteOptions): Promise<ProviderStats>;
}

/** @internal The methods over `trpc`, every call authenticated by `token` (a service key). */
export function catalogueWriteMethods(trpc: TransportClient, token: string): CatalogueWriteMethods {
  const context = (options: WriteOptions = {}): CallContext => ({ token, idempotencyKey: options.idempotencyKey });
  const update = (id: ProviderId, patch: ProviderPatch) =>
    trpc.providers.update.mutate({ id, ...patch }, { context: context() });
  return {
    createProvider: (body, options) => trpc.providers.create.mutate(body, { context: context(options) }),
    updateProvider: update,
    archiveProvider: (id) => trpc.providers.archive.mutate({ id }, { context: context() }),
    restoreProvider: (id) => update(id, { archived: false }),
    publishPerformance: (id, body, options) =>
      trpc.providers.publish.mutate({ id, ...body }, { context: context(options) }),
  };
}
