/**
 * The demo app's searchable catalogue and a provider's performance chart, in Debian's Chromium
 * against the real API and its demo seed (every provider publishes a NAV series), at a desktop
 * width (1200 px) and a phone's (390 px). What the page shows is checked against what the API
 * answers for the same query: the order of the rows after a click on a column, the rows a filter
 * or a search keeps, the view an address restores (reload, back button), the chart's points for
 * each window tab and the values under the pointer. Screenshots go to apps/api/artifacts/
 * (git-ignored); the README's are copied from there.
 *
 * Needs the web build (apps/web/dist): turbo builds it before this package's tests.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEB_DIST_DIR } from '../../src/pages/web.js';
import { type Browser, CHROMIUM, launchChromium, screenshot, skipWithoutChromium, watchProblems } from '../browser.js';
import { call, startApi, type TestApi } from '../harness.js';

const skip = skipWithoutChromium('web.catalogue.browser.test.ts');

const PROVIDERS = 45;
const PAGE_SIZE = 20;
/** The search box's debounce (apps/web/src/components/filter-bar.tsx, SEARCH_DEBOUNCE_MS). */
const DEBOUNCE_MS = 300;
const WINDOWS = ['7d', '30d', '90d', '1y', 'all'] as const;

interface ProviderJson {
  id: number;
  name: string;
  followerCount: number;
  roi30dPct: number | null;
  maxDrawdownPct: number;
  winRate: number;
}
interface ChartJson {
  window: string;
  asOf: string | null;
  points: { date: string; roiPct: number; drawdownPct: number }[];
}

/**
 * How a trader reads a return, written here apart from the app: a sign always (U+2212 for a
 * loss), one decimal, two significant digits under 1 %.
 */
function signedPercent(pct: number): string {
  const magnitude = Math.abs(pct);
  const digits =
    magnitude > 0 && magnitude < 1
      ? Number(magnitude.toPrecision(2)).toString()
      : magnitude.toLocaleString('en', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  return `${pct > 0 ? '+' : pct < 0 ? '−' : ''}${digits}%`;
}

/**
 * A wait on the page, not a timing assertion: the check is retried until it holds, for up to
 * 15 s (vitest's default second is short on a loaded 2-core machine running two Chromiums).
 */
const eventually = <T>(check: () => T | Promise<T>) => expect.poll(check, { timeout: 15_000 });

let api: TestApi;

beforeAll(async () => {
  if (skip) return;
  if (!existsSync(join(WEB_DIST_DIR, 'index.html'))) {
    throw new Error(`no web build in ${WEB_DIST_DIR}: run pnpm build (turbo builds it before these tests)`);
  }
  api = await startApi('postgres', { env: { SEED_PROVIDERS: String(PROVIDERS) } });
});

afterAll(async () => {
  await api?.stop();
});

const list = async (query: string) =>
  (await call(api, 'GET', `/providers?limit=${PAGE_SIZE}&${query}`)).body as { items: ProviderJson[]; total: number };
const chart = async (id: number, window: string) =>
  (await call(api, 'GET', `/providers/${id}/performance?window=${window}`)).body as ChartJson;

describe.skipIf(skip).each([
  { width: 1200, height: 860 },
  { width: 390, height: 844 },
])(`the catalogue and the chart in Chromium (${CHROMIUM}) at $width px`, ({ width, height }) => {
  let browser: Browser;
  let page: Page;
  let problems: string[] = [];
  const phone = width < 520;

  beforeAll(async () => {
    browser = await launchChromium({ width, height });
    page = browser.page;
    problems = watchProblems(page);
  });

  afterAll(async () => {
    await browser?.close();
  });

  const rowIds = (on: Page = page) =>
    on
      .locator('[data-testid="providers"] tbody tr')
      .evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-provider-id'))));
  /** The table shows exactly the providers the API lists for `query`, in its order. */
  async function expectRows(query: string, on: Page = page) {
    const expected = (await list(query)).items.map((provider) => provider.id);
    await eventually(() => rowIds(on)).toEqual(expected);
    return expected;
  }
  /** The view the address holds, as the API's query. */
  const addressQuery = (on: Page = page) => new URLSearchParams(new URL(on.url()).hash.replace(/^#\/\??/, ''));
  const searchBox = (on: Page = page) => on.getByRole('searchbox', { name: 'Search providers by name' });
  const filterBox = (key: string, on: Page = page) => on.locator(`[data-filter="${key}"] input`);
  const noHorizontalScroll = () =>
    expect(page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(
      width,
    );

  it('shows ROI 30d, max drawdown and win rate, signed and coloured, "—" where a figure does not exist yet', async () => {
    await page.goto(`${api.url}/`);
    const expected = await expectRows('');
    const { items } = await list('');
    for (const provider of items) {
      const cell = (column: string) =>
        page.locator(`tr[data-provider-id="${provider.id}"] td[data-column="${column}"]`);
      const roi = cell('roi30d');
      if (provider.roi30dPct === null) {
        await expect(roi.textContent()).resolves.toBe('—');
      } else {
        await expect(roi.textContent()).resolves.toBe(signedPercent(provider.roi30dPct));
        const tone = provider.roi30dPct > 0 ? 'tone-up' : provider.roi30dPct < 0 ? 'tone-down' : null;
        if (tone) await expect(roi.getAttribute('class')).resolves.toContain(tone);
      }
      await expect(cell('maxDrawdown').textContent()).resolves.toBe(signedPercent(-provider.maxDrawdownPct));
      if (provider.maxDrawdownPct > 0)
        await expect(cell('maxDrawdown').getAttribute('class')).resolves.toContain('tone-down');
      await expect(cell('winRate').textContent()).resolves.toBe(`${(provider.winRate * 100).toFixed(1)}%`);
    }
    // The colours are the stylesheet's: green gains, red losses.
    const colours = await page.evaluate(() => {
      const { document, getComputedStyle } = globalThis as any;
      const colourOf = (selector: string): string | null => {
        const element = document.querySelector(selector);
        return element ? getComputedStyle(element).color : null;
      };
      return { up: colourOf('td.tone-up'), down: colourOf('td.tone-down') };
    });
    if (colours.up) expect(colours.up).toBe('rgb(15, 138, 95)');
    expect(colours.down).toBe('rgb(194, 58, 58)');
    expect(expected).toHaveLength(PAGE_SIZE);
    await noHorizontalScroll();
  });

  it('sorts by a click on each figure, in both orders, as the API does (aria-sort and the arrow follow)', async () => {
    const columns = phone
      ? ['roi30d', 'maxDrawdown', 'winRate', 'name']
      : ['roi30d', 'maxDrawdown', 'winRate', 'followerCount', 'createdAt', 'name'];
    for (const sortBy of columns) {
      const column = page.locator(`th[data-sort="${sortBy}"]`);
      for (let click = 0; click < 2; click++) {
        const before = await column.getAttribute('aria-sort');
        await column.getByRole('link').click();
        await eventually(() => column.getAttribute('aria-sort')).not.toBe(before);
        const order = (await column.getAttribute('aria-sort')) === 'ascending' ? 'asc' : 'desc';
        await expect(column.locator('.sort-arrow').textContent()).resolves.toBe(order === 'asc' ? '▲' : '▼');
        const ids = await expectRows(`sortBy=${sortBy}&order=${order}`);
        expect(addressQuery().get('sortBy')).toBe(sortBy === 'followerCount' ? null : sortBy);
        // Every other column says it is not the sort.
        const others = await page
          .locator('th[data-sort]')
          .evaluateAll((headers) => headers.map((h) => [h.getAttribute('data-sort'), h.getAttribute('aria-sort')]));
        for (const [other, state] of others) if (other !== sortBy) expect(state).toBe('none');
        expect(ids.length).toBeGreaterThan(0);
      }
    }
    // The orders differ from one sort to another: the clicks changed what is shown.
    expect((await list('sortBy=roi30d&order=desc')).items.map((p) => p.id)).not.toEqual(
      (await list('sortBy=maxDrawdown&order=asc')).items.map((p) => p.id),
    );
    // The sorts without a column are in "Sort by".
    await page.getByTestId('sort-select').selectOption('roi90d');
    await expectRows('sortBy=roi90d&order=desc');
    await page.locator('.order-toggle').click();
    await expectRows('sortBy=roi90d&order=asc');
    expect(Object.fromEntries(addressQuery())).toEqual({ sortBy: 'roi90d', order: 'asc' });
  });

  it('filters: each box narrows the list as the API does; a value it would refuse is flagged, not sent', async () => {
    await page.goto(`${api.url}/#/?sortBy=roi30d`);
    await expectRows('sortBy=roi30d');
    const all = (await call(api, 'GET', '/providers?limit=100')).body.items as ProviderJson[];
    const drawdowns = all.map((p) => p.maxDrawdownPct).sort((a, b) => a - b);
    const maxDrawdown = Math.ceil(drawdowns[Math.floor(drawdowns.length * 0.7)] as number);

    await filterBox('minRoi30dPct').fill('0');
    await eventually(() => addressQuery().get('minRoi30dPct')).toBe('0');
    await expectRows('sortBy=roi30d&minRoi30dPct=0');
    await filterBox('maxDrawdownPct').fill(String(maxDrawdown));
    await filterBox('minWinRate').fill('40');
    await filterBox('minTradingDays').fill('30');
    await eventually(() => addressQuery().get('minTradingDays')).toBe('30');
    const query = `sortBy=roi30d&minRoi30dPct=0&maxDrawdownPct=${maxDrawdown}&minWinRate=0.4&minTradingDays=30`;
    expect(Object.fromEntries(addressQuery())).toEqual(Object.fromEntries(new URLSearchParams(query)));
    await expectRows(query);
    const { total } = await list(query);
    expect(total).toBeGreaterThan(0);
    expect(total).toBeLessThan(PROVIDERS);
    await expect(page.locator('.pagination-summary').textContent()).resolves.toMatch(
      new RegExp(`of ${total} matching providers$`),
    );
    await screenshot(page, `web-catalogue-filtered-${width}`, { fullPage: true });

    // A win rate over 100 % is refused by the API: the box says so and the address keeps 40 %.
    await filterBox('minWinRate').fill('140');
    await expect(filterBox('minWinRate').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.locator('[data-filter="minWinRate"] .filter-error').textContent()).resolves.toBe(
      'Enter at most 100 %',
    );
    await filterBox('minFollowers').fill('1.5');
    await expect(page.locator('[data-filter="minFollowers"] .filter-error').textContent()).resolves.toBe(
      'Enter a whole number',
    );
    await filterBox('minWinRate').fill('40');
    await filterBox('minFollowers').fill('');
    await expect(filterBox('minWinRate').getAttribute('aria-invalid')).resolves.toBeNull();
    expect(addressQuery().get('minWinRate')).toBe('0.4');
    await expectRows(query);
    await noHorizontalScroll();
  });

  it('search is debounced: one request, 300 ms after the last key; an empty result says so and clears', async () => {
    // A page of its own with Playwright's clock, so the delay is counted, not waited for.
    const searching = await browser.context.newPage();
    const pageProblems = watchProblems(searching);
    try {
      await searching.clock.install();
      await searching.goto(`${api.url}/#/?sortBy=name&order=asc`);
      await expectRows('sortBy=name&order=asc', searching);
      const asked: string[] = [];
      searching.on('request', (request) => {
        const url = new URL(request.url());
        if (url.pathname.endsWith('/trpc/providers.list')) asked.push(url.searchParams.get('input') ?? '');
      });
      // Part of a name that some providers have and others not, in another case.
      const names = ((await call(api, 'GET', '/providers?limit=100')).body.items as ProviderJson[]).map((p) => p.name);
      const word = names
        .flatMap((name) => name.split(' '))
        .find((w) => {
          const matches = names.filter((name) => name.toLowerCase().includes(w.toLowerCase())).length;
          return w.length >= 4 && matches >= 2 && matches < names.length;
        }) as string;
      const term = word.slice(0, 4).toUpperCase();

      const now = await searching.evaluate(() => Date.now());
      await searching.clock.pauseAt(now + 60_000);
      const hash = () => searching.evaluate(() => (globalThis as any).location.hash as string);
      await searchBox(searching).pressSequentially(term);
      await searching.clock.runFor(DEBOUNCE_MS - 1);
      expect(await hash()).toBe('#/?sortBy=name&order=asc');
      await searching.clock.runFor(1);
      expect(new URLSearchParams((await hash()).replace(/^#\/\?/, '')).get('q')).toBe(term);
      await searching.clock.resume();
      const ids = await expectRows(`sortBy=name&order=asc&q=${encodeURIComponent(term)}`, searching);
      expect(ids.length).toBeGreaterThan(0);
      // One request for the whole word, none for the keys on the way.
      expect(asked.filter((input) => input.includes('"q"'))).toEqual([
        JSON.stringify({ page: 1, limit: PAGE_SIZE, sortBy: 'name', order: 'asc', q: term }),
      ]);

      // No match: the page says which filters found nothing and offers to clear them.
      await searchBox(searching).fill('zz no such provider');
      await filterBox('minTradingDays', searching).fill('5');
      await searching.clock.runFor(DEBOUNCE_MS);
      const empty = searching.getByTestId('empty');
      await eventually(() => empty.textContent()).toContain('No providers match these filters');
      await expect(empty.textContent()).resolves.toContain(
        'Name contains “zz no such provider” · Track record ≥ 5 days',
      );
      await screenshot(searching, `web-catalogue-no-match-${width}`);
      await searching.getByTestId('clear-filters-empty').click();
      await expectRows('sortBy=name&order=asc', searching);
      await expect(searchBox(searching).inputValue()).resolves.toBe('');
      await expect(filterBox('minTradingDays', searching).inputValue()).resolves.toBe('');
      expect(new URL(searching.url()).hash).toBe('#/?sortBy=name&order=asc');
      expect(pageProblems).toEqual([]);
    } finally {
      await searching.close();
    }
  });

  it('the address is the view: a reload and the back button bring back sort, order, filters, search and page', async () => {
    await page.goto(`${api.url}/`);
    await expectRows('');
    // A: the default view. B: sorted by win rate. C: B searched, filtered and on page 2.
    await page.locator('th[data-sort="winRate"]').getByRole('link').click();
    await expectRows('sortBy=winRate&order=desc');
    await filterBox('minTradingDays').fill('1');
    await eventually(() => addressQuery().get('minTradingDays')).toBe('1');
    const viewC = 'sortBy=winRate&order=desc&minTradingDays=1';
    await expectRows(viewC);
    const { total } = await list(viewC);
    if (total > PAGE_SIZE) {
      await page.getByRole('link', { name: 'Next page' }).click();
      await expectRows(`${viewC}&page=2`);
    }
    const addressC = page.url();

    await page.reload();
    expect(page.url()).toBe(addressC);
    await expectRows(total > PAGE_SIZE ? `${viewC}&page=2` : viewC);
    await expect(filterBox('minTradingDays').inputValue()).resolves.toBe('1');
    await expect(page.locator('th[data-sort="winRate"]').getAttribute('aria-sort')).resolves.toBe('descending');
    await expect(page.getByTestId('sort-select').inputValue()).resolves.toBe('winRate');

    if (total > PAGE_SIZE) {
      await page.goBack();
      await expectRows(viewC);
    }
    await page.goBack();
    await expectRows('sortBy=winRate&order=desc');
    // The boxes follow the address back.
    await expect(filterBox('minTradingDays').inputValue()).resolves.toBe('');
    await page.goBack();
    await expectRows('');
    await expect(page.locator('th[data-sort="followerCount"]').getAttribute('aria-sort')).resolves.toBe('descending');
    await page.goForward();
    await expectRows('sortBy=winRate&order=desc');

    // A shared link opens the same view in another tab, search included.
    const shared = await browser.context.newPage();
    try {
      await shared.goto(`${api.url}/#/?sortBy=maxDrawdown&order=asc&q=a&maxDrawdownPct=40`);
      await expectRows('sortBy=maxDrawdown&order=asc&q=a&maxDrawdownPct=40', shared);
      await expect(searchBox(shared).inputValue()).resolves.toBe('a');
      await expect(filterBox('maxDrawdownPct', shared).inputValue()).resolves.toBe('40');
    } finally {
      await shared.close();
    }
  });

  it('the catalogue, sorted by ROI 30d with a filter (screenshot)', async () => {
    await page.goto(`${api.url}/#/?sortBy=roi30d&maxDrawdownPct=35&minTradingDays=30`);
    await expectRows('sortBy=roi30d&maxDrawdownPct=35&minTradingDays=30');
    await noHorizontalScroll();
    await screenshot(page, `web-catalogue-${width}`);
  });

  it('a provider page draws its return and drawdown for each window tab, with the values under the pointer', async () => {
    const [provider] = (await list('sortBy=tradingDays&limit=1')).items as [ProviderJson];
    const stats = (await call(api, 'GET', `/providers/${provider.id}/stats`)).body;
    await page.goto(`${api.url}/#/providers/${provider.id}`);
    await page.getByTestId('provider').waitFor();
    const host = page.getByTestId('performance-chart');
    const legend = page.getByTestId('chart-legend');

    // The figures as a trader reads them, as of the series' last day.
    const asOf = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeZone: 'UTC' }).format(
      new Date(`${stats.asOf}T00:00:00Z`),
    );
    await expect(page.getByTestId('figures-asof').textContent()).resolves.toContain(`as of ${asOf}`);
    const figure = (label: string) => page.locator(`[data-figure="${label}"] dd`).first();
    for (const [label, value] of [
      ['ROI 7d', stats.roi7dPct],
      ['ROI 30d', stats.roi30dPct],
      ['ROI 90d', stats.roi90dPct],
      ['ROI all time', stats.roiAllPct],
    ] as const) {
      await expect(figure(label).textContent()).resolves.toBe(value === null ? '—' : signedPercent(value));
    }
    await expect(figure('Max drawdown').textContent()).resolves.toBe(signedPercent(-stats.maxDrawdownPct));

    // The default window (90d): every point of the API's answer, drawn on canvases.
    const expected90 = await chart(provider.id, '90d');
    await eventually(() => host.getAttribute('data-points')).toBe(String(expected90.points.length));
    await expect(page.getByTestId('performance-asof').textContent()).resolves.toContain(`As of ${asOf}`);
    const canvases = await host.locator('canvas').evaluateAll((elements) =>
      elements.map((canvas: any) => {
        const box = canvas.getBoundingClientRect();
        return { width: box.width as number, height: box.height as number };
      }),
    );
    expect(canvases.length).toBeGreaterThanOrEqual(4);
    const hostBox = (await host.boundingBox()) as { x: number; y: number; width: number; height: number };
    // The plot areas take most of the card's width, and the card fits the screen.
    expect(Math.max(...canvases.map((canvas) => canvas.width))).toBeGreaterThan(hostBox.width * 0.6);
    expect(hostBox.x + hostBox.width).toBeLessThanOrEqual(width);
    // Two panes: the return above, the drawdown below it.
    const panes = canvases.filter((canvas) => canvas.width > hostBox.width * 0.6).map((canvas) => canvas.height);
    expect(new Set(panes).size).toBeGreaterThanOrEqual(2);
    // Something is drawn: green (a gain) or red (a loss) lines on the plot canvases.
    const inked = await host.locator('canvas').evaluateAll((elements) => {
      let green = 0;
      let red = 0;
      for (const canvas of elements as any[]) {
        if (canvas.width === 0 || canvas.height === 0) continue;
        const data: number[] | undefined = canvas
          .getContext('2d')
          ?.getImageData(0, 0, canvas.width, canvas.height).data;
        if (!data) continue;
        for (let i = 0; i < data.length; i += 4) {
          const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]] as [number, number, number, number];
          if (a < 200) continue;
          if (Math.abs(r - 15) < 20 && Math.abs(g - 138) < 20 && Math.abs(b - 95) < 20) green++;
          if (Math.abs(r - 194) < 20 && Math.abs(g - 58) < 20 && Math.abs(b - 58) < 20) red++;
        }
      }
      return { green, red };
    });
    expect(inked.green + inked.red).toBeGreaterThan(100);

    // Each tab shows the API's points for its window.
    const counts: number[] = [];
    for (const window of WINDOWS) {
      const expected = await chart(provider.id, window);
      await page.locator(`[role="tab"][data-window="${window}"]`).click();
      await eventually(() => host.getAttribute('data-window')).toBe(window);
      await expect(host.getAttribute('data-points')).resolves.toBe(String(expected.points.length));
      await expect(host.getAttribute('data-first-date')).resolves.toBe(expected.points[0]?.date);
      await expect(host.getAttribute('data-last-date')).resolves.toBe(expected.asOf);
      await expect(page.locator(`[role="tab"][data-window="${window}"]`).getAttribute('aria-selected')).resolves.toBe(
        'true',
      );
      // Away from the chart, the legend shows the last day.
      await expect(legend.getAttribute('data-date')).resolves.toBe(expected.asOf);
      counts.push(expected.points.length);
    }
    expect(new Set(counts).size).toBeGreaterThan(2);

    // Hover: the crosshair's day, its return and drawdown, as the API has them.
    const expected30 = await chart(provider.id, '30d');
    await page.locator('[role="tab"][data-window="30d"]').click();
    await eventually(() => host.getAttribute('data-window')).toBe('30d');
    await host.scrollIntoViewIfNeeded();
    const box = (await host.boundingBox()) as { x: number; y: number; width: number; height: number };
    await page.mouse.move(box.x + box.width * 0.4, box.y + box.height * 0.3);
    await eventually(() => legend.getAttribute('data-hovered')).toBe('true');
    const hoveredDate = (await legend.getAttribute('data-date')) as string;
    const point = expected30.points.find((p) => p.date === hoveredDate);
    expect(point, `hovered ${hoveredDate}`).toBeDefined();
    expect(hoveredDate).not.toBe(expected30.asOf);
    await expect(legend.getAttribute('data-roi')).resolves.toBe(String(point?.roiPct));
    const text = (await legend.textContent()) as string;
    expect(text).toContain(signedPercent(point?.roiPct as number));
    expect(text).toContain(signedPercent(-(point?.drawdownPct as number)));
    expect(text).toContain(
      new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeZone: 'UTC' }).format(
        new Date(`${hoveredDate}T00:00:00Z`),
      ),
    );
    // Further right, a later day.
    await page.mouse.move(box.x + box.width * 0.7, box.y + box.height * 0.3);
    await eventually(() => legend.getAttribute('data-date')).not.toBe(hoveredDate);
    expect(((await legend.getAttribute('data-date')) as string) > hoveredDate).toBe(true);
    await screenshot(page, `web-provider-chart-${width}`);
    await page.mouse.move(0, 0);
    await eventually(() => legend.getAttribute('data-hovered')).toBe('false');
    await expect(legend.getAttribute('data-date')).resolves.toBe(expected30.asOf);
    await noHorizontalScroll();
    await page.locator('[role="tab"][data-window="1y"]').click();
    await eventually(() => host.getAttribute('data-window')).toBe('1y');

    // For the README: the whole page in a window tall enough for it, the pointer on the chart.
    await page.setViewportSize({ width, height: phone ? 1960 : 1240 });
    try {
      await page.evaluate(() => (globalThis as any).scrollTo(0, 0));
      const whole = (await host.boundingBox()) as { x: number; y: number; width: number; height: number };
      await page.mouse.move(whole.x + whole.width * 0.55, whole.y + whole.height * 0.3);
      await eventually(() => legend.getAttribute('data-hovered')).toBe('true');
      await screenshot(page, `web-provider-${width}`);
    } finally {
      await page.setViewportSize({ width, height });
    }
  });

  it('the chart code is loaded on the provider page only', async () => {
    const fresh = await browser.context.newPage();
    try {
      // Routing turns the page's caches off, so every script it runs is fetched and seen here.
      const fetched: string[] = [];
      await fresh.route('**/assets/**', (route) => {
        fetched.push(new URL(route.request().url()).pathname);
        return route.continue();
      });
      const chartCode = () => fetched.some((path) => /\/assets\/performance-chart-[\w-]+\.js$/.test(path));
      await fresh.goto(`${api.url}/`);
      await expectRows('', fresh);
      expect(fetched.length).toBeGreaterThan(0);
      expect(chartCode()).toBe(false);
      await fresh.locator('[data-testid="providers"] tbody tr a').first().click();
      await fresh.getByTestId('performance-chart').waitFor();
      expect(chartCode()).toBe(true);
    } finally {
      await fresh.close();
    }
  });

  it('logged no page errors and no Content-Security-Policy violations', () => {
    expect(problems).toEqual([]);
  });
});
