/**
 * The operator's side through the SDK against the real API, as a publisher script would use it:
 * create a provider, publish a series and signals (retried safely with an idempotency key),
 * read the chart with the public client, archive and restore; scope errors are typed.
 */
import { randomBytes } from 'node:crypto';
import { createClient, createServiceClient } from '@signal/sdk';
import { describe, expect, it } from 'vitest';
import { failure, useApi } from './support/api.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;

const api = useApi('postgres', { env: { ADMIN_KEY } });

const day = (offset: number) => new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);

describe('createServiceClient', () => {
  it('creates, publishes (idempotently), charts, archives and restores a provider', async () => {
    const operator = createServiceClient({ baseUrl: api.url, key: ADMIN_KEY });
    const reader = createClient({ baseUrl: api.url });
    const key = `create-${randomBytes(6).toString('hex')}`;
    const created = await operator.createProvider({ name: ' SDK Desk ' }, { idempotencyKey: key });
    expect(created).toMatchObject({ name: 'SDK Desk', archived: false, followerCount: 0 });
    expect(await operator.createProvider({ name: ' SDK Desk ' }, { idempotencyKey: key })).toEqual(created);

    const points = Array.from({ length: 40 }, (_, i) => ({ date: day(39 - i), nav: 100 * 1.01 ** i }));
    const signals = { total: 10, winning: 7, avgReturnPct: 0.5, lastSignalAt: null };
    const stats = await operator.publishPerformance(created.id, { points, signals }, { idempotencyKey: `pub-${key}` });
    expect(stats.tradingDays).toBe(40);
    expect(stats.winRate).toBe(0.7);
    expect(stats.roi30dPct).toBeCloseTo((1.01 ** 30 - 1) * 100, 9);
    expect(stats.asOf).toBe(day(0));

    const chart = await reader.providers.performance(created.id, '30d');
    expect(chart.points).toHaveLength(31);
    expect(chart.points.at(-1)?.roiPct).toBeCloseTo(stats.roi30dPct as number, 9);
    expect((await reader.providers.performance(created.id)).window).toBe('90d');

    expect(await operator.archiveProvider(created.id)).toEqual({ id: created.id, archived: true });
    expect((await failure(reader.providers.get(created.id))).code).toBe('PROVIDER_NOT_FOUND');
    expect(await operator.restoreProvider(created.id)).toMatchObject({ id: created.id, archived: false });
    expect((await operator.updateProvider(created.id, { description: 'Daily NAV' })).description).toBe('Daily NAV');
    expect((await reader.providers.get(created.id)).roi30dPct).toBe(stats.roi30dPct);
  });

  it('a wrong key or input is a typed error', async () => {
    const stranger = createServiceClient({ baseUrl: api.url, key: 'sgk_not_a_key' });
    expect((await failure(stranger.createProvider({ name: 'X' }))).code).toBe('UNAUTHORIZED');
    const operator = createServiceClient({ baseUrl: api.url, key: ADMIN_KEY });
    const refused = await failure(operator.createProvider({ name: '' }));
    expect(refused.code).toBe('VALIDATION_ERROR');
    expect(refused.issues?.[0]?.path).toEqual(['name']);
  });
});
