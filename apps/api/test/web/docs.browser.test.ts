/**
 * /docs in a real browser: Debian's Chromium (/usr/bin/chromium) driven by playwright-core, no
 * downloaded browser. The page must render every operation of /openapi.json from assets this
 * server serves, and "Try it out" must call this server, with the bearer token once authorized.
 * Screenshots go to apps/api/artifacts/ (look at them: a blank page can still have the DOM).
 *
 * Skipped, saying so, when Chromium is not installed on a developer machine; in CI (CI=true)
 * it always runs, and .ci/run installs Chromium first.
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, CHROMIUM, launchChromium, screenshot, skipWithoutChromium, watchProblems } from '../browser.js';
import { call, evmWallet, signIn, useApi } from '../harness.js';

const skip = skipWithoutChromium('docs.browser.test.ts');

/** The operator's master key of this test's server, authorized on the page for the scoped routes. */
const ADMIN_KEY = 'docs-test-admin-key-0123456789abcdefghijklmnop';

describe.skipIf(skip)(`/docs in Chromium (${CHROMIUM})`, () => {
  const api = useApi('postgres', { env: { SEED_PROVIDERS: '12', ADMIN_KEY } });
  let browser: Browser;
  let page: Page;
  let token: string;
  let wallet: string;
  const requests: { url: string; authorization?: string }[] = [];
  let problems: string[] = [];

  beforeAll(async () => {
    const signedIn = await signIn(api, evmWallet());
    token = signedIn.token;
    wallet = signedIn.user.wallet;
    browser = await launchChromium();
    page = browser.page;
    page.on('request', (request) => {
      requests.push({ url: request.url(), authorization: request.headers().authorization });
    });
    // The browser logs every non-2xx fetch; the 401 of the unauthorized try-it is expected.
    problems = watchProblems(page, /status of 401/);
  });

  afterAll(async () => {
    await browser?.close();
  });

  const operation = (id: string) => page.locator(`#operations-${id}`);

  /**
   * Authorize dialog: one form with a block per security scheme (each with an input of the same
   * id), so the value goes into the block that names this scheme and not the other.
   */
  async function authorize(scheme: 'bearerAuth' | 'serviceKey', value: string) {
    await page.locator('.scheme-container .auth-wrapper button.authorize').click();
    // Swagger UI draws one form per scheme, each with its own input and "Apply credentials" button.
    const form = page.locator('.auth-container').filter({ has: page.locator('h4 code', { hasText: scheme }) });
    await form.locator('input').first().fill(value);
    await form.getByRole('button', { name: 'Apply credentials' }).click();
    await page.locator('.modal-ux .btn-done').first().click();
  }

  /** Opens an operation, switches it to "Try it out", optionally fills path parameters, executes. */
  async function tryIt(
    op: Locator,
    parameters: Record<string, string> = {},
  ): Promise<{ status: string; body: string }> {
    if (!(await op.locator('.opblock-body').isVisible())) await op.locator('.opblock-summary').click();
    // The body renders after the click: wait for it to offer either "Try it out" or, when the
    // operation is already in try-out mode, "Cancel", instead of reading a half-drawn panel.
    const tryOut = op.getByRole('button', { name: 'Try it out' });
    await tryOut
      .or(op.getByRole('button', { name: 'Cancel' }))
      .first()
      .waitFor();
    if (await tryOut.isVisible()) await tryOut.click();
    await op.getByRole('button', { name: 'Execute' }).waitFor();
    for (const [name, value] of Object.entries(parameters)) {
      await op.locator(`tr[data-param-name="${name}"] input`).fill(value);
    }
    const previous = await op.locator('.live-responses-table tbody .response-col_status').count();
    if (previous > 0) await op.getByRole('button', { name: 'Clear' }).click();
    await op.getByRole('button', { name: 'Execute' }).click();
    const row = op.locator('.live-responses-table tbody tr.response').first();
    await row.waitFor();
    await row.scrollIntoViewIfNeeded();
    return {
      status: ((await row.locator('.response-col_status').textContent()) ?? '').trim(),
      body: (await row.locator('.response-col_description pre').first().textContent()) ?? '',
    };
  }

  it('renders every operation of /openapi.json, with every asset from this server', async () => {
    const started = performance.now();
    await page.goto(`${api.url}/docs`);
    await page.locator('.opblock').first().waitFor();
    const renderMs = Math.round(performance.now() - started);

    const doc = (await call(api, 'GET', '/openapi.json')).body;
    const documented = Object.values(doc.paths as Record<string, object>).flatMap((item) => Object.keys(item));
    const paths = await page.locator('.opblock-summary-path').allInnerTexts();
    expect(paths).toHaveLength(documented.length);
    for (const path of ['/auth/nonce', '/auth/verify', '/me', '/providers', '/providers/{id}/stats', '/health']) {
      expect(paths).toContain(path);
    }
    await expect(page.locator('.info .title').textContent()).resolves.toContain('Signal provider service');
    await expect(page.locator('.scheme-container .auth-wrapper button.authorize').isVisible()).resolves.toBe(true);

    // No CDN, no validator badge, no fonts from elsewhere: every request goes to this origin.
    const foreign = requests.filter((request) => !request.url.startsWith(`${api.url}/`));
    expect(foreign).toEqual([]);
    expect(requests.map((request) => new URL(request.url).pathname)).toContain('/openapi.json');
    await screenshot(page, 'docs');
    console.info(`/docs rendered in ${renderMs} ms`);
  });

  it('shows the error responses of POST /auth/verify with their codes', async () => {
    const op = operation('auth-auth-verify');
    await op.locator('.opblock-summary').click();
    const documented = op.locator('.responses-wrapper tr.response');
    await documented.first().waitFor();
    const codes = await documented.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-code')));
    // 404 NOT_FOUND too: the host routes before the operation is chosen.
    expect(codes).toEqual(['200', '400', '401', '404', '413', '429', '500', '503']);
    const unauthorized = op.locator('.responses-wrapper tr.response[data-code="401"]');
    await expect(unauthorized.textContent()).resolves.toMatch(/INVALID_NONCE[\s\S]*INVALID_SIGNATURE/);
    await unauthorized.scrollIntoViewIfNeeded();
    await screenshot(page, 'docs-errors');
    await op.locator('.opblock-summary').click();
  });

  it('lists the named schemas (Provider, ProviderPage, ErrorBody, …) under Schemas', async () => {
    for (const name of ['Provider', 'ProviderPage', 'FollowResult', 'UnfollowResult', 'ErrorBody', 'User']) {
      await expect(page.locator(`#model-${name}`).count(), name).resolves.toBe(1);
    }
  });

  it('"Try it out" on GET /providers answers 200 with the catalogue', async () => {
    const result = await tryIt(operation('providers-providers-list'));
    expect(result.status).toBe('200');
    expect(JSON.parse(result.body)).toMatchObject({ page: 1, limit: 2, total: 12, totalPages: 6 });
    await screenshot(page, 'docs-try-providers');
  });

  it('without a token, "Try it out" on GET /me shows 401 UNAUTHORIZED', async () => {
    const result = await tryIt(operation('me-me-get'));
    expect(result.status).toBe('401');
    expect(JSON.parse(result.body)).toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('after Authorize with a bearer token, GET /me answers 200 with the signed-in wallet', async () => {
    await authorize('bearerAuth', token);

    const result = await tryIt(operation('me-me-get'));
    expect(result.status).toBe('200');
    expect(JSON.parse(result.body)).toMatchObject({ wallet, chain: 'evm', followingCount: 0 });
    const sent = requests.filter((request) => new URL(request.url).pathname === '/me');
    expect(sent.at(-1)?.authorization).toBe(`Bearer ${token}`);
    await screenshot(page, 'docs-try-me');
  });

  it('authorized, POST /providers/{id}/follow from the page follows the provider', async () => {
    const result = await tryIt(operation('providers-providers-follow'), { id: '3' });
    expect(result.status).toBe('200');
    expect(JSON.parse(result.body)).toMatchObject({ providerId: 3, following: true });
    const me = await call(api, 'GET', '/me', { token });
    expect(me.body.followingCount).toBe(1);
    await screenshot(page, 'docs-try-follow');
  });

  it('after Authorize with a service key (ADMIN_KEY), GET /admin/keys answers 200 with it sent', async () => {
    await authorize('serviceKey', ADMIN_KEY);
    const result = await tryIt(operation('admin-keys-list'));
    expect(result.status).toBe('200');
    expect(JSON.parse(result.body)).toMatchObject({ items: [], total: 0 });
    const sent = requests.filter((request) => new URL(request.url).pathname === '/admin/keys');
    expect(sent.at(-1)?.authorization).toBe(`Bearer ${ADMIN_KEY}`);
    // The user's token still goes to the user's routes.
    const me = await tryIt(operation('me-me-get'));
    expect(me.status).toBe('200');
  });

  it('logged no page errors and no Content-Security-Policy violations', () => {
    expect(problems).toEqual([]);
  });
});
