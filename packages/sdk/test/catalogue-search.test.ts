/**
 * The catalogue's sorts, filters and name search, and the performance chart, through the SDK
 * against the running API with its demo seed (every provider publishes a NAV series): each
 * answer is checked against an order or a selection computed here from the providers' own
 * figures (their Stats), not against another call of the same list.
 */
import { randomBytes } from 'node:crypto';
import { PERFORMANCE_WINDOWS, PROVIDER_SORT_FIELDS } from '@signal/core';
import {
  createClient,
  createServiceClient,
  type Provider,
  type ProviderFilters,
  type ProviderSortBy,
  type ProviderStats,
  type SignalClient,
  type SortOrder,
} from '@signal/sdk';
import { beforeAll, describe, expect, it } from 'vitest';
import { failure, SEEDED_PROVIDERS, useApi } from './support/api.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
const api = useApi('postgres', { env: { ADMIN_KEY } });
let signal: SignalClient;
/** Every provider of the catalogue with its Stats, read one by one. */
let rows: { provider: Provider; stats: ProviderStats }[];

beforeAll(async () => {
  signal = createClient({ baseUrl: api.url });
  // Names the search must take literally (`%`, `_`, `\`) and in another case.
  const operator = createServiceClient({ baseUrl: api.url, key: ADMIN_KEY });
  for (const name of ['100% Alpha_Desk', '100x Alpha Desk', 'Back\\slash Capital'])
    await operator.createProvider({ name });
  const providers: Provider[] = [];
  for await (const provider of signal.providers.all({ limit: 100 })) providers.push(provider);
  rows = await Promise.all(
    providers.map(async (provider) => ({ provider, stats: await signal.providers.stats(provider.id) })),
  );
});

/** A provider's value for a sort, from its Stats; null when the figure does not exist yet. */
function sortKey(row: (typeof rows)[number], sortBy: ProviderSortBy): number | string | null {
  return SORT_KEYS[sortBy](row);
}

/** Where each sort reads its key: the provider's own fields, else the Stats figure it names. */
const SORT_KEYS: Record<ProviderSortBy, (row: (typeof rows)[number]) => number | string | null> = {
  followerCount: ({ provider }) => provider.followerCount,
  createdAt: ({ provider }) => Date.parse(provider.createdAt),
  name: ({ provider }) => provider.name,
  id: ({ provider }) => provider.id,
  roi7d: ({ stats }) => stats.roi7dPct,
  roi30d: ({ stats }) => stats.roi30dPct,
  roi90d: ({ stats }) => stats.roi90dPct,
  roiAll: ({ stats }) => stats.roiAllPct,
  maxDrawdown: ({ stats }) => stats.maxDrawdownPct,
  winRate: ({ stats }) => stats.winRate,
  tradingDays: ({ stats }) => stats.tradingDays,
};

/** The contract's order: by the key in the direction, nulls last in both, ties by id in the same direction. */
function expectedOrder(selected: typeof rows, sortBy: ProviderSortBy, order: SortOrder): number[] {
  const sign = order === 'asc' ? 1 : -1;
  const compare = (a: number | string, b: number | string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...selected]
    .sort((a, b) => {
      const ka = sortKey(a, sortBy);
      const kb = sortKey(b, sortBy);
      if (ka === null || kb === null) {
        if (ka !== kb) return ka === null ? 1 : -1;
      } else if (ka !== kb) {
        return sign * compare(ka, kb);
      }
      return sign * (a.provider.id - b.provider.id);
    })
    .map((row) => row.provider.id);
}

/** The providers a set of filters keeps, decided here from their Stats. */
function matching(filters: ProviderFilters): typeof rows {
  return rows.filter(({ provider, stats }) => {
    const atLeast = (value: number | null, min: number | undefined) =>
      min === undefined || (value !== null && value >= min);
    return (
      (filters.q === undefined || provider.name.toLowerCase().includes(filters.q.toLowerCase())) &&
      atLeast(stats.roi30dPct, filters.minRoi30dPct) &&
      (filters.maxDrawdownPct === undefined || stats.maxDrawdownPct <= filters.maxDrawdownPct) &&
      atLeast(stats.winRate, filters.minWinRate) &&
      atLeast(stats.tradingDays, filters.minTradingDays) &&
      atLeast(stats.followerCount, filters.minFollowers)
    );
  });
}

describe('providers.list: typed sorts and filters', () => {
  it('the seed gives the figures something to sort: some null, most not', () => {
    expect(rows).toHaveLength(SEEDED_PROVIDERS + 3);
    expect(rows.some((row) => row.stats.roi90dPct === null)).toBe(true);
    expect(rows.filter((row) => row.stats.roi30dPct !== null).length).toBeGreaterThan(SEEDED_PROVIDERS / 2);
  });

  it.each(
    PROVIDER_SORT_FIELDS.flatMap((sortBy) => (['asc', 'desc'] as const).map((order) => [sortBy, order] as const)),
  )('sortBy %s, %s: the order computed from the figures, nulls last', async (sortBy, order) => {
    const page = await signal.providers.list({ sortBy, order, limit: 100 });
    expect(page.items.map((provider) => provider.id)).toEqual(expectedOrder(rows, sortBy, order));
    expect(page.total).toBe(rows.length);
  });

  it('filters alone and combined, with any sort; total counts the matches', async () => {
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
    const roi30 = median(rows.flatMap((row) => (row.stats.roi30dPct === null ? [] : [row.stats.roi30dPct])));
    const drawdown = median(rows.map((row) => row.stats.maxDrawdownPct));
    const cases: [ProviderFilters, ProviderSortBy][] = [
      [{ minRoi30dPct: roi30 }, 'roi30d'],
      [{ maxDrawdownPct: drawdown }, 'maxDrawdown'],
      [{ minWinRate: 0.5 }, 'winRate'],
      [{ minTradingDays: 60 }, 'tradingDays'],
      [{ minFollowers: 10 }, 'followerCount'],
      [{ minRoi30dPct: -5, maxDrawdownPct: drawdown, minWinRate: 0.3, minTradingDays: 10 }, 'roi90d'],
    ];
    for (const [filters, sortBy] of cases) {
      const expected = matching(filters);
      expect(expected.length, JSON.stringify(filters)).toBeGreaterThan(0);
      expect(expected.length, JSON.stringify(filters)).toBeLessThan(rows.length);
      const page = await signal.providers.list({ ...filters, sortBy, order: 'desc', limit: 100 });
      expect(page.items.map((provider) => provider.id)).toEqual(expectedOrder(expected, sortBy, 'desc'));
      expect(page.total).toBe(expected.length);
    }
  });

  it('q: a case-insensitive substring, with % _ and \\ taken literally', async () => {
    const names = async (filters: ProviderFilters) =>
      (await signal.providers.list({ ...filters, sortBy: 'name', order: 'asc', limit: 100 })).items.map((p) => p.name);
    expect(await names({ q: '100% alpha_' })).toEqual(['100% Alpha_Desk']);
    expect(await names({ q: 'ALPHA' })).toEqual(
      matching({ q: 'alpha' })
        .map((row) => row.provider.name)
        .sort(),
    );
    expect(await names({ q: 'k\\s' })).toEqual(['Back\\slash Capital']);
    expect(await names({ q: 'no provider is called this' })).toEqual([]);
  });

  it('all(): a cursor walk under a sort with filters returns the matches in order', async () => {
    const filters: ProviderFilters = { minTradingDays: 1, maxDrawdownPct: 80 };
    const walked: number[] = [];
    for await (const provider of signal.providers.all({ ...filters, sortBy: 'roi30d', order: 'asc', limit: 4 })) {
      walked.push(provider.id);
    }
    expect(walked).toEqual(expectedOrder(matching(filters), 'roi30d', 'asc'));
  });

  it('a cursor sent with other filters, and a filter out of range, are typed 400s', async () => {
    const first = await signal.providers.list({ minTradingDays: 1, sortBy: 'winRate', limit: 2 });
    const cursor = first.nextCursor as string;
    const replayed = await failure(signal.providers.list({ cursor, minTradingDays: 2, sortBy: 'winRate' }));
    expect(replayed.code).toBe('VALIDATION_ERROR');
    const outOfRange = await failure(signal.providers.list({ minWinRate: 1.5 }));
    expect(outOfRange.code).toBe('VALIDATION_ERROR');
    expect(outOfRange.issues.map((issue) => issue.path)).toEqual([['minWinRate']]);
  });
});

describe('providers.performance(id, window)', () => {
  it('each window runs from its base (0 %) to asOf; 7d, 30d and 90d end at the ROI of that window', async () => {
    const { provider, stats } = rows.find((row) => row.stats.roi90dPct !== null) as (typeof rows)[number];
    const endsAt = { '7d': stats.roi7dPct, '30d': stats.roi30dPct, '90d': stats.roi90dPct } as Record<string, number>;
    for (const window of PERFORMANCE_WINDOWS) {
      const chart = await signal.providers.performance(provider.id, window);
      expect(chart).toMatchObject({ providerId: provider.id, window, asOf: stats.asOf });
      expect(chart.points[0]?.roiPct).toBe(0);
      expect(chart.points.at(-1)?.date).toBe(stats.asOf);
      expect(chart.points.every((point) => point.drawdownPct >= 0)).toBe(true);
      if (window in endsAt) expect(chart.points.at(-1)?.roiPct).toBeCloseTo(endsAt[window] as number, 9);
      if (window === 'all') {
        expect(chart.points.at(-1)?.roiPct).toBeCloseTo(stats.roiAllPct as number, 9);
        // Weekly thinning past 400 points may drop the deepest day, never add a deeper one.
        expect(Math.max(...chart.points.map((point) => point.drawdownPct))).toBeLessThanOrEqual(
          stats.maxDrawdownPct + 1e-9,
        );
      }
    }
    expect((await signal.providers.performance(provider.id)).window).toBe('90d');
  });

  it('a provider with nothing published: asOf null, no points; an unknown one: PROVIDER_NOT_FOUND', async () => {
    const unpublished = rows.find((row) => row.stats.tradingDays === 0) as (typeof rows)[number];
    expect(await signal.providers.performance(unpublished.provider.id, '1y')).toEqual({
      providerId: unpublished.provider.id,
      window: '1y',
      asOf: null,
      points: [],
    });
    expect((await failure(signal.providers.performance(9_999_999))).code).toBe('PROVIDER_NOT_FOUND');
  });
});
