/**
 * The edges of published performance (issue 42, items 5 and 9; CONTRACT.md, Version 4, "Changes
 * to earlier versions"), on PostgreSQL and PGlite: a body that is not a JSON object is refused;
 * `nav` outside [1e-9, 1e15] and dates before 1900-01-01 are refused naming the field; and no
 * accepted series makes a public read answer 5xx, shown by the series that did (a base of 1e-300
 * a year back, 1e300 today: the 1y chart's ratio was Infinity) and by a property test over random
 * extreme series, every window of the chart and every figure read answering 200 with finite
 * numbers or null.
 */
import { describeBackends } from '@signal/test-support/vitest';
import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { call, expectError } from '../harness.js';
import { usePublishing } from '../publishing.js';

const DAY = 86_400_000;
const WINDOWS = ['7d', '30d', '90d', '1y', 'all'] as const;
const iso = (time: number) => new Date(time).toISOString().slice(0, 10);

/** Every number in a JSON answer, with its path: each must be finite (null is not a number). */
function nonFinite(value: unknown, path = '$'): string[] {
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [path];
  if (Array.isArray(value)) return value.flatMap((item, i) => nonFinite(item, `${path}[${i}]`));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => nonFinite(item, `${path}.${key}`));
  }
  return [];
}

describeBackends('the edges of published performance on %s', (backend) => {
  const { api, adminKey: ADMIN_KEY, newProvider, publish, publisher, today: todayOf } = usePublishing(backend);
  const publishRaw = (id: number, text: string) =>
    call(api, 'POST', `/providers/${id}/performance`, {
      token: publisher(),
      rawBody: text,
      headers: { 'content-type': 'application/json' },
    });
  let today: number;

  /** Every public read that shows the provider's figures: each 200 with finite numbers or null. */
  const expectReadable = async (id: number, name: string) => {
    const paths = [
      ...WINDOWS.map((window) => `/providers/${id}/performance?window=${window}`),
      `/providers/${id}`,
      `/providers/${id}/stats`,
      `/providers?q=${encodeURIComponent(name)}&sortBy=roiAll`,
      `/providers?q=${encodeURIComponent(name)}&sortBy=maxDrawdown&order=asc`,
    ];
    for (const path of paths) {
      const reply = await call(api, 'GET', path);
      expect(reply.status, `${path}: ${JSON.stringify(reply.body)}`).toBe(200);
      expect(nonFinite(reply.body), path).toEqual([]);
    }
  };

  beforeAll(() => {
    today = todayOf();
  });

  it('a body that is not a JSON object ([], null, "x", 1) → 400, nothing published; {} publishes nothing', async () => {
    const id = await newProvider('Object Bodies Only');
    for (const text of ['[]', 'null', '"x"', '1', '[{"date":"2026-01-01","nav":1}]']) {
      const reply = await publishRaw(id, text);
      expectError(reply, 400, 'VALIDATION_ERROR');
    }
    const empty = await publishRaw(id, '{}');
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ providerId: id, tradingDays: 0, asOf: null });
    // Nothing was published: no event, the stats as before anything.
    const stats = await call(api, 'GET', `/providers/${id}/stats`);
    expect(stats.body).toMatchObject({ tradingDays: 0, asOf: null, totalSignals: 0 });
    // Another route with a body and a path parameter refuses a non-object too; follow, which
    // takes no body, still ignores one.
    expectError(
      await call(api, 'PATCH', `/providers/${id}`, {
        token: ADMIN_KEY,
        rawBody: '[]',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('nav outside [1e-9, 1e15] and dates before 1900-01-01 → 400 naming the field; the bounds themselves accepted', async () => {
    const id = await newProvider('Bounded Nav');
    const refused: [unknown, (string | number)[]][] = [
      [{ date: iso(today), nav: 0 }, ['points', 0, 'nav']],
      [{ date: iso(today), nav: 9.99e-10 }, ['points', 0, 'nav']],
      [{ date: iso(today), nav: 1.0000001e15 }, ['points', 0, 'nav']],
      [{ date: iso(today), nav: 1e300 }, ['points', 0, 'nav']],
      [{ date: '0000-01-01', nav: 1 }, ['points', 0, 'date']],
      [{ date: '1899-12-31', nav: 1 }, ['points', 0, 'date']],
    ];
    for (const [point, path] of refused) {
      const body = expectError(await publish(id, { points: [point] }), 400, 'VALIDATION_ERROR');
      expect(
        body.issues?.map((issue) => issue.path),
        JSON.stringify(point),
      ).toContainEqual(path);
      expect(body.message).toContain(path.join('.'));
    }
    // A number JSON cannot hold (1e400 parses as Infinity) is refused as well.
    const huge = await publishRaw(id, `{"points":[{"date":"${iso(today)}","nav":1e400}]}`);
    expectError(huge, 400, 'VALIDATION_ERROR');
    expect((await call(api, 'GET', `/providers/${id}/stats`)).body.tradingDays).toBe(0);

    const accepted = await publish(id, {
      points: [
        { date: '1900-01-01', nav: 1e-9 },
        { date: iso(today), nav: 1e15 },
      ],
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.roiAllPct).toBeCloseTo((1e15 / 1e-9 - 1) * 100, -12);
    await expectReadable(id, 'Bounded Nav');
  });

  it('the series that broke the 1y chart (a tiny base a year back, a huge NAV today): every read 200', async () => {
    // Before: 1e-300 on the 1y base and 1e300 today passed (the 7/30/90-day and all-time figures
    // are finite), and every read of ?window=1y answered 500 (roiPct Infinity, which the answer
    // schema refused) with a stack trace logged. Now those NAVs are refused, and the extremes that
    // remain accepted give finite answers everywhere.
    const id = await newProvider('Cliff Edge Fund');
    const series = (low: number, high: number) => ({
      points: [
        { date: iso(today - 2000 * DAY), nav: 1 },
        { date: iso(today - 400 * DAY), nav: low },
        { date: iso(today - 100 * DAY), nav: 1 },
        { date: iso(today), nav: high },
      ],
    });
    expectError(await publish(id, series(1e-300, 1e300)), 400, 'VALIDATION_ERROR');
    expect((await publish(id, series(1e-9, 1e15))).status).toBe(200);
    await expectReadable(id, 'Cliff Edge Fund');
  });

  it('property: any accepted series, however extreme, leaves every public read 200 with finite numbers', async () => {
    const first = Date.UTC(1900, 0, 1);
    const days = Math.floor((today - first) / DAY);
    const nav = fc.oneof(
      fc.constantFrom(1e-9, 1e15, 1, 1.0000000000000002, 999_999_999_999_999.9),
      fc.double({ min: 1e-9, max: 1e15, noNaN: true }),
      // Log-uniform: small and large magnitudes equally often.
      fc.double({ min: -9, max: 15, noNaN: true }).map((exponent) => Math.min(1e15, Math.max(1e-9, 10 ** exponent))),
    );
    const day = fc.oneof(fc.integer({ min: 0, max: days }), fc.integer({ min: Math.max(0, days - 800), max: days }));
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ day, nav }), { minLength: 1, maxLength: 40 }), async (points) => {
        run += 1;
        const name = `Extreme Series ${backend} ${run}`;
        const id = await newProvider(name);
        const body = { points: points.map((point) => ({ date: iso(first + point.day * DAY), nav: point.nav })) };
        const reply = await publish(id, body);
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        expect(nonFinite(reply.body)).toEqual([]);
        await expectReadable(id, name);
      }),
      { numRuns: 25 },
    );
    // One long extreme series too: 1,000 points over the last three years, alternating the
    // bounds, thinned by ISO week in the long windows.
    const id = await newProvider('Extreme Long Series');
    const long = Array.from({ length: 1000 }, (_, i) => ({
      date: iso(today - (999 - i) * DAY),
      nav: i % 2 === 0 ? 1e-9 : 1e15,
    }));
    expect((await publish(id, { points: long })).status).toBe(200);
    await expectReadable(id, 'Extreme Long Series');
  }, 60_000);
});
