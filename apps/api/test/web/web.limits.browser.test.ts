/**
 * The demo app when a rate limit answers 429, in Chromium against the real API with small
 * limits: each banner says which limit was hit (from RateLimit-Policy) and for how long (from
 * Retry-After), never "wait a minute" whatever the wait. Screenshots go to apps/api/artifacts/.
 */
import { describe, expect, it } from 'vitest';
import { CHROMIUM, screenshot, skipWithoutChromium, useWebApp } from '../browser.js';
import { injectWallets } from '../injected-wallets.js';

const skip = skipWithoutChromium('web.limits.browser.test.ts');
const MINUTE = 60_000;
/** "Try again in 42 seconds (at 12:03:15)." with the delay the API gave. */
const WHEN = /Try again in (\d+) seconds? \(at [^)]+\)\./;

describe.skipIf(skip)(`the demo app's rate-limit banners in Chromium (${CHROMIUM})`, () => {
  const web = useWebApp('postgres', {
    env: {
      SEED_PROVIDERS: '5',
      AUTH_RATE_LIMIT_PER_MINUTE: '1',
      FOLLOW_RATE_LIMIT_PER_MINUTE: '1',
      READ_RATE_LIMIT_PER_MINUTE: '12',
    },
    viewport: { width: 1200, height: 820 },
    // The 429s themselves are logged by the browser as failed loads.
    expected: /status of 429/,
    prepare: async ({ api, page }) => {
      // A minute of room: every limit below is hit within this window.
      api.advanceClock(MINUTE - (api.now().getTime() % MINUTE) + 1_000);
      await injectWallets(page);
    },
  });

  const header = () => web.page.locator('header.topbar');
  /** The delay a banner states, checked against the minute window it came from. */
  const statedDelay = (text: string | null) => {
    const seconds = Number(WHEN.exec(text ?? '')?.[1]);
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
    return seconds;
  };

  it('a follow past the per-user limit: the button says follows are limited and for how long', async () => {
    await web.page.goto(`${web.api.url}/`);
    await header().getByRole('button', { name: 'Sign in with EVM' }).click();
    await web.page.getByTestId('session').waitFor();
    await web.page.goto(`${web.api.url}/#/providers/1`);
    const button = web.page.locator('.provider-side').getByRole('button');
    await expect.poll(() => button.textContent()).toBe('Follow');
    await button.click();
    await expect.poll(() => button.textContent()).toBe('Unfollow');
    await button.click();
    const alert = web.page.locator('.follow-error');
    await alert.waitFor();
    const text = await alert.textContent();
    expect(text).toMatch(/^Too many follows\. Follows and unfollows are limited per minute for each account\. /);
    statedDelay(text);
    expect(text).not.toMatch(/Wait a minute/);
    // Nothing was unfollowed.
    await expect(button.textContent()).resolves.toBe('Unfollow');
    await screenshot(web.page, 'web-limit-follow');
  });

  it('a sign-in past the per-address limit: the banner names sign-in and the wait', async () => {
    await web.page.getByTestId('session').getByRole('button', { name: 'Sign out' }).click();
    await header().getByRole('button', { name: 'Sign in with EVM' }).click();
    const notice = web.page.locator('.notice');
    await notice.waitFor();
    await expect(notice.getAttribute('data-problem')).resolves.toBe('rate-limited');
    const text = await notice.textContent();
    expect(text).toContain('Too many sign-in attempts');
    expect(text).toContain('Sign-in requests from your network are limited per minute.');
    statedDelay(text);
    await expect(web.page.getByTestId('session').count()).resolves.toBe(0);
    await screenshot(web.page, 'web-limit-sign-in');
  });

  it('catalogue reads past the per-address limit: the page says so, and loads again after the wait', async () => {
    const panel = web.page.locator('.state-error');
    for (let page_ = 1; page_ <= 14 && (await panel.count()) === 0; page_++) {
      await web.page.goto(`${web.api.url}/#/?sortBy=name&order=asc&page=${page_}`);
      await web.page.locator('[data-testid="providers"], [data-testid="empty"], .state-error').first().waitFor();
    }
    await expect(panel.getAttribute('data-problem')).resolves.toBe('rate-limited');
    const text = await panel.textContent();
    expect(text).toContain('Too many requests');
    expect(text).toContain('Catalogue requests from your network are limited per minute.');
    const seconds = statedDelay(text);
    await screenshot(web.page, 'web-limit-reads');

    // Once the stated time has passed (on the server's clock), "Try again" loads the page.
    web.api.advanceClock(seconds * 1000);
    await panel.getByRole('button', { name: 'Try again' }).click();
    await web.page.locator('[data-testid="providers"], [data-testid="empty"]').first().waitFor();
    expect(web.problems).toEqual([]);
  });
});
