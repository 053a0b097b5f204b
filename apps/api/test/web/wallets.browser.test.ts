/**
 * Wallet choice in the demo app, in Chromium: two EVM wallets announced through EIP-6963 and
 * two Solana wallets registered through the Wallet Standard (no window.ethereum/solana), each
 * signing for real in Node. The user picks one; only that one is asked, and what it signs is
 * a SIWE / SIWS message naming the page's own host. Screenshots go to apps/api/artifacts/.
 */
import { parseSiweMessage } from 'viem/siwe';
import { describe, expect, it } from 'vitest';
import { CHROMIUM, screenshot, skipWithoutChromium, useWebApp } from '../browser.js';
import { call } from '../harness.js';
import { type InjectedWallet, injectDiscoverableWallets } from '../injected-wallets.js';

const skip = skipWithoutChromium('wallets.browser.test.ts');

describe.skipIf(skip)(`choosing among several wallets in Chromium (${CHROMIUM})`, () => {
  let wallets: Record<string, { evm: InjectedWallet; solana: InjectedWallet }>;
  const web = useWebApp('pglite', {
    env: { SEED_PROVIDERS: '5' },
    viewport: { width: 1200, height: 700 },
    prepare: async ({ page }) => {
      wallets = await injectDiscoverableWallets(page, ['Alpha', 'Beta']);
    },
  });

  const header = () => web.page.locator('header.topbar');
  const session = () => web.page.getByTestId('session');
  const all = () => Object.values(wallets).flatMap((w) => [w.evm, w.solana]);

  it('EVM: lists both EIP-6963 wallets; the chosen one signs a SIWE message naming this page’s host', async () => {
    await web.page.goto(`${web.api.url}/`);
    await header().getByRole('button', { name: 'Sign in with EVM' }).click();
    const menu = web.page.getByRole('menu', { name: 'EVM wallets' });
    await expect(menu.getByRole('menuitem').allTextContents()).resolves.toEqual(['Alpha EVM', 'Beta EVM']);
    await screenshot(web.page, 'wallets-evm-choice');
    await menu.getByRole('menuitem', { name: 'Beta EVM' }).click();

    const beta = wallets.Beta?.evm as InjectedWallet;
    await expect.poll(() => session().locator('.session-wallet').getAttribute('data-wallet')).toBe(beta.address);
    expect(wallets.Alpha?.evm.signed).toEqual([]);
    expect(beta.signed).toHaveLength(1);
    const host = new URL(web.page.url()).host;
    const signed = beta.signed[0] as string;
    expect(signed.startsWith(`${host} wants you to sign in with your Ethereum account:\n${beta.address}\n`)).toBe(true);
    expect(parseSiweMessage(signed)).toMatchObject({ domain: host, uri: `http://${host}`, address: beta.address });
    const me = await call(web.api, 'GET', '/me', {
      token: await web.page.evaluate(
        () => JSON.parse((globalThis as any).localStorage.getItem('signal-demo.token')).token,
      ),
    });
    expect(me.body.wallet).toBe(beta.address);
    await screenshot(web.page, 'wallets-evm-signed-in');
    await session().getByRole('button', { name: 'Sign out' }).click();
  });

  it('Solana: lists both Wallet Standard wallets; the chosen one signs a SIWS message naming this page’s host', async () => {
    await header().getByRole('button', { name: 'Sign in with Solana' }).click();
    const menu = web.page.getByRole('menu', { name: 'Solana wallets' });
    await expect(menu.getByRole('menuitem').allTextContents()).resolves.toEqual(['Alpha Solana', 'Beta Solana']);
    await menu.getByRole('menuitem', { name: 'Alpha Solana' }).click();

    const alpha = wallets.Alpha?.solana as InjectedWallet;
    await expect.poll(() => session().locator('.session-wallet').getAttribute('data-wallet')).toBe(alpha.address);
    expect(wallets.Beta?.solana.signed).toEqual([]);
    const host = new URL(web.page.url()).host;
    expect(alpha.signed).toHaveLength(1);
    expect(
      (alpha.signed[0] as string).startsWith(
        `${host} wants you to sign in with your Solana account:\n${alpha.address}\n`,
      ),
    ).toBe(true);
    expect(alpha.signed[0]).toContain(`\nURI: http://${host}\n`);
    await screenshot(web.page, 'wallets-solana-signed-in');
    expect(all().reduce((n, w) => n + w.signed.length, 0)).toBe(2);
    expect(web.problems).toEqual([]);
  });
});
