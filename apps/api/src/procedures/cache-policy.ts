/**
 * Which procedures' answers may be cached, and how: each cacheable procedure names its policy
 * in its meta (`cache`, see trpc.ts's Meta), and everything else reads it from there — the REST
 * host's ETags and answer cache (http/caching.ts, handed the bound table by the composition
 * root) and the OpenAPI document's caching headers (openapi/document.ts). No list to keep.
 *
 * Validation comes before revalidation: RFC 9110 §13.2.1 has a server ignore preconditions when
 * the answer without them would not be a 2xx, so `?limit=abc` with a matching If-None-Match (or
 * `*`) is a 400, never a 304. The input is checked here as the procedure checks it (its schema;
 * for the list, its paging and cursor too), since the catalogue's version does not depend on it.
 * Nothing here reads the database: http/caching.ts reads the versions an identity names (one
 * statement for the requests that arrive together) and builds the ETags.
 */
import { PerformanceQuerySchema, ProviderIdParamsSchema, ProviderListQuerySchema } from '@signal/core';
import { type AnswerIdentity, performanceVersion, statsValidUntil } from '@signal/db';
import type { AnyRouter } from '@trpc/server';
import type { CacheMeta } from './cache-meta.js';
import type { Context, Services } from './context.js';
import { providerListPaging } from './paging.js';
import { countCatalogueRead } from './rate-limit.js';

export type { CacheMeta } from './cache-meta.js';

export const providerListCache: CacheMeta = {
  identify: (input, services) => {
    const parsed = ProviderListQuerySchema.safeParse(input);
    if (!parsed.success) return undefined;
    try {
      // What listProviders reads, and nothing else: the page is a function of it and the data.
      const { page, limit, after, sortBy, order, filters } = providerListPaging(services.cursors, parsed.data);
      return { key: `L${JSON.stringify([page, limit, after, sortBy, order, filters])}` };
    } catch {
      return undefined;
    }
  },
  versionKind: 'c',
};

export const providerDetailCache: CacheMeta = {
  identify: (input) => {
    const parsed = ProviderIdParamsSchema.safeParse(input);
    return parsed.success ? { key: `D${parsed.data.id}`, provider: parsed.data.id } : undefined;
  },
};

export const providerStatsCache: CacheMeta = {
  identify: (input) => {
    const parsed = ProviderIdParamsSchema.safeParse(input);
    if (!parsed.success) return undefined;
    const { id } = parsed.data;
    // The 7- and 30-day follower figures move with the clock: reused only until the next follow leaves a window.
    return { key: `S${id}`, provider: id, validUntil: (db, now) => statsValidUntil(db, id, now) };
  },
};

export const providerPerformanceCache: CacheMeta = {
  // The chart changes only when the pipeline publishes, which bumps the provider's version.
  identify: (input) => {
    const parsed = PerformanceQuerySchema.safeParse(input);
    if (!parsed.success) return undefined;
    const { id, window } = parsed.data;
    return { key: `F${id}.${window}`, provider: id, version: (source) => performanceVersion(source, window) };
  },
  versionKind: 'f',
};

/** A policy bound to this server's services: what the REST host is handed. */
export interface BoundCachePolicy {
  identify: (input: Record<string, unknown>) => AnswerIdentity | undefined;
  versionKind: string;
}

/** Every procedure of `router` whose meta has a cache policy, by its path. */
export function cacheMetaOf(router: AnyRouter): Map<string, CacheMeta> {
  const table = new Map<string, CacheMeta>();
  for (const [path, procedure] of Object.entries(
    router._def.procedures as Record<string, { _def: { meta?: unknown } }>,
  )) {
    const cache = (procedure._def.meta as { cache?: CacheMeta } | undefined)?.cache;
    if (cache) table.set(path, cache);
  }
  return table;
}

/** The router's cache policies bound to `services` (the composition root hands them to http/). */
export function cachePolicies(router: AnyRouter, services: Services): Map<string, BoundCachePolicy> {
  const bound = new Map<string, BoundCachePolicy>();
  for (const [path, meta] of cacheMetaOf(router)) {
    bound.set(path, {
      identify: (input) => meta.identify(input, services),
      versionKind: meta.versionKind ?? 'p',
    });
  }
  return bound;
}

/**
 * What the REST host's caching needs of the procedures' side, besides the policies: a read
 * answered without its procedure (a 304, a kept answer) counted for the per-address limit as the
 * procedure would have counted it.
 */
export function cacheReads(services: Services) {
  return {
    countRead: (ctx: Pick<Context, 'req' | 'res'>) => countCatalogueRead({ services, ...ctx }),
  };
}
