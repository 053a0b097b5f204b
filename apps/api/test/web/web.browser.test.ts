/**
 * The demo app at `/` in a real browser: the built apps/web served by the real API, in Debian's
 * Chromium, with wallets injected into the page that really sign (keys in Node: a viem account,
 * a tweetnacl keypair). Each step is checked against what the API itself answers. Screenshots
 * of every screen go to apps/api/artifacts/ (git-ignored).
 *
 * Needs the web build (apps/web/dist): turbo builds it before this package's tests. Skipped,
 * saying so, when Chromium is not installed on a developer machine; with CI=true it always runs.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEB_DIST_DIR } from '../../src/pages/web.js';
import { type Browser, CHROMIUM, launchChromium, screenshot, skipWithoutChromium, watchProblems } from '../browser.js';
import { call, startApi, type TestApi } from '../harness.js';
import { type InjectedWallet, injectWallets } from '../injected-wallets.js';

const skip = skipWithoutChromium('web.browser.test.ts');

const PROVIDERS = 45;
const PAGE_SIZE = 20;
const DAY_MS = 24 * 3600 * 1000;
/** Past the 30-day token lifetime and its 30 s leeway. */
const PAST_TOKEN_LIFETIME_MS = 31 * DAY_MS;
const TOKEN_KEY = 'signal-demo.token';
/** The app signs in with SIWE / SIWS naming the page's own host (the server's Host, here). */
const signInMessage = (host: string, account: 'Ethereum' | 'Solana') =>
  new RegExp(
    `^${host.replace(/\./g, '\\.')} wants you to sign in with your ${account} account:\n[^\n]+\n\n[^\n]+\n\nURI: http://${host.replace(/\./g, '\\.')}\n`,
  );

interface ProviderJson {
  id: number;
  name: string;
  followerCount: number;
}

describe.skipIf(skip)(`the demo app at / in Chromium (${CHROMIUM})`, () => {
  let api: TestApi;
  let browser: Browser;
  let page: Page;
  let wallets: { evm: InjectedWallet; solana: InjectedWallet };
  let problems: string[] = [];
  const started = performance.now();

  beforeAll(async () => {
    if (!existsSync(join(WEB_DIST_DIR, 'index.html'))) {
      throw new Error(`no web build in ${WEB_DIST_DIR}: run pnpm build (turbo builds it before these tests)`);
    }
    api = await startApi('postgres', { env: { SEED_PROVIDERS: String(PROVIDERS) } });
    browser = await launchChromium({ width: 1200, height: 820 });
    page = browser.page;
    wallets = await injectWallets(page);
    // Expected: the 401 of an expired session, and the requests of the "network down" step.
    problems = watchProblems(page, /status of 401|ERR_INTERNET_DISCONNECTED/);
  });

  afterAll(async () => {
    await browser?.close();
    await api?.stop();
    console.info(`web.browser.test.ts: ${((performance.now() - started) / 1000).toFixed(1)} s including start-up`);
  });

  const list = async (query: string) =>
    (await call(api, 'GET', `/providers?${query}`)).body as { items: ProviderJson[]; total: number };
  const rowIds = () =>
    page
      .locator('[data-testid="providers"] tbody tr')
      .evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-provider-id'))));
  /** The table shows exactly the providers the API lists for `query`, in its order. */
  async function expectRows(query: string) {
    const expected = (await list(`limit=${PAGE_SIZE}&${query}`)).items.map((provider) => provider.id);
    await expect.poll(rowIds).toEqual(expected);
  }
  const header = () => page.locator('header.topbar');
  const session = () => page.getByTestId('session');
  const storedToken = () =>
    page.evaluate((key) => JSON.parse((globalThis as any).localStorage.getItem(key) ?? 'null'), TOKEN_KEY) as Promise<{
      token: string;
      wallet: string;
    } | null>;
  const followerCount = () => page.getByTestId('follower-count').locator('strong');
  const followButton = () => page.locator('.provider-side').getByRole('button');
  const count = (n: number) => n.toLocaleString('en');

  async function openProvider(id: number) {
    await page.goto(`${api.url}/#/providers/${id}`);
    await page.getByTestId('provider').waitFor();
  }

  it('shows the catalogue, most followed first, to a visitor', async () => {
    await page.goto(`${api.url}/`);
    await expectRows('');
    await expect(page.locator('.pagination-summary').textContent()).resolves.toBe(
      `Showing 1–20 of ${PROVIDERS} providers`,
    );
    await expect(page.locator('th[data-sort="followerCount"]').getAttribute('aria-sort')).resolves.toBe('descending');
    // Avatars: the API's identicons where a provider has one, initials where not.
    const first = (await list('limit=20')).items as (ProviderJson & { avatarUrl: string | null })[];
    const withAvatar = first.find((provider) => provider.avatarUrl);
    const without = first.find((provider) => !provider.avatarUrl);
    if (withAvatar) {
      const image = page.locator(`tr[data-provider-id="${withAvatar.id}"] img.avatar`);
      await expect.poll(() => image.evaluate((img: any) => img.complete && img.naturalWidth)).toBeGreaterThan(0);
    }
    if (without) {
      await expect(
        page.locator(`tr[data-provider-id="${without.id}"] .avatar-initials`).textContent(),
      ).resolves.toMatch(/^[A-Z]{1,2}$/);
    }
    await expect(header().getByRole('button', { name: 'Sign in with EVM' }).isEnabled()).resolves.toBe(true);
    await expect(header().getByRole('button', { name: 'Sign in with Solana' }).isEnabled()).resolves.toBe(true);
    await screenshot(page, 'web-catalogue-visitor');
  });

  it('sorts by every column, in both orders, as the API does', async () => {
    // The performance columns (ROI 30d, drawdown, win rate) and the filters: web.catalogue.browser.test.ts.
    for (const sortBy of ['name', 'followerCount', 'createdAt']) {
      for (let click = 0; click < 2; click++) {
        const column = page.locator(`th[data-sort="${sortBy}"]`);
        const before = await column.getAttribute('aria-sort');
        await column.getByRole('link').click();
        await expect.poll(() => column.getAttribute('aria-sort')).not.toBe(before);
        const order = (await column.getAttribute('aria-sort')) === 'ascending' ? 'asc' : 'desc';
        await expectRows(`sortBy=${sortBy}&order=${order}`);
      }
    }
    // Both orders of every field were seen: each column was clicked twice and its order flipped.
    await screenshot(page, 'web-catalogue-sorted');
  });

  it('pages through the table, and says so past the last page', async () => {
    await page.goto(`${api.url}/#/?sortBy=name&order=asc`);
    await expectRows('sortBy=name&order=asc');
    const step = (label: string) => page.getByRole('link', { name: label });
    await step('Next page').click();
    await expectRows('sortBy=name&order=asc&page=2');
    await step('Last page').click();
    await expectRows('sortBy=name&order=asc&page=3');
    await expect(page.locator('.pagination-summary').textContent()).resolves.toBe(
      `Showing 41–45 of ${PROVIDERS} providers`,
    );
    await expect(page.getByRole('button', { name: 'Next page' }).isDisabled()).resolves.toBe(true);
    await step('Previous page').click();
    await expectRows('sortBy=name&order=asc&page=2');
    await step('First page').click();
    await expectRows('sortBy=name&order=asc&page=1');
    expect(page.url()).toBe(`${api.url}/#/?sortBy=name&order=asc`);

    await page.goto(`${api.url}/#/?page=9`);
    await expect(page.getByTestId('empty').textContent()).resolves.toContain('Page 9 is past the end');
  });

  it('a rejected signature shows an error and signs nobody in', async () => {
    await page.goto(`${api.url}/`);
    wallets.evm.rejectNext();
    await header().getByRole('button', { name: 'Sign in with EVM' }).click();
    const notice = page.locator('.notice');
    await expect(notice.textContent()).resolves.toContain('Signature rejected');
    await expect(notice.getAttribute('data-problem')).resolves.toBe('rejected');
    expect(wallets.evm.signed).toEqual([]);
    await expect(session().count()).resolves.toBe(0);
    await expect(storedToken()).resolves.toBeNull();
    await screenshot(page, 'web-signature-rejected');
  });

  it('signs in with an EVM wallet and shows who is signed in', async () => {
    await header().getByRole('button', { name: 'Sign in with EVM' }).click();
    await session().waitFor();
    await expect(page.locator('.notice').count()).resolves.toBe(0);
    await expect(session().locator('.chain').textContent()).resolves.toBe('EVM');
    await expect(session().locator('.session-wallet').getAttribute('data-wallet')).resolves.toBe(wallets.evm.address);
    expect(wallets.evm.signed).toHaveLength(1);
    expect(wallets.evm.signed[0]).toMatch(signInMessage(new URL(page.url()).host, 'Ethereum'));
    const stored = await storedToken();
    expect(stored?.wallet).toBe(wallets.evm.address);
    const me = await call(api, 'GET', '/me', { token: stored?.token });
    expect(me.body).toMatchObject({ wallet: wallets.evm.address, chain: 'evm', followingCount: 0 });
    await expectRows('');
    await screenshot(page, 'web-catalogue-signed-in');
  });

  let followed: ProviderJson[] = [];

  it('opens a provider: its statistics as figures, and its chart', async () => {
    const [target] = (await list('limit=20')).items;
    if (!target) throw new Error('no providers');
    await page.locator(`tr[data-provider-id="${target.id}"] a`).click();
    await page.getByTestId('provider').waitFor();
    expect(page.url()).toBe(`${api.url}/#/providers/${target.id}`);
    const stats = (await call(api, 'GET', `/providers/${target.id}/stats`)).body;
    await expect(page.locator('h1').textContent()).resolves.toBe(target.name);
    await expect(followerCount().textContent()).resolves.toBe(count(target.followerCount));
    const figure = (label: string) => page.locator(`[data-figure="${label}"] dd`).first().textContent();
    await expect(figure('Win rate')).resolves.toBe(`${(stats.winRate * 100).toFixed(1)}%`);
    await expect(figure('Signals')).resolves.toBe(count(stats.totalSignals));
    await expect(figure('Followers')).resolves.toBe(count(stats.followerCount));
    await expect(page.locator('[data-figure] dt').allTextContents()).resolves.toEqual([
      'ROI 7d',
      'ROI 30d',
      'ROI 90d',
      'ROI all time',
      'Max drawdown',
      'Win rate',
      'Signals',
      'Followers',
    ]);
    // The return and drawdown chart (its windows and values: web.catalogue.browser.test.ts).
    const chart = (await call(api, 'GET', `/providers/${target.id}/performance`)).body;
    await expect
      .poll(() => page.getByTestId('performance-chart').getAttribute('data-points'))
      .toBe(String(chart.points.length));
    await expect(followButton().textContent()).resolves.toBe('Follow');
    followed = [target];
  });

  it('follows: the follower count goes up and the provider is under "Following"', async () => {
    const [target] = followed as [ProviderJson];
    await followButton().click();
    await expect.poll(() => followerCount().textContent()).toBe(count(target.followerCount + 1));
    await expect(followButton().getAttribute('aria-pressed')).resolves.toBe('true');
    await expect(followButton().textContent()).resolves.toBe('Unfollow');
    expect((await call(api, 'GET', `/providers/${target.id}`)).body.followerCount).toBe(target.followerCount + 1);
    await expect.poll(() => header().locator('.count').textContent()).toBe('1');
    await screenshot(page, 'provider');

    // Two more, so the list has an order to check (newest follow first).
    const others = (await list('limit=3')).items.filter((p) => p.id !== target.id).slice(0, 2);
    for (const other of others) {
      await openProvider(other.id);
      await followButton().click();
      await expect.poll(() => followButton().textContent()).toBe('Unfollow');
    }
    followed = [target, ...others];
    await header()
      .getByRole('link', { name: /Following/ })
      .click();
    await page.getByTestId('following').waitFor();
    const listed = await page
      .locator('[data-testid="following"] li')
      .evaluateAll((items) => items.map((item) => Number(item.getAttribute('data-provider-id'))));
    expect(listed).toEqual(followed.map((provider) => provider.id).reverse());
    await expect(header().locator('.count').textContent()).resolves.toBe('3');
    await screenshot(page, 'following');

    // The catalogue marks what the user follows.
    await header().getByRole('link', { name: 'Providers' }).click();
    await expectRows('');
    const tagged = await page
      .locator('[data-testid="providers"] tbody tr:has(.tag)')
      .evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-provider-id'))));
    expect(tagged.sort()).toEqual(followed.map((provider) => provider.id).sort());
    await screenshot(page, 'catalogue', { fullPage: true });
  });

  it('unfollows from the provider page and from the list, down to the empty list', async () => {
    const [target, ...others] = followed as [ProviderJson, ...ProviderJson[]];
    await openProvider(target.id);
    await expect.poll(() => followButton().textContent()).toBe('Unfollow');
    await followButton().click();
    await expect.poll(() => followerCount().textContent()).toBe(count(target.followerCount));
    await expect(followButton().textContent()).resolves.toBe('Follow');

    await header()
      .getByRole('link', { name: /Following/ })
      .click();
    const items = page.locator('[data-testid="following"] li');
    await expect.poll(() => items.count()).toBe(others.length);
    for (const other of others) {
      await page.locator(`[data-testid="following"] li[data-provider-id="${other.id}"]`).getByRole('button').click();
      await expect
        .poll(() => page.locator(`[data-testid="following"] li[data-provider-id="${other.id}"]`).count())
        .toBe(0);
    }
    await expect(page.getByTestId('empty').textContent()).resolves.toContain("You don't follow any providers yet");
    const me = await call(api, 'GET', '/me', { token: (await storedToken())?.token });
    expect(me.body.followingCount).toBe(0);
    await screenshot(page, 'web-following-empty');
  });

  it('signs out', async () => {
    await session().getByRole('button', { name: 'Sign out' }).click();
    await header().getByRole('button', { name: 'Sign in with EVM' }).waitFor();
    await expect(session().count()).resolves.toBe(0);
    await expect(storedToken()).resolves.toBeNull();
    await expect(page.getByTestId('empty').textContent()).resolves.toContain('Sign in to see the providers you follow');
  });

  it('Solana: a rejected signature, then a sign-in', async () => {
    wallets.solana.rejectNext();
    await header().getByRole('button', { name: 'Sign in with Solana' }).click();
    await expect(page.locator('.notice').getAttribute('data-problem')).resolves.toBe('rejected');
    await expect(session().count()).resolves.toBe(0);
    expect(wallets.solana.signed).toEqual([]);

    await header().getByRole('button', { name: 'Sign in with Solana' }).click();
    await session().waitFor();
    await expect(session().locator('.chain').textContent()).resolves.toBe('Solana');
    await expect(session().locator('.session-wallet').getAttribute('data-wallet')).resolves.toBe(
      wallets.solana.address,
    );
    expect(wallets.solana.signed).toHaveLength(1);
    expect(wallets.solana.signed[0]).toMatch(signInMessage(new URL(page.url()).host, 'Solana'));
    await expect(page.getByTestId('empty').textContent()).resolves.toContain("You don't follow any providers yet");
    const me = await call(api, 'GET', '/me', { token: (await storedToken())?.token });
    expect(me.body).toMatchObject({ wallet: wallets.solana.address, chain: 'solana' });
  });

  it('an expired session: the connected wallet signs again; after a reload the app asks to sign in', async () => {
    const [target] = followed as [ProviderJson];
    await openProvider(target.id);
    await expect.poll(() => followButton().isEnabled()).toBe(true);
    // The token is past its lifetime on the server's clock: the SDK signs in again with the
    // wallet that is still connected, and the follow goes through.
    api.advanceClock(PAST_TOKEN_LIFETIME_MS);
    await followButton().click();
    await expect.poll(() => followerCount().textContent()).toBe(count(target.followerCount + 1));
    expect(wallets.solana.signed).toHaveLength(2);
    await expect(session().count()).resolves.toBe(1);

    // After a reload the session comes from storage, with no wallet connected: an expired token
    // ends it, and the app says so instead of prompting the wallet out of the blue.
    await page.reload();
    await expect.poll(() => header().locator('.count').textContent()).toBe('1');
    api.advanceClock(PAST_TOKEN_LIFETIME_MS);
    await followButton().click();
    const notice = page.locator('.notice');
    await expect(notice.getAttribute('data-problem')).resolves.toBe('expired');
    await expect(notice.textContent()).resolves.toContain('Your session has expired');
    await expect(session().count()).resolves.toBe(0);
    await expect(storedToken()).resolves.toBeNull();
    expect(wallets.solana.signed).toHaveLength(2);
    await expect(
      page.locator('.provider-side').getByRole('button', { name: 'Sign in with Solana' }).isVisible(),
    ).resolves.toBe(true);
    await screenshot(page, 'web-session-expired');
  });

  it('a session that expired while the page was closed ends at load, with a notice', async () => {
    await header().getByRole('button', { name: 'Sign in with EVM' }).click();
    await session().waitFor();
    api.advanceClock(PAST_TOKEN_LIFETIME_MS);
    const signatures = wallets.evm.signed.length;
    await page.goto(`${api.url}/#/following`);
    await page.reload();
    await expect(page.locator('.notice').getAttribute('data-problem')).resolves.toBe('expired');
    await expect(session().count()).resolves.toBe(0);
    await expect(storedToken()).resolves.toBeNull();
    await expect(page.getByTestId('empty').textContent()).resolves.toContain('Sign in to see the providers you follow');
    expect(wallets.evm.signed).toHaveLength(signatures);
  });

  it('network down: the table says the API cannot be reached, and recovers on "Try again"', async () => {
    await page.goto(`${api.url}/`);
    await expectRows('');
    await browser.context.setOffline(true);
    try {
      await page.getByRole('link', { name: 'Next page' }).click();
      const panel = page.locator('.state-error');
      await expect(panel.getAttribute('data-problem')).resolves.toBe('network');
      await expect(panel.textContent()).resolves.toContain('Cannot reach the Signal API');
      await screenshot(page, 'web-network-down');
    } finally {
      await browser.context.setOffline(false);
    }
    await page.getByRole('button', { name: 'Try again' }).click();
    await expectRows('page=2');
    await expect(page.locator('.state-error').count()).resolves.toBe(0);
  });

  it('without a wallet in the browser, the sign-in buttons say what to install', async () => {
    const bare = await browser.context.newPage();
    try {
      await bare.goto(`${api.url}/`);
      const evm = bare.getByRole('button', { name: 'Sign in with EVM' });
      await evm.waitFor();
      await expect(evm.isDisabled()).resolves.toBe(true);
      await expect(evm.getAttribute('title')).resolves.toContain('No EVM wallet');
      await expect(bare.getByRole('button', { name: 'Sign in with Solana' }).isDisabled()).resolves.toBe(true);
    } finally {
      await bare.close();
    }
  });

  it('logged no page errors and no Content-Security-Policy violations', () => {
    expect(problems).toEqual([]);
  });
});
