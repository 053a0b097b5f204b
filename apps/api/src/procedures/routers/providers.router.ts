import {
  type FollowResult,
  FollowResultSchema,
  PerformanceQuerySchema,
  PerformanceSchema,
  ProviderIdParamsSchema,
  ProviderListQuerySchema,
  ProviderPageSchema,
  ProviderSchema,
  ProviderStatsSchema,
  type UnfollowResult,
  UnfollowResultSchema,
} from '@signal/core';
import * as examples from '@signal/core/examples';
import type { TokenClaims } from '@signal/core/token';
import {
  type Database,
  type FollowOutcome,
  findPerformance,
  findProvider,
  findProviderStats,
  followProvider,
  listProviders,
  unfollowProvider,
} from '@signal/db';
import type { Kysely } from 'kysely';
import {
  providerDetailCache,
  providerListCache,
  providerPerformanceCache,
  providerStatsCache,
} from '../cache-policy.js';
import type { Context } from '../context.js';
import { providerListPaging } from '../paging.js';
import { providerRead } from '../provider-read.js';
import { followLimitedProcedure, readLimitedProcedure } from '../rate-limit.js';
import { readCatalogue } from '../read-replica.js';
import { publicRead } from '../route-meta.js';
import { withSearchBudget } from '../search-budget.js';
import { mergeRouters, providerNotFound, router, walletNotFound } from '../trpc.js';
import { providerWritesRouter } from './provider-writes.router.js';

/**
 * `/providers/{id}/follow`, POST to follow and DELETE to unfollow: one route in two directions,
 * so both keep the same parameters, errors, rate limit and example request; only the words, the
 * answer and the change made differ.
 */
function followRoute(direction: {
  method: 'POST' | 'DELETE';
  summary: string;
  description: string;
  example: FollowResult | UnfollowResult;
}) {
  return followLimitedProcedure
    .meta({
      openapi: {
        method: direction.method,
        path: '/providers/{id}/follow',
        tags: ['providers'],
        summary: direction.summary,
        description: direction.description,
        protect: true,
        example: { request: { id: direction.example.providerId }, response: direction.example },
      },
      errors: ['PROVIDER_NOT_FOUND', 'WALLET_NOT_FOUND', 'RATE_LIMITED'],
    })
    .input(ProviderIdParamsSchema);
}

/** Makes a follow change for the signed-in user and answers its result, or the contract's 404. */
async function changeFollow<Result>(
  ctx: { services: Context['services']; auth: TokenClaims },
  providerId: number,
  change: (
    db: Kysely<Database>,
    input: { userId: number; providerId: number; now: Date },
  ) => Promise<FollowOutcome<Result>>,
): Promise<Result> {
  const { database, now } = ctx.services;
  const outcome = await change(database.db, { userId: ctx.auth.userId, providerId, now: now() });
  if (outcome === 'provider-not-found') throw providerNotFound(providerId);
  if (outcome === 'user-not-found') throw walletNotFound();
  return outcome;
}

/** The catalogue's public reads but the chart (below), and follows. */
const catalogueRouter = router({
  list: readLimitedProcedure
    .meta({
      cache: providerListCache,
      openapi: publicRead({
        path: '/providers',
        tags: ['providers'],
        summary: 'List providers',
        description:
          'A page of the catalogue. Sorted by followerCount (default), createdAt, name (by code point), id, or a ' +
          'performance figure (roi7d, roi30d, roi90d, roiAll, maxDrawdown, winRate, tradingDays; a provider ' +
          'without the figure comes last in both orders), desc (default) or asc; ties are broken by id in the same ' +
          'direction, so pages never repeat or skip a provider. Past the last page the items are empty. Unknown ' +
          'query parameters are ignored. ' +
          'Instead of `page`, `cursor` takes the `nextCursor` of an earlier page: the next page at the same cost at ' +
          'any depth, and a walk by cursor never repeats or skips a provider whose sort key did not change meanwhile ' +
          '(`page` is then null). Filters, each optional, combine with AND and with any sort: `q` (name search), ' +
          '`minRoi30dPct`, `maxDrawdownPct`, `minWinRate`, `minTradingDays`, `minFollowers` (a provider without ' +
          'the figure fails a filter on it); `total` and `totalPages` count the matches. A cursor carries its sort and filters: sent ' +
          'alone it continues them; sent with a sort or any filter, the filter set must be the same (else 400). ' +
          'Without a token the answer carries an ETag and a short public Cache-Control.',
        example: {
          // No filter: /docs prefills "Try it out" with the example, which should list the whole catalogue.
          request: { page: 1, limit: 2, sortBy: 'followerCount', order: 'desc' },
          response: examples.providerPage,
        },
      }),
      errors: ['RATE_LIMITED'],
    })
    .input(ProviderListQuerySchema)
    .output(ProviderPageSchema)
    .query(({ input, ctx }) => {
      const paging = providerListPaging(ctx.services.cursors, input);
      // A search the name index cannot narrow spends the address's database-time budget.
      return withSearchBudget(ctx, paging.filters.q, () =>
        readCatalogue(ctx, (db) => listProviders(db, paging, ctx.cache)),
      );
    }),

  get: readLimitedProcedure
    .meta({
      cache: providerDetailCache,
      openapi: publicRead({
        path: '/providers/{id}',
        tags: ['providers'],
        summary: 'One provider',
        description: 'The provider with this id; 404 `PROVIDER_NOT_FOUND` if there is none.',
        example: { request: { id: examples.provider.id }, response: examples.provider },
      }),
      errors: ['PROVIDER_NOT_FOUND', 'RATE_LIMITED'],
    })
    .input(ProviderIdParamsSchema)
    .output(ProviderSchema)
    .query(async ({ input, ctx }) => {
      const provider = await readCatalogue(ctx, (db) => findProvider(db, input.id, ctx.cache));
      if (!provider) throw providerNotFound(input.id);
      return provider;
    }),

  stats: providerRead({
    cache: providerStatsCache,
    path: '/providers/{id}/stats',
    summary: 'Statistics of a provider',
    description:
      'Follower figures come from the follow relation (followers gained = current follows created in the last ' +
      '7 / 30 days); signal figures are stored per provider. 404 `PROVIDER_NOT_FOUND` if there is no such provider.',
    example: { request: { id: examples.providerStats.providerId }, response: examples.providerStats },
    answer: ProviderStatsSchema,
    read: (ctx, id) => readCatalogue(ctx, (db) => findProviderStats(db, id, ctx.services.now())),
  }),

  follow: followRoute({
    method: 'POST',
    summary: 'Follow a provider',
    description:
      'Makes the signed-in user follow the provider and returns its new follower count. Takes no body. ' +
      'Idempotent: following again changes nothing and returns the same body.',
    example: examples.followResult,
  })
    .output(FollowResultSchema)
    .mutation(({ input, ctx }) => changeFollow(ctx, input.id, followProvider)),

  unfollow: followRoute({
    method: 'DELETE',
    summary: 'Unfollow a provider',
    description:
      'Makes the signed-in user stop following the provider and returns its new follower count. ' +
      'Idempotent: unfollowing again changes nothing and returns the same body.',
    example: examples.unfollowResult,
  })
    .output(UnfollowResultSchema)
    .mutation(({ input, ctx }) => changeFollow(ctx, input.id, unfollowProvider)),
});

/** The public performance chart, read like the stats from what the operator publishes. */
const chartRouter = router({
  performance: readLimitedProcedure
    .meta({
      cache: providerPerformanceCache,
      openapi: publicRead({
        path: '/providers/{id}/performance',
        tags: ['providers'],
        summary: 'Performance chart of a provider',
        description:
          'The published NAV series as a chart over `window` (7d, 30d, 90d (default), 1y = 365 days, all), as of ' +
          'its last date: from the base (the latest point on or before asOf − window, else the first point) to ' +
          'asOf, `roiPct` cumulative from the base and `drawdownPct` the fall from the peak since the base. Above ' +
          '400 points: the base, the last point of each ISO week after it, and the last point. Nothing published: ' +
          '`asOf` null and no points. Cacheable like the stats (ETag changes with every publication).',
        example: { request: { id: examples.performance.providerId, window: '7d' }, response: examples.performance },
      }),
      errors: ['PROVIDER_NOT_FOUND', 'RATE_LIMITED'],
    })
    .input(PerformanceQuerySchema)
    .output(PerformanceSchema)
    .query(async ({ input, ctx }) => {
      const chart = await readCatalogue(ctx, (db) => findPerformance(db, input.id, input.window, ctx.cache));
      if (!chart) throw providerNotFound(input.id);
      return chart;
    }),
});

/**
 * The `providers` namespace. The operator's writes (provider-writes.router.ts) come before the
 * chart: the procedures' order is the OpenAPI document's, which lists POST
 * /providers/{id}/performance before its GET.
 */
export const providersRouter = mergeRouters(catalogueRouter, providerWritesRouter, chartRouter);
