/**
 * Published performance (CONTRACT.md, Version 3) on PostgreSQL and PGlite, over REST and tRPC:
 * every derived figure of a random series with gaps, checked against the contract's formulas
 * written here again (a plain scan per figure, not the code under test), re-published dates,
 * the validation rules and body limits, the defaults before anything is published, and the
 * chart's windows with the weekly thinning of a three-year series (ISO weeks computed here
 * from the calendar rule, Thursday's year and week).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createServiceKey, expectError, trpcClient } from '../harness.js';
import { usePublishing } from '../publishing.js';

const DAY = 86_400_000;

type Point = { date: string; nav: number };

const iso = (time: number) => new Date(time).toISOString().slice(0, 10);
const time = (date: string) => Date.parse(`${date}T00:00:00Z`);

/** The contract's figures, from the definitions: asOf is the last date; nav(d) the latest point on or before d. */
function contractFigures(series: Point[]) {
  const sorted = [...series].sort((a, b) => time(a.date) - time(b.date));
  const last = sorted[sorted.length - 1] as Point;
  const navOnOrBefore = (t: number) => sorted.filter((p) => time(p.date) <= t).pop()?.nav ?? null;
  const roi = (days: number) => {
    const then = navOnOrBefore(time(last.date) - days * DAY);
    return then === null ? null : (last.nav / then - 1) * 100;
  };
  let drawdown = 0;
  for (let i = 0; i < sorted.length; i++) {
    const peak = Math.max(...sorted.slice(0, i + 1).map((p) => p.nav));
    drawdown = Math.max(drawdown, (1 - (sorted[i] as Point).nav / peak) * 100);
  }
  const roiAll = sorted.length < 2 ? null : (last.nav / (sorted[0] as Point).nav - 1) * 100;
  return {
    roi7dPct: roi(7),
    roi30dPct: roi(30),
    roi90dPct: roi(90),
    roiAllPct: roiAll,
    maxDrawdownPct: drawdown,
    tradingDays: sorted.length,
    asOf: last.date,
    totalReturnPct: roiAll ?? 0,
  };
}

/** ISO week of a date, by the calendar rule: the week belongs to the year of its Thursday. */
function isoWeek(date: string): string {
  const d = new Date(time(date));
  const weekday = (d.getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  const thursday = new Date(d.getTime() + (3 - weekday) * DAY);
  const year = thursday.getUTCFullYear();
  const week = 1 + Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * DAY));
  return `${year}-W${week}`;
}

/** The chart of a window from the contract: base, cumulative roi, running drawdown, thinned above 400. */
function contractChart(series: Point[], days: number | null) {
  const last = series[series.length - 1] as Point;
  let base = 0;
  if (days !== null) {
    const bound = time(last.date) - days * DAY;
    series.forEach((p, i) => {
      if (time(p.date) <= bound) base = i;
    });
  }
  const window = series.slice(base);
  const baseNav = (window[0] as Point).nav;
  let peak = baseNav;
  const full = window.map((p) => {
    peak = Math.max(peak, p.nav);
    return { date: p.date, roiPct: (p.nav / baseNav - 1) * 100, drawdownPct: (1 - p.nav / peak) * 100 };
  });
  if (full.length <= 400) return full;
  const lastOfWeek = new Map<string, number>();
  full.forEach((p, i) => {
    if (i > 0) lastOfWeek.set(isoWeek(p.date), i);
  });
  const keep = new Set([0, full.length - 1, ...lastOfWeek.values()]);
  return full.filter((_, i) => keep.has(i));
}

const close = (actual: number | null, expected: number | null) =>
  actual === null || expected === null
    ? actual === expected
    : Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected));

function expectFigures(stats: Record<string, unknown>, expected: Record<string, number | string | null>) {
  for (const [key, value] of Object.entries(expected)) {
    const actual = stats[key];
    if (typeof value === 'string' || typeof actual === 'string') expect(actual, key).toBe(value);
    else expect(close(actual as number | null, value), `${key}: ${actual} vs ${value}`).toBe(true);
  }
}

/** A random walk of daily points ending today, with gaps (missing days) and falls. */
function randomSeries(days: number, today: number, gapRate: number): Point[] {
  let nav = 50 + Math.random() * 100;
  const points: Point[] = [];
  for (let d = days - 1; d >= 0; d--) {
    nav *= Math.exp(0.0005 + 0.02 * (Math.random() * 2 - 1));
    if (d > 0 && d < days - 1 && Math.random() < gapRate) continue;
    points.push({ date: iso(today - d * DAY), nav });
  }
  return points;
}

describe.each(['postgres', 'pglite'] as const)('published performance on %s', (backend) => {
  const { api, adminKey: ADMIN_KEY, newProvider, publish, ...publishing } = usePublishing(backend);
  let publisher: string;
  let today: number;

  beforeAll(() => {
    publisher = publishing.publisher();
    today = publishing.today();
  });

  it('before anything is published: the defaults, and an empty chart', async () => {
    const id = await newProvider('Quiet Desk');
    const stats = await call(api, 'GET', `/providers/${id}/stats`);
    expect(stats.body).toMatchObject({
      totalSignals: 0,
      winRate: 0,
      avgReturnPct: 0,
      totalReturnPct: 0,
      maxDrawdownPct: 0,
      lastSignalAt: null,
      roi7dPct: null,
      roi30dPct: null,
      roi90dPct: null,
      roiAllPct: null,
      tradingDays: 0,
      asOf: null,
    });
    const chart = await call(api, 'GET', `/providers/${id}/performance`);
    expect(chart.body).toEqual({ providerId: id, window: '90d', asOf: null, points: [] });
  });

  it('a random series with gaps: every figure as the contract defines it; re-published dates count', async () => {
    const id = await newProvider('Random Walk Capital');
    const series = randomSeries(200, today - 3 * DAY, 0.25);
    // Published in two requests, the older half second, with the signals.
    const half = Math.floor(series.length / 2);
    expect((await publish(id, { points: series.slice(half) })).status).toBe(200);
    const signals = { total: 57, winning: 31, avgReturnPct: 0.42, lastSignalAt: '2026-01-02T03:04:05.000Z' };
    const reply = await publish(id, { points: series.slice(0, half), signals });
    expect(reply.status).toBe(200);
    expectFigures(reply.body, contractFigures(series));
    expect(reply.body).toMatchObject({
      providerId: id,
      totalSignals: 57,
      winRate: 31 / 57,
      avgReturnPct: 0.42,
      lastSignalAt: signals.lastSignalAt,
    });
    // The public reads say the same; the list row carries its three figures.
    const stats = (await call(api, 'GET', `/providers/${id}/stats`)).body;
    expect(stats).toEqual({ ...reply.body, updatedAt: stats.updatedAt });
    expect((await call(api, 'GET', `/providers/${id}`)).body).toMatchObject({
      roi30dPct: stats.roi30dPct,
      maxDrawdownPct: stats.maxDrawdownPct,
      winRate: stats.winRate,
    });

    // Re-published dates replace their values (the last of a date given twice counts), and
    // every figure is derived again from the whole series.
    const changed = series.map((p) => ({ ...p }));
    const targets = [0, 5, half, changed.length - 8, changed.length - 1];
    for (const i of targets) (changed[i] as Point).nav *= 0.5 + Math.random();
    const again = await publish(id, {
      points: [{ date: (changed[0] as Point).date, nav: 1 }, ...targets.map((i) => changed[i] as Point)],
    });
    expectFigures(again.body, contractFigures(changed));
    // Signals stay as published when a request sends points only.
    expect(again.body.totalSignals).toBe(57);

    // Over tRPC, the same figures.
    const viaTrpc = await trpcClient(api, publisher).providers.publish.mutate({ id, points: [] });
    expectFigures(viaTrpc as unknown as Record<string, unknown>, contractFigures(changed));
  });

  it('short series: nulls where no point is that old, and one point has no roiAll', async () => {
    const id = await newProvider('Young Fund');
    const one = await publish(id, { points: [{ date: iso(today), nav: 2 }] });
    expectFigures(one.body, {
      roi7dPct: null,
      roiAllPct: null,
      maxDrawdownPct: 0,
      tradingDays: 1,
      asOf: iso(today),
      totalReturnPct: 0,
    });
    const series = [
      { date: iso(today - 20 * DAY), nav: 10 },
      { date: iso(today - 7 * DAY), nav: 12 },
      { date: iso(today - 6 * DAY), nav: 9 },
      { date: iso(today), nav: 2 },
    ];
    const reply = await publish(id, { points: series.slice(0, 3) });
    expectFigures(reply.body, contractFigures([...series.slice(0, 3), { date: iso(today), nav: 2 }]));
    expect(reply.body.roi30dPct).toBeNull();
    expect(reply.body.roi7dPct).not.toBeNull();
  });

  it('refuses future dates, nav ≤ 0, 1,001 points, winning > total, unknown fields; 64 KiB only here', async () => {
    const id = await newProvider('Strict Books');
    const tomorrow = iso(today + DAY);
    const cases: [unknown, (string | number)[]][] = [
      [
        {
          points: [
            { date: iso(today), nav: 1 },
            { date: tomorrow, nav: 1 },
          ],
        },
        ['points', 1, 'date'],
      ],
      [{ points: [{ date: iso(today), nav: 0 }] }, ['points', 0, 'nav']],
      [{ points: [{ date: iso(today), nav: -3 }] }, ['points', 0, 'nav']],
      [{ points: [{ date: '2026-02-30', nav: 1 }] }, ['points', 0, 'date']],
      [{ points: Array.from({ length: 1001 }, (_, i) => ({ date: iso(today - i * DAY), nav: 1 })) }, ['points']],
      [{ signals: { total: 3, winning: 4, avgReturnPct: 0, lastSignalAt: null } }, ['signals', 'winning']],
      [{ signals: { total: -1, winning: 0, avgReturnPct: 0, lastSignalAt: null } }, ['signals', 'total']],
      [{ points: [], extra: true }, []],
    ];
    for (const [body, path] of cases) {
      const error = expectError(await publish(id, body), 400, 'VALIDATION_ERROR');
      if (path.length > 0)
        expect(
          error.issues?.map((i) => i.path),
          JSON.stringify(path),
        ).toContainEqual(path);
    }
    // Nothing was written by the refusals.
    expect((await call(api, 'GET', `/providers/${id}/stats`)).body.tradingDays).toBe(0);
    // 1,000 points (well over 16 KiB) are taken here; 16 KiB stays the limit elsewhere.
    const thousand = Array.from({ length: 1000 }, (_, i) => ({
      date: iso(today - (999 - i) * DAY),
      nav: 1.123456789 + i / 7,
    }));
    expect(JSON.stringify({ points: thousand }).length).toBeGreaterThan(40 * 1024);
    const accepted = await publish(id, { points: thousand });
    expect(accepted.status).toBe(200);
    expect(accepted.body.tradingDays).toBe(1000);
    expectError(await publish(id, { points: thousand, pad: 'x'.repeat(64 * 1024) }), 413, 'PAYLOAD_TOO_LARGE');
    expectError(
      await call(api, 'POST', '/providers', {
        token: ADMIN_KEY,
        body: { name: 'x', description: 'd'.repeat(17 * 1024) },
      }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    // Scope: a providers:write key cannot publish; unknown provider → 404.
    const writer = await createServiceKey(api, ADMIN_KEY, 'writer', ['providers:write']);
    expectError(await publish(id, { points: [] }, writer), 403, 'FORBIDDEN');
    expectError(await publish(9007199254740991, { points: [] }), 404, 'PROVIDER_NOT_FOUND');
  });

  it('windows and weekly thinning of a three-year series; an archived provider still takes publications', async () => {
    const id = await newProvider('Three Year Fund');
    const series = randomSeries(3 * 365 + 20, today, 0.04);
    for (let i = 0; i < series.length; i += 1000) {
      expect((await publish(id, { points: series.slice(i, i + 1000) })).status).toBe(200);
    }
    const windows: [string, number | null][] = [
      ['7d', 7],
      ['30d', 30],
      ['90d', 90],
      ['1y', 365],
      ['all', null],
    ];
    const stats = (await call(api, 'GET', `/providers/${id}/stats`)).body;
    for (const [window, days] of windows) {
      const reply = await call(api, 'GET', `/providers/${id}/performance?window=${window}`);
      expect(reply.status).toBe(200);
      expect(reply.body.asOf).toBe(iso(today));
      expect(reply.body.window).toBe(window);
      const expected = contractChart(series, days);
      expect(reply.body.points.map((p: { date: string }) => p.date)).toEqual(expected.map((p) => p.date));
      reply.body.points.forEach((p: { roiPct: number; drawdownPct: number }, i: number) => {
        expect(close(p.roiPct, (expected[i] as { roiPct: number }).roiPct)).toBe(true);
        expect(close(p.drawdownPct, (expected[i] as { drawdownPct: number }).drawdownPct)).toBe(true);
      });
      if (window === '7d' || window === '30d' || window === '90d') {
        expect(close(reply.body.points.at(-1).roiPct, stats[`roi${days}dPct`])).toBe(true);
      }
      if (days === null || days === 365) expect(reply.body.points.length).toBeLessThan(400);
    }
    // The default window is 90d; anything else → 400.
    expect((await call(api, 'GET', `/providers/${id}/performance`)).body.window).toBe('90d');
    expectError(await call(api, 'GET', `/providers/${id}/performance?window=2y`), 400, 'VALIDATION_ERROR');

    // Cacheable: a publication changes the ETag.
    const first = await call(api, 'GET', `/providers/${id}/performance?window=30d`);
    const etag = first.headers.get('etag') as string;
    expect(
      (await call(api, 'GET', `/providers/${id}/performance?window=30d`, { headers: { 'if-none-match': etag } }))
        .status,
    ).toBe(304);
    await publish(id, { points: [{ date: iso(today), nav: 1 }] });
    const after = await call(api, 'GET', `/providers/${id}/performance?window=30d`, {
      headers: { 'if-none-match': etag },
    });
    expect(after.status).toBe(200);
    expect(after.body.points.at(-1).roiPct).toBeLessThan(0);

    // Archived: hidden from the public, still publishable.
    await call(api, 'DELETE', `/providers/${id}`, { token: ADMIN_KEY });
    expectError(await call(api, 'GET', `/providers/${id}/performance`), 404, 'PROVIDER_NOT_FOUND');
    const published = await publish(id, { points: [{ date: iso(today), nav: 2 }] });
    expect(published.status).toBe(200);
  });
});
