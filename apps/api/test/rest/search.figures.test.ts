/**
 * Sorting and filtering the catalogue on performance figures, on PostgreSQL and PGlite: series
 * are published through the service's publishing function, and every expected order and match
 * is computed here from those series by the contract's definitions (not by the service's code).
 * Each figure sort in both orders, nulls last, ties by id, by page and by cursor; the figure
 * filters alone and combined (a null figure fails); a cursor walk under roi30d with a filter
 * while the pipeline publishes keeps the Version 2 guarantees; malformed filters → 400.
 */
import { publishPerformance } from '@signal/db';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, type TestApi, useApi } from '../harness.js';
import { expectEachOnce, walkByCursor, walkByPage } from '../paging.js';

const DAY_MS = 86_400_000;
const FIGURE_SORTS = ['roi7d', 'roi30d', 'roi90d', 'roiAll', 'maxDrawdown', 'winRate', 'tradingDays'] as const;
type FigureSort = (typeof FIGURE_SORTS)[number];

interface Point {
  date: string;
  nav: number;
}

interface Published {
  id: number;
  points: Point[];
  signals: { total: number; winning: number };
  followers: number;
}

interface Figures {
  roi7d: number | null;
  roi30d: number | null;
  roi90d: number | null;
  roiAll: number | null;
  maxDrawdown: number;
  winRate: number;
  tradingDays: number;
}

const day = (offset: number) => new Date(Date.now() - offset * DAY_MS).toISOString().slice(0, 10);

/** The contract's figures of a series, written from its definitions. */
function figures(p: Published): Figures {
  const points = [...p.points].sort((a, b) => (a.date < b.date ? -1 : 1));
  const last = points.at(-1);
  const navOnOrBefore = (date: string) => points.filter((q) => q.date <= date).at(-1)?.nav;
  const roi = (days: number) => {
    if (!last) return null;
    const base = navOnOrBefore(new Date(Date.parse(last.date) - days * DAY_MS).toISOString().slice(0, 10));
    return base === undefined ? null : (last.nav / base - 1) * 100;
  };
  let peak = 0;
  let drawdown = 0;
  for (const q of points) {
    peak = Math.max(peak, q.nav);
    drawdown = Math.max(drawdown, (1 - q.nav / peak) * 100);
  }
  return {
    roi7d: roi(7),
    roi30d: roi(30),
    roi90d: roi(90),
    roiAll: points.length >= 2 ? ((last as Point).nav / (points[0] as Point).nav - 1) * 100 : null,
    maxDrawdown: drawdown,
    winRate: p.signals.total === 0 ? 0 : p.signals.winning / p.signals.total,
    tradingDays: points.length,
  };
}

/** A daily series of `length` days ending `endAgo` days ago, shaped by `seed`. */
function series(length: number, seed: number, endAgo = 1): Point[] {
  const points: Point[] = [];
  let nav = 100 + seed;
  for (let i = length - 1; i >= 0; i -= 1) {
    nav *= 1 + Math.sin(seed * 7.3 + i * 0.9) * 0.03 + (seed % 5) * 0.002 - 0.004;
    points.push({ date: day(endAgo + i), nav });
  }
  return points;
}

/** Expected ids of a sort: non-null keys in the order, ties by id in the same direction, then nulls by id. */
function expectedOrder(rows: Published[], sortBy: FigureSort, order: 'asc' | 'desc'): number[] {
  const sign = order === 'asc' ? 1 : -1;
  const key = (row: Published) => figures(row)[sortBy];
  const present = rows.filter((r) => key(r) !== null);
  const missing = rows.filter((r) => key(r) === null);
  present.sort((a, b) => sign * ((key(a) as number) - (key(b) as number) || a.id - b.id));
  missing.sort((a, b) => sign * (a.id - b.id));
  return [...present, ...missing].map((r) => r.id);
}

async function publish(api: TestApi, p: Published) {
  await api.db.db.transaction().execute((trx) =>
    publishPerformance(trx, {
      providerId: p.id,
      points: p.points,
      signals: { ...p.signals, avgReturnPct: 0.1, lastSignalAt: null },
      now: new Date(),
    }),
  );
}

/** A catalogue with every kind of series: none, one point, short, long, and exact ties. */
async function build(api: TestApi): Promise<Published[]> {
  const lengths = [0, 1, 3, 9, 20, 35, 35, 60, 95, 120, 0, 8, 31, 45, 100, 2, 15, 70];
  const rows: Published[] = [];
  for (const [index, length] of lengths.entries()) {
    const followers = (index * 7) % 5;
    const inserted = await sql<{ id: number }>`
      insert into providers (name, follower_count) values (${`Fund ${index}`}, ${followers}) returning id
    `.execute(api.db.db);
    const id = Number(inserted.rows[0]?.id);
    const total = index % 4 === 0 ? 0 : 10 + index;
    const row: Published = {
      id,
      points: series(length, index % 9 === 6 ? 6 : index),
      signals: { total, winning: Math.floor(total * ((index % 3) / 3)) },
      followers,
    };
    // Two providers share one series: exact ties on every figure.
    if (index === 6) row.points = series(35, 5);
    if (index === 5) row.points = series(35, 5);
    if (length > 0 || total > 0) await publish(api, row);
    rows.push(row);
  }
  return rows;
}

async function checkSorts(api: TestApi, rows: Published[]) {
  for (const sortBy of FIGURE_SORTS) {
    for (const order of ['asc', 'desc'] as const) {
      const where = `${sortBy} ${order}`;
      const expected = expectedOrder(rows, sortBy, order);
      const byPage = await walkByPage<{ id: number }>(api, `sortBy=${sortBy}&order=${order}`, 5);
      expect(
        byPage.map((p) => p.id),
        where,
      ).toEqual(expected);
      const byCursor = await walkByCursor<{ id: number }>(
        async (cursor) =>
          (
            await call(
              api,
              'GET',
              cursor ? `/providers?limit=4&cursor=${cursor}` : `/providers?sortBy=${sortBy}&order=${order}&limit=4`,
            )
          ).body,
      );
      expect(
        byCursor.flat().map((p) => p.id),
        where,
      ).toEqual(expected);
    }
  }
  // The list's figures are the series' own.
  const listed = await walkByPage<{ id: number; roi30dPct: number | null; maxDrawdownPct: number; winRate: number }>(
    api,
    'sortBy=id&order=asc',
    100,
  );
  for (const row of rows) {
    const item = listed.find((p) => p.id === row.id);
    const f = figures(row);
    if (f.roi30d === null) expect(item?.roi30dPct, `${row.id}`).toBeNull();
    else expect(item?.roi30dPct, `${row.id}`).toBeCloseTo(f.roi30d, 9);
    expect(item?.maxDrawdownPct).toBeCloseTo(f.maxDrawdown, 9);
    expect(item?.winRate).toBeCloseTo(f.winRate, 12);
  }
}

const FILTER_SETS: { params: Record<string, string>; keep: (f: Figures, p: Published) => boolean }[] = [
  { params: { minRoi30dPct: '0' }, keep: (f) => f.roi30d !== null && f.roi30d >= 0 },
  { params: { minRoi30dPct: '-3.5' }, keep: (f) => f.roi30d !== null && f.roi30d >= -3.5 },
  { params: { maxDrawdownPct: '5' }, keep: (f) => f.maxDrawdown <= 5 },
  { params: { minWinRate: '0.3' }, keep: (f) => f.winRate >= 0.3 },
  { params: { minTradingDays: '30' }, keep: (f) => f.tradingDays >= 30 },
  {
    params: { minRoi30dPct: '-10', maxDrawdownPct: '12.5', minWinRate: '0', minTradingDays: '20', minFollowers: '1' },
    keep: (f, p) =>
      f.roi30d !== null && f.roi30d >= -10 && f.maxDrawdown <= 12.5 && f.tradingDays >= 20 && p.followers >= 1,
  },
  {
    params: { q: 'fund 1', minWinRate: '0.01' },
    keep: (f, p) => `fund ${rowsIndex(p)}`.includes('fund 1') && f.winRate >= 0.01,
  },
];

let indexOf: Map<number, number>;
const rowsIndex = (p: Published) => indexOf.get(p.id);

async function checkFilters(api: TestApi, rows: Published[]) {
  for (const { params, keep } of FILTER_SETS) {
    for (const sortBy of ['roi30d', 'maxDrawdown', 'followerCount'] as const) {
      for (const order of ['asc', 'desc'] as const) {
        const where = `${JSON.stringify(params)} ${sortBy} ${order}`;
        const matching = new Set(rows.filter((p) => keep(figures(p), p)).map((p) => p.id));
        expect(matching.size, where).toBeGreaterThan(0);
        const query = new URLSearchParams({ ...params, sortBy, order }).toString();
        const got = await walkByPage<{ id: number }>(api, query, 3);
        const all = (await walkByPage<{ id: number }>(api, `sortBy=${sortBy}&order=${order}`, 100)).map((p) => p.id);
        expect(
          got.map((p) => p.id),
          where,
        ).toEqual(all.filter((id) => matching.has(id)));
        const first = await call(api, 'GET', `/providers?${query}&limit=3`);
        expect(first.body.total, where).toBe(matching.size);
        expect(first.body.totalPages, where).toBe(Math.ceil(matching.size / 3));
        const byCursor = await walkByCursor<{ id: number }>(
          async (cursor) =>
            (await call(api, 'GET', cursor ? `/providers?limit=3&cursor=${cursor}` : `/providers?${query}&limit=3`))
              .body,
        );
        expect(
          byCursor.flat().map((p) => p.id),
          where,
        ).toEqual(got.map((p) => p.id));
      }
    }
  }
}

/**
 * A walk by roi30d with a filter while the pipeline publishes new points for some providers
 * between pages: every provider that matched throughout with an unchanged roi30d is seen exactly
 * once, in order, and every item seen matched when it was served.
 */
async function checkWalkWhilePublishing(api: TestApi, rows: Published[]) {
  for (const order of ['desc', 'asc'] as const) {
    const changed = new Set<number>();
    let step = 0;
    const seen: { id: number; roi30dPct: number | null; maxDrawdownPct: number }[] = [];
    await walkByCursor<{ id: number; roi30dPct: number | null; maxDrawdownPct: number }>(
      async (cursor) => {
        const body = (
          await call(
            api,
            'GET',
            cursor
              ? `/providers?limit=2&cursor=${cursor}`
              : `/providers?sortBy=roi30d&order=${order}&maxDrawdownPct=15&limit=2`,
          )
        ).body;
        seen.push(...body.items);
        return body;
      },
      async () => {
        const target = rows[(step * 5 + 3) % rows.length] as Published;
        changed.add(target.id);
        const lastDay = target.points.at(-1)?.nav ?? 100;
        target.points = [...target.points.filter((q) => q.date !== day(0)), { date: day(0), nav: lastDay * 1.05 }];
        await publish(api, target);
        step += 1;
      },
    );
    expect(step).toBeGreaterThan(2);
    for (const item of seen) expect(item.maxDrawdownPct).toBeLessThanOrEqual(15);
    const stable = rows.filter((p) => !changed.has(p.id));
    const matching = stable.filter((p) => figures(p).maxDrawdown <= 15);
    expectEachOnce(seen, matching, (p) => `${order} ${p.id}`);
    const stableSeen = seen.filter((s) => !changed.has(s.id)).map((s) => s.id);
    const expected = expectedOrder(matching, 'roi30d', order);
    expect(stableSeen).toEqual(expected);
  }
}

async function checkRefusals(api: TestApi) {
  for (const bad of [
    'minRoi30dPct=1e3',
    'minRoi30dPct=abc',
    'minRoi30dPct=',
    'minRoi30dPct=%2B5',
    'minRoi30dPct=.5',
    'minRoi30dPct=Infinity',
    'minRoi30dPct=1.',
    'maxDrawdownPct=-1',
    'maxDrawdownPct=-0.5',
    'minWinRate=1.5',
    'minWinRate=-0.1',
    'minTradingDays=1.5',
    'minTradingDays=-1',
    'sortBy=roi',
    'sortBy=roi30dPct',
  ]) {
    const error = expectError(await call(api, 'GET', `/providers?${bad}`), 400, 'VALIDATION_ERROR');
    expect(error.issues?.length, bad).toBeGreaterThan(0);
  }
  for (const ok of ['minRoi30dPct=-12.5', 'maxDrawdownPct=0', 'minWinRate=1', 'minWinRate=0', 'minTradingDays=0']) {
    expect((await call(api, 'GET', `/providers?${ok}`)).status, ok).toBe(200);
  }
  // A cursor replayed with another figure filter.
  const first = await call(api, 'GET', '/providers?sortBy=roi30d&minRoi30dPct=-50&limit=2');
  const cursor = first.body.nextCursor as string;
  expect(cursor).toBeTruthy();
  expect((await call(api, 'GET', `/providers?cursor=${cursor}&minRoi30dPct=-50.0`)).status).toBe(200);
  for (const other of ['minRoi30dPct=-40', 'minRoi30dPct=-50&minWinRate=0', 'maxDrawdownPct=50', 'sortBy=roi30d']) {
    expectError(await call(api, 'GET', `/providers?cursor=${cursor}&${other}`), 400, 'VALIDATION_ERROR');
  }
}

for (const backend of ['postgres', 'pglite'] as const) {
  describe(`catalogue figures on ${backend}`, () => {
    const api = useApi(backend);
    let rows: Published[];
    beforeAll(async () => {
      rows = await build(api);
      indexOf = new Map(rows.map((row, index) => [row.id, index]));
    });

    it('each figure sort in both orders: nulls last, ties by id, by page and by cursor', async () => {
      await checkSorts(api, rows);
    });

    it('figure filters alone and combined, under several sorts: matches, totals, page and cursor walks', async () => {
      await checkFilters(api, rows);
    });

    it('malformed figure filters → 400; a cursor replayed with another filter → 400', async () => {
      await checkRefusals(api);
    });

    it('a roi30d walk with a filter while the pipeline publishes keeps the Version 2 guarantees', async () => {
      await checkWalkWhilePublishing(api, rows);
    });
  });
}
