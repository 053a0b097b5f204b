/**
 * Signals in the demo app, in Chromium against the real API with the demo seed: the provider page
 * (its signals as the API lists them, countdowns and commitments of hidden ones, the pipeline's
 * figure beside the log's, the "record verified up to checkpoint N" mark the browser computes and
 * what it says when a statement was altered on the way), a follower's live feed, and the
 * publisher page, where a provider's demo publisher wallet (an EIP-6963 wallet backed by a viem
 * account in Node, test/signals/demo-keys.ts) opens, updates and closes a signal the follower sees
 * arrive. Every step is checked against what the API answers. Screenshots: apps/api/artifacts/.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, CHROMIUM, launchChromium, screenshot, skipWithoutChromium, watchProblems } from '../browser.js';
import { call, startApi, type TestApi } from '../harness.js';
import { type InjectedWallet, injectDiscoverableWallets } from '../injected-wallets.js';
import { fetchCheckpoint, fetchVerifierKey } from '../log/log-support.js';
import { demoWallet, demoWalletKey } from '../signals/demo-keys.js';

const skip = skipWithoutChromium('web.signals.browser.test.ts');
const TOKEN_KEY = 'signal-demo.token';

interface SignalJson {
  id: string;
  status: string;
  revealAt: string;
  content: Record<string, any> | null;
  statements: { logIndex: number; type: string; commitment: string; statement: string | null }[];
}

describe.skipIf(skip)(`signals in the demo app (${CHROMIUM})`, () => {
  let api: TestApi;
  let browser: Browser;
  let follower: Page;
  let publisher: Page;
  let followerWallet: InjectedWallet;
  let publisherWallet: InjectedWallet;
  /** A seeded provider with revealed and hidden signals (its delay changed halfway). */
  let mixed: number;
  let problems: string[] = [];
  let publisherProblems: string[] = [];

  const signals = async (id: number, token?: string) =>
    (await call(api, 'GET', `/providers/${id}/signals?limit=100`, token ? { token } : {})).body.items as SignalJson[];
  const followerToken = async () =>
    (
      JSON.parse(
        (await follower.evaluate((key) => (globalThis as any).localStorage.getItem(key), TOKEN_KEY)) ?? 'null',
      ) as {
        token: string;
      }
    ).token;

  beforeAll(async () => {
    api = await startApi('postgres', { env: { SEED_PROVIDERS: '30', SEED_SIGNAL_PROVIDERS: '10' } });
    const { items } = (await call(api, 'GET', '/providers?limit=100')).body as { items: { id: number }[] };
    for (const { id } of items) {
      if ((await call(api, 'GET', `/providers/${id}/publishers`)).body.items.length === 0) continue;
      const list = await signals(id);
      const hidden = list.filter((s) => s.content === null).length;
      if (hidden > 0 && hidden < list.length) mixed = id;
    }
    expect(mixed).toBeGreaterThan(0);
    browser = await launchChromium({ width: 1200, height: 900 });
    follower = browser.page;
    followerWallet = (await injectDiscoverableWallets(follower, ['Follower'])).Follower!.evm;
    publisher = await browser.context.newPage();
    const injected = await injectDiscoverableWallets(publisher, ['Publisher', 'Stranger'], {
      Publisher: demoWalletKey(mixed),
    });
    publisherWallet = injected.Publisher!.evm;
    problems = watchProblems(follower);
    publisherProblems = watchProblems(publisher, /status of 403/);
  });

  afterAll(async () => {
    await browser?.close();
    await api?.stop();
  });

  it('lists the provider’s signals as the API does, hidden ones with a countdown and their commitment', async () => {
    const listed = await signals(mixed);
    await follower.goto(`${api.url}/#/providers/${mixed}`);
    const cards = follower.getByTestId('signal');
    await expect.poll(() => cards.count()).toBe(listed.length);
    await expect(cards.evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-signal-id')))).resolves.toEqual(
      listed.map((s) => s.id),
    );
    for (const signal of listed) {
      const card = follower.locator(`[data-signal-id="${signal.id}"]`);
      await expect(card.getAttribute('data-status')).resolves.toBe(signal.status);
      if (signal.content === null) {
        await expect(card.getByTestId('countdown').textContent()).resolves.toMatch(
          /^Public in (\d+h \d\dm \d\ds|\d+m \d\ds)$/,
        );
        await expect(card.getByTestId('commitment').textContent()).resolves.toBe(signal.statements[0]!.commitment);
        await expect(card.getByTestId('signal-terms').count()).resolves.toBe(0);
      } else {
        await expect(card.getByTestId('open-pct').textContent()).resolves.toBe(`${signal.content.openPct}%`);
      }
    }
    // A countdown counts down.
    const countdown = follower.getByTestId('countdown').first();
    const before = await countdown.textContent();
    await expect.poll(() => countdown.textContent(), { timeout: 3000 }).not.toBe(before);
  });

  it('says which figures are the pipeline’s word and which the log backs, and verifies the record itself', async () => {
    const stats = (await call(api, 'GET', `/providers/${mixed}/stats`)).body as { totalSignals: number };
    await expect(follower.getByTestId('record-pipeline').textContent()).resolves.toContain(
      `${stats.totalSignals.toLocaleString('en')} signals`,
    );
    await expect(follower.getByTestId('record-pipeline').textContent()).resolves.toContain('operator’s word');
    await expect(follower.getByTestId('record-log').textContent()).resolves.toContain('6 signed signals');
    const key = await fetchVerifierKey(api.url);
    const { size } = await fetchCheckpoint(api.url, key);
    const mark = follower.getByTestId('record-mark');
    await expect.poll(() => mark.getAttribute('data-checkpoint'), { timeout: 15_000 }).toBe(String(size));
    await expect(mark.textContent()).resolves.toContain(
      `Record verified up to checkpoint ${size.toLocaleString('en')}`,
    );
    await follower.getByRole('button', { name: 'run the audit yourself' }).click();
    await expect(follower.getByTestId('audit-command').textContent()).resolves.toContain(
      `signal-audit --url ${api.url} --provider ${mixed}`,
    );
    await follower.getByTestId('record').evaluate((node) => node.scrollIntoView({ block: 'start' }));
    await follower.evaluate(() => (globalThis as any).scrollBy(0, -72));
    await screenshot(follower, 'web-signals-provider');
    expect(problems).toEqual([]);
  });

  it('shows what failed when a revealed statement was altered on its way to the browser', async () => {
    // The app reads the list through the SDK (tRPC `signals.list`); the proxy alters its answer.
    const route = `${api.url}/trpc/signals.list?**`;
    await follower.route(route, async (intercepted) => {
      const response = await intercepted.fetch();
      const body = (await response.json()) as { result: { data: { items: SignalJson[] } } };
      const revealed = body.result.data.items.flatMap((s) => s.statements).find((s) => s.statement !== null)!;
      // One more digit in the size: the statement no longer hashes to its commitment.
      revealed.statement = revealed.statement!.replace(/"sizePct":"(\d+)/, '"sizePct":"$11');
      await intercepted.fulfill({ response, json: body });
    });
    try {
      await follower.reload();
      const mark = follower.getByTestId('record-mark');
      await expect.poll(() => mark.getAttribute('data-failed'), { timeout: 15_000 }).toBe('commitment');
      await expect(mark.textContent()).resolves.toContain('The record failed the check');
      await mark.evaluate((node) => node.scrollIntoView({ block: 'center' }));
      await screenshot(follower, 'web-signals-tampered');
    } finally {
      await follower.unroute(route);
    }
  });

  /** Fills the publisher page's form and opens the signal; its id, from the outcome line. */
  async function openFromForm(terms: { instrument: string; side: 'long' | 'short'; stop: string; targets: string }) {
    const form = publisher.getByTestId('open-form');
    await form.locator('input[name="instrument"]').fill(terms.instrument);
    await form.locator('select[name="side"]').selectOption(terms.side);
    await form.locator('input[name="stop"]').fill(terms.stop);
    await form.locator('input[name="targets"]').fill(terms.targets);
    await form.locator('input[name="size"]').fill('4');
    await form.getByRole('button', { name: 'Sign and open' }).click();
    const outcome = publisher.getByTestId('outcome');
    const opened = new RegExp(`^Opened ${terms.side} ${terms.instrument} \\(signal `);
    await expect.poll(() => outcome.textContent(), { timeout: 15_000 }).toMatch(opened);
    return /\(signal ([A-Za-z0-9_-]+)\)/.exec((await outcome.textContent())!)![1]!;
  }

  it('the provider’s publisher wallet opens, updates and closes a signal from the publisher page', async () => {
    // A follower, to read the terms before the reveal.
    await follower.goto(`${api.url}/#/providers/${mixed}`);
    await follower.locator('header.topbar').getByRole('button', { name: 'Sign in with EVM' }).click();
    await expect.poll(() => follower.getByTestId('session').textContent()).toContain(followerWallet.address.slice(-4));
    await follower.locator('.provider-side').getByRole('button', { name: 'Follow' }).click();
    await expect.poll(() => follower.locator('.provider-side').getByRole('button').textContent()).toBe('Unfollow');
    const token = await followerToken();

    // The publisher: its demo wallet, announced by EIP-6963, is a publisher of the provider.
    await publisher.goto(`${api.url}/#/providers/${mixed}/publish`);
    await publisher.getByRole('button', { name: 'Connect Publisher EVM (EVM)' }).click();
    await expect(publisher.getByTestId('connected').textContent()).resolves.toContain(
      'a publisher wallet of this provider',
    );
    expect(publisherWallet.address).toBe(demoWallet(mixed).address);
    const signalId = await openFromForm({
      instrument: 'ETH-USD',
      side: 'short',
      stop: '3650.5',
      targets: '3300, 3150',
    });
    // The wallet signed (personal_sign) exactly the canonical statement the API holds.
    const opened = (await signals(mixed, token)).find((s) => s.id === signalId)!;
    expect(publisherWallet.signed.at(-1)).toBe(opened.statements[0]!.statement);
    expect(opened.content).toMatchObject({
      instrument: 'ETH-USD',
      side: 'short',
      stop: '3650.5',
      targets: ['3300', '3150'],
    });

    // Update the stop, then close 40 % and the remaining 60 %.
    const outcome = publisher.getByTestId('outcome');
    const row = publisher.locator(`[data-signal-id="${signalId}"]`);
    await row.locator('input[name="stop"]').fill('3500');
    await row.getByRole('button', { name: 'Update' }).click();
    await expect.poll(() => outcome.textContent(), { timeout: 15_000 }).toContain(`Updated signal ${signalId}`);
    await expect.poll(() => row.getByTestId('signal-terms').textContent()).toContain('3,500');
    await publisher.evaluate(() => (globalThis as any).scrollTo(0, 0));
    await screenshot(publisher, 'web-signals-publish');
    await row.locator('input[name="closePct"]').fill('40');
    await row.getByRole('button', { name: 'Close %' }).click();
    await expect.poll(() => outcome.textContent(), { timeout: 15_000 }).toContain(`Closed 40% of signal ${signalId}`);
    let now = (await signals(mixed, token)).find((s) => s.id === signalId)!;
    expect(now.content).toMatchObject({ stop: '3500', openPct: '60' });
    await row.locator('input[name="closePct"]').fill('60');
    await row.getByRole('button', { name: 'Close %' }).click();
    await expect.poll(() => outcome.textContent(), { timeout: 15_000 }).toContain(`Closed 60% of signal ${signalId}`);
    now = (await signals(mixed, token)).find((s) => s.id === signalId)!;
    expect(now.status).toBe('closed');
    expect(now.statements.map((s) => s.type)).toEqual(['signal.open', 'signal.update', 'signal.close', 'signal.close']);
    // A closed signal leaves the publisher's open list.
    await expect.poll(() => row.count()).toBe(0);

    // The follower's feed has it, with its terms, as every signal of the provider.
    await follower.goto(`${api.url}/#/signals`);
    await expect.poll(() => follower.getByTestId('signal').count()).toBe(7);
    await expect(follower.getByTestId('signal').first().getAttribute('data-signal-id')).resolves.toBe(signalId);
    await expect(follower.locator('[data-testid="signal"] .side-hidden').count()).resolves.toBe(0);
    expect(problems).toEqual([]);
  });

  it('a follower’s feed gets a new signal and its changes live, without a reload', async () => {
    await expect
      .poll(() => follower.getByTestId('live-state').getAttribute('data-state'), { timeout: 10_000 })
      .toBe('listening');
    await follower.evaluate(() => {
      (globalThis as any).__sameDocument = true;
    });
    const signalId = await openFromForm({ instrument: 'SOL-USD', side: 'long', stop: '171.2', targets: '195, 210' });
    const first = follower.getByTestId('signal').first();
    await expect.poll(() => first.getAttribute('data-signal-id'), { timeout: 10_000 }).toBe(signalId);
    await expect(first.textContent()).resolves.toContain('SOL-USD');
    await expect(follower.evaluate(() => (globalThis as any).__sameDocument)).resolves.toBe(true);
    await screenshot(follower, 'web-signals-live');
    // A change moves its card along.
    await publisher.locator(`[data-signal-id="${signalId}"]`).getByRole('button', { name: 'Cancel signal' }).click();
    await expect.poll(() => first.getAttribute('data-status'), { timeout: 10_000 }).toBe('cancelled');
    expect(problems).toEqual([]);
  });

  it('a wallet that is not a publisher is told so, and its statement is refused', async () => {
    const before = (await signals(mixed)).length;
    await publisher.getByRole('button', { name: 'Use another wallet' }).click();
    await publisher.getByRole('button', { name: 'Connect Stranger EVM (EVM)' }).click();
    await expect(publisher.getByTestId('connected').textContent()).resolves.toContain('not a publisher wallet');
    await publisher.getByTestId('open-form').getByRole('button', { name: 'Sign and open' }).click();
    await expect
      .poll(() => publisher.getByTestId('outcome').textContent(), { timeout: 15_000 })
      .toContain('may not sign for this provider');
    expect((await signals(mixed)).length).toBe(before);
    expect(publisherProblems).toEqual([]);
  });
});
