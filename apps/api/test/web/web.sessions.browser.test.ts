/**
 * The demo app's Sessions page in Chromium against the real API (PostgreSQL): one wallet signed
 * in from this browser and from other "devices" (sign-ins over HTTP with their own User-Agent
 * and forwarded address, signed by the same key in Node). The page names each device from its
 * user agent and marks this one; ending another session, "Sign out everywhere else" and "Sign
 * out" end sessions on the server, which the test proves with the ended tokens themselves (401
 * SESSION_REVOKED). A session ended from another device while no wallet is connected ends here
 * with "You were signed out on another device". Screenshots go to apps/api/artifacts/.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEB_DIST_DIR } from '../../src/pages/web.js';
import { type Browser, CHROMIUM, launchChromium, screenshot, skipWithoutChromium, watchProblems } from '../browser.js';
import { call, expectError, signIn, startApi, type TestApi, type TestWallet } from '../harness.js';
import { type InjectedWallet, injectWallets } from '../injected-wallets.js';

const skip = skipWithoutChromium('web.sessions.browser.test.ts');

const TOKEN_KEY = 'signal-demo.token';
const HOUR_MS = 3600 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** Other devices of the same wallet: what they send, what the page should call them, how old they are. */
const DEVICES = [
  {
    userAgent:
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
    ip: '198.51.100.42',
    name: 'Chrome on Android',
    started: 8 * HOUR_MS,
    used: 2 * HOUR_MS,
    ago: ['8 hours ago', '2 hours ago'],
  },
  {
    userAgent:
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
    ip: '203.0.113.24',
    name: 'Safari on iPhone',
    started: 2 * DAY_MS + HOUR_MS,
    used: 3 * HOUR_MS,
    ago: ['2 days ago', '3 hours ago'],
  },
  {
    userAgent:
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    ip: '192.0.2.117',
    name: 'Chrome on macOS',
    started: 5 * DAY_MS + HOUR_MS,
    used: DAY_MS + HOUR_MS,
    ago: ['5 days ago', 'yesterday'],
  },
  {
    userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
    ip: '2001:db8:85a3::8a2e:370:7334',
    name: 'Firefox on Windows',
    started: 19 * DAY_MS,
    used: 6 * DAY_MS + HOUR_MS,
    ago: ['19 days ago', '6 days ago'],
  },
] as const;

interface SessionJson {
  id: string;
  userAgent: string | null;
  ip: string | null;
  current: boolean;
}

describe.skipIf(skip)(`the demo app's Sessions page in Chromium (${CHROMIUM})`, () => {
  let api: TestApi;
  let browser: Browser;
  let page: Page;
  let wallets: { evm: InjectedWallet; solana: InjectedWallet };
  /** The browser's EVM wallet, signing from Node: the same account on other devices. */
  let elsewhere: TestWallet;
  /** Token and session id of each device in DEVICES, in order. */
  const others: { token: string; sessionId: string }[] = [];
  /** A device that signs in later and stays signed in. */
  let tablet: { token: string; sessionId: string };
  let problems: string[] = [];

  beforeAll(async () => {
    if (!existsSync(join(WEB_DIST_DIR, 'index.html'))) throw new Error(`no web build in ${WEB_DIST_DIR}`);
    // TRUST_PROXY=1: the other devices' sessions keep the address they forward; the browser's
    // (no X-Forwarded-For) keeps its socket's.
    api = await startApi('postgres', { env: { SEED_PROVIDERS: '5', TRUST_PROXY: '1' } });
    browser = await launchChromium({ width: 1200, height: 820 });
    page = browser.page;
    wallets = await injectWallets(page);
    elsewhere = { address: wallets.evm.address, chain: 'evm', sign: (message) => wallets.evm.signElsewhere(message) };
    // Expected: the browser logs the 401s of ended sessions as failed loads.
    problems = watchProblems(page, /status of 401/);
  });

  afterAll(async () => {
    await browser?.close();
    await api?.stop();
  });

  const header = () => page.locator('header.topbar');
  const main = () => page.locator('main');
  const session = () => page.getByTestId('session');
  const rows = () => page.locator('[data-testid="sessions"] tbody tr');
  const row = (id: string) => page.locator(`[data-testid="sessions"] tbody tr[data-session-id="${id}"]`);
  const rowIds = () => rows().evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-session-id')));
  const storedToken = () =>
    page.evaluate((key) => JSON.parse((globalThis as any).localStorage.getItem(key) ?? 'null'), TOKEN_KEY) as Promise<{
      token: string;
      wallet: string;
    } | null>;
  const listed = async (token: string) => {
    const reply = await call(api, 'GET', '/me/sessions?limit=100', { token });
    expect(reply.status).toBe(200);
    return reply.body.items as SessionJson[];
  };
  /** A token of an ended session: 401 SESSION_REVOKED with the bearer challenge, on any route. */
  const expectRevoked = async (token: string) => {
    const reply = await call(api, 'GET', '/me', { token });
    expectError(reply, 401, 'SESSION_REVOKED');
    expect(reply.headers.get('www-authenticate')).toContain('error="invalid_token"');
  };
  const signInFrom = (userAgent: string, ip: string) =>
    signIn(api, elsewhere, { headers: { 'user-agent': userAgent, 'x-forwarded-for': ip } });
  /** No horizontal scrolling: nothing wider than the viewport. */
  const expectNoOverflow = async () =>
    expect(
      await page.evaluate(() => {
        const root = (globalThis as any).document.documentElement;
        return root.scrollWidth - root.clientWidth;
      }),
    ).toBe(0);

  it('lists every session of the wallet, newest first, each device named and this one marked', async () => {
    // The same wallet signed in elsewhere earlier: hours to weeks ago, last used since.
    for (const device of DEVICES) {
      const started = await signInFrom(device.userAgent, device.ip);
      const now = api.now().getTime();
      await api.db.db
        .updateTable('sessions')
        .set({ created_at: new Date(now - device.started), last_used_at: new Date(now - device.used) })
        .where('id', '=', started.sessionId)
        .execute();
      others.push({ token: started.token, sessionId: started.sessionId });
    }

    await page.goto(`${api.url}/#/sessions`);
    await expect(header().getByRole('link', { name: 'Sessions' }).getAttribute('aria-current')).resolves.toBe('page');
    await expect(page.getByTestId('empty').textContent()).resolves.toContain('Sign in to see where you are signed in');
    await main().getByRole('button', { name: 'Sign in with EVM' }).click();
    await session().waitFor();
    await expect.poll(() => rows().count()).toBe(DEVICES.length + 1);

    const token = (await storedToken())?.token as string;
    const api_ = await listed(token);
    // The page lists what the API lists, in its order: this browser's sign-in is the newest.
    await expect(rowIds()).resolves.toEqual(api_.map((s) => s.id));
    const current = api_[0] as SessionJson;
    expect(current.current).toBe(true);
    expect(api_.slice(1).map((s) => s.id)).toEqual(others.map((o) => o.sessionId));

    await expect(
      page.locator('[data-testid="sessions"] thead th').evaluateAll((ths) => ths.map((th) => th.textContent)),
    ).resolves.toEqual(['Device', 'Address', 'Signed in', 'Last active', 'Action']);

    // This device: Chromium's own user agent, named as a person would, and marked.
    const userAgent = await page.evaluate(() => (globalThis as any).navigator.userAgent as string);
    expect(current.userAgent).toBe(userAgent);
    const mine = row(current.id);
    await expect(mine.getAttribute('data-current')).resolves.toBe('true');
    await expect(mine.locator('.device-name').textContent()).resolves.toBe('Chrome on LinuxThis device');
    await expect(mine.locator('.device-name').getAttribute('title')).resolves.toBe(userAgent);
    await expect(mine.locator('td[data-column="ip"]').textContent()).resolves.toBe(current.ip);
    await expect(mine.locator('td[data-column="lastUsedAt"]').textContent()).resolves.toBe('Active now');
    await expect(mine.getByRole('button', { name: 'Sign out this device' }).isEnabled()).resolves.toBe(true);
    await expect(page.locator('.tag-current').count()).resolves.toBe(1);

    // The others: device, forwarded address, when they started and were last used.
    for (const [index, device] of DEVICES.entries()) {
      const other = row(others[index]!.sessionId);
      await expect(other.getAttribute('data-current')).resolves.toBeNull();
      await expect(other.locator('.device-name').textContent()).resolves.toBe(device.name);
      await expect(other.locator('td[data-column="ip"]').textContent()).resolves.toBe(device.ip);
      await expect(other.locator('td[data-column="createdAt"] time').textContent()).resolves.toBe(device.ago[0]);
      await expect(other.locator('td[data-column="lastUsedAt"] time').textContent()).resolves.toBe(device.ago[1]);
      await expect(
        other
          .getByRole('button', { name: `Sign out ${device.name} at ${device.ip}, signed in ${device.ago[0]}` })
          .count(),
      ).resolves.toBe(1);
    }
    await expect(page.locator('.toolbar .outcome').textContent()).resolves.toBe('5 sessions are signed in.');
    await expect(page.getByRole('button', { name: 'Sign out everywhere else' }).isEnabled()).resolves.toBe(true);
    await expectNoOverflow();
    await screenshot(page, 'sessions');

    // A phone-sized screen: the address and start move under the device name, nothing overflows.
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await expect(mine.locator('td[data-column="ip"]').isVisible()).resolves.toBe(false);
      const meta = row(others[1]!.sessionId).locator('.device-meta > span');
      await expect(meta.allTextContents()).resolves.toEqual([DEVICES[1].ip, `Signed in ${DEVICES[1].ago[0]}`]);
      await expect(meta.first().isVisible()).resolves.toBe(true);
      await expectNoOverflow();
      await screenshot(page, 'web-sessions-narrow', { fullPage: true });
    } finally {
      await page.setViewportSize({ width: 1200, height: 820 });
    }
  });

  it('ends another session from the list: it disappears, and its token is refused at once', async () => {
    const iphone = others[1]!;
    await row(iphone.sessionId)
      .getByRole('button', { name: /^Sign out Safari on iPhone/ })
      .click();
    await expect.poll(() => row(iphone.sessionId).count()).toBe(0);
    await expect(page.getByTestId('outcome').textContent()).resolves.toBe('Signed out Safari on iPhone.');
    await expect(page.getByTestId('outcome').getAttribute('role')).resolves.toBe('status');
    await expectRevoked(iphone.token);

    // Only that one: the others still answer, and the page agrees with the API.
    const token = (await storedToken())?.token as string;
    expect((await call(api, 'GET', '/me', { token: others[0]!.token })).status).toBe(200);
    const remaining = (await listed(token)).map((s) => s.id);
    expect(remaining).not.toContain(iphone.sessionId);
    await expect.poll(rowIds).toEqual(remaining);
    await expect(page.locator('.pagination').count()).resolves.toBe(0);
    await screenshot(page, 'web-sessions-ended-one');
  });

  it('"Sign out everywhere else" ends every other session and keeps this one', async () => {
    await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await expect.poll(() => page.getByTestId('outcome').textContent()).toBe('Signed out 3 other sessions.');
    await expect.poll(() => rows().count()).toBe(1);
    await expect(rows().first().getAttribute('data-current')).resolves.toBe('true');
    // Polled like the rows: the button turns disabled when the page re-renders the list.
    await expect.poll(() => page.getByRole('button', { name: 'Sign out everywhere else' }).isDisabled()).toBe(true);
    for (const other of others) await expectRevoked(other.token);

    const token = (await storedToken())?.token as string;
    expect((await call(api, 'GET', '/me', { token })).status).toBe(200);
    expect((await listed(token)).map((s) => s.current)).toEqual([true]);
    await expect(session().count()).resolves.toBe(1);
    await screenshot(page, 'web-sessions-only-this-device');
  });

  it('the rest of the app works as before on the session that is left: follow, Following', async () => {
    const signatures = wallets.evm.signed.length;
    await page.goto(`${api.url}/#/providers/1`);
    const button = page.locator('.provider-side').getByRole('button');
    await expect.poll(() => button.textContent()).toBe('Follow');
    const before = (await call(api, 'GET', '/providers/1')).body.followerCount as number;
    await button.click();
    await expect.poll(() => button.textContent()).toBe('Unfollow');
    expect((await call(api, 'GET', '/providers/1')).body.followerCount).toBe(before + 1);
    await header()
      .getByRole('link', { name: /Following/ })
      .click();
    await expect.poll(() => page.locator('[data-testid="following"] li').count()).toBe(1);
    await expect(header().locator('.count').textContent()).resolves.toBe('1');
    // No sign-in was needed again.
    expect(wallets.evm.signed).toHaveLength(signatures);
  });

  it('ended from another device while no wallet is connected: "You were signed out on another device"', async () => {
    // After a reload the session comes from storage: a client with no wallet behind it.
    await page.goto(`${api.url}/#/`);
    await page.reload();
    await session().waitFor();
    await expect.poll(() => header().locator('.count').textContent()).toBe('1');
    const token = (await storedToken())?.token as string;
    const mine = (await listed(token)).find((s) => s.current) as SessionJson;

    // The user, on a tablet, ends this browser's session from its own list.
    tablet = await signInFrom(
      'Mozilla/5.0 (iPad; CPU OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1',
      '203.0.113.80',
    );
    expect((await call(api, 'DELETE', `/me/sessions/${mine.id}`, { token: tablet.token })).status).toBe(200);

    // The next call that needs the user is refused: the app says why, and asks nobody to sign.
    const signatures = wallets.evm.signed.length;
    await header().getByRole('link', { name: 'Sessions' }).click();
    const notice = page.locator('.notice');
    await expect(notice.getAttribute('data-problem')).resolves.toBe('revoked');
    await expect(notice.locator('strong').textContent()).resolves.toBe('You were signed out on another device');
    await expect(session().count()).resolves.toBe(0);
    await expect(storedToken()).resolves.toBeNull();
    await expect(page.getByTestId('empty').textContent()).resolves.toContain('Sign in to see where you are signed in');
    await expect(page.locator('.state-error').count()).resolves.toBe(0);
    expect(wallets.evm.signed).toHaveLength(signatures);
    await expectNoOverflow();
    await screenshot(page, 'web-sessions-signed-out-elsewhere');

    // The same at page load: signed in again here, then "Sign out everywhere else" on the
    // tablet while this page was closed.
    await notice.getByRole('button', { name: 'Dismiss' }).click();
    await main().getByRole('button', { name: 'Sign in with EVM' }).click();
    await session().waitFor();
    await expect.poll(() => rows().count()).toBe(2);
    const ended = await call(api, 'POST', '/auth/logout', { token: tablet.token, body: { scope: 'others' } });
    expect(ended.body).toEqual({ revoked: 1 });
    const again = wallets.evm.signed.length;
    await page.reload();
    await expect(page.locator('.notice').getAttribute('data-problem')).resolves.toBe('revoked');
    await expect(session().count()).resolves.toBe(0);
    await expect(storedToken()).resolves.toBeNull();
    expect(wallets.evm.signed).toHaveLength(again);
    expect((await call(api, 'GET', '/me', { token: tablet.token })).status).toBe(200);
  });

  it('"Sign out" ends the session on the server: the token the page held is refused', async () => {
    await page.goto(`${api.url}/#/sessions`);
    await header().getByRole('button', { name: 'Sign in with EVM' }).click();
    await session().waitFor();
    await expect(page.locator('.notice').count()).resolves.toBe(0);
    await expect.poll(() => rows().count()).toBe(2);
    const held = (await storedToken())?.token as string;
    const mine = (await listed(held)).find((s) => s.current) as SessionJson;

    await session().getByRole('button', { name: 'Sign out' }).click();
    await header().getByRole('button', { name: 'Sign in with EVM' }).waitFor();
    await expect(session().count()).resolves.toBe(0);
    await expect(storedToken()).resolves.toBeNull();
    await expect(page.locator('.notice').count()).resolves.toBe(0);
    await expect(page.getByTestId('empty').textContent()).resolves.toContain('Sign in to see where you are signed in');
    // A copy of the token (a log, an extension) is worth nothing now, on every route.
    await expectRevoked(held);
    expectError(await call(api, 'GET', '/me/following', { token: held }), 401, 'SESSION_REVOKED');
    // Gone from the list the user's other device sees.
    expect((await listed(tablet.token)).map((s) => s.id)).toEqual([tablet.sessionId]);
    expect(mine.current).toBe(true);

    // The row's own "Sign out this device" does the same.
    await main().getByRole('button', { name: 'Sign in with EVM' }).click();
    await session().waitFor();
    await expect.poll(() => rows().count()).toBe(2);
    const next = (await storedToken())?.token as string;
    await page.getByRole('button', { name: 'Sign out this device' }).click();
    await header().getByRole('button', { name: 'Sign in with EVM' }).waitFor();
    await expect(storedToken()).resolves.toBeNull();
    await expectRevoked(next);
    await screenshot(page, 'web-sessions-signed-out');
  });

  it('logged no page errors and no Content-Security-Policy violations', () => {
    expect(problems).toEqual([]);
  });
});
