/**
 * The demo app's Wallets page in Chromium against the real API: signed in with an EVM wallet
 * found by EIP-6963, the user links a Solana wallet found by Wallet Standard discovery (it signs
 * a SIWS link message), sees both, then unlinks it after a confirmation that says which sessions
 * end; the Solana wallet's session on another device is refused from then on (401
 * SESSION_REVOKED), this browser's stays. Screenshots go to apps/api/artifacts/.
 */
import { describe, expect, it } from 'vitest';
import { CHROMIUM, screenshot, skipWithoutChromium, useWebApp } from '../browser.js';
import { call, expectError, signIn } from '../harness.js';
import { type InjectedWallet, injectDiscoverableWallets } from '../injected-wallets.js';

const skip = skipWithoutChromium('web.wallets.browser.test.ts');

describe.skipIf(skip)(`the demo app's Wallets page in Chromium (${CHROMIUM})`, () => {
  let evm: InjectedWallet;
  let solana: InjectedWallet;
  const web = useWebApp('postgres', {
    env: { SEED_PROVIDERS: '5' },
    viewport: { width: 1200, height: 820 },
    prepare: async ({ page }) => {
      const wallets = await injectDiscoverableWallets(page, ['Alpha']);
      evm = wallets.Alpha!.evm;
      solana = wallets.Alpha!.solana;
    },
  });

  const main = () => web.page.locator('main');
  const rows = () => web.page.locator('[data-testid="wallets"] tbody tr');
  const token = () =>
    web.page.evaluate(() => JSON.parse((globalThis as any).localStorage.getItem('signal-demo.token')).token as string);

  it('links the Solana wallet found in the browser to the EVM user, then unlinks it with a confirmation', async () => {
    await web.page.goto(`${web.api.url}/#/wallets`);
    await expect(main().getByTestId('empty').textContent()).resolves.toContain('Sign in to see your wallets');
    // The browser's only EVM wallet signs in at once (no menu to choose from).
    await main().getByRole('button', { name: 'Sign in with EVM' }).click();
    await expect.poll(() => rows().count()).toBe(1);
    await expect(rows().first().getAttribute('data-wallet')).resolves.toBe(evm.address);
    // Discovery lists both of the browser's wallets to link.
    await expect(web.page.getByTestId('link-wallets').getByRole('button').allTextContents()).resolves.toEqual([
      'Link Alpha EVM',
      'Link Alpha Solana',
    ]);

    await web.page.getByRole('button', { name: 'Link Alpha Solana' }).click();
    await expect.poll(() => rows().count()).toBe(2);
    await expect(web.page.getByTestId('outcome').textContent()).resolves.toContain('Linked Alpha Solana');
    // The Solana wallet signed a Sign-In With Solana message naming this page's host.
    const host = new URL(web.page.url()).host;
    expect(solana.signed.at(-1)).toContain(
      `${host} wants you to sign in with your Solana account:\n${solana.address}\n`,
    );
    const listed = await call(web.api, 'GET', '/me/wallets', { token: await token() });
    expect(listed.body.items.map((w: { wallet: string; primary: boolean }) => [w.wallet, w.primary])).toEqual([
      [evm.address, true],
      [solana.address, false],
    ]);
    await expect(rows().nth(1).textContent()).resolves.toContain('Not yet');
    await screenshot(web.page, 'web-wallets-linked');

    // The Solana wallet signs in on another device: the same user.
    const phone = await signIn(web.api, {
      address: solana.address,
      chain: 'solana',
      sign: (m) => solana.signElsewhere(m),
    });
    expect(phone.isNewUser).toBe(false);

    await rows()
      .nth(1)
      .getByRole('button', { name: `Unlink ${solana.address}` })
      .click();
    const confirm = web.page.getByTestId('confirm');
    await expect(confirm.textContent()).resolves.toContain('every session it signed in ends, on every device');
    await expect(confirm.textContent()).resolves.toContain('This device stays signed in');
    await screenshot(web.page, 'web-wallets-confirm');
    await confirm.getByRole('button', { name: 'Unlink and end its sessions' }).click();
    await expect.poll(() => rows().count()).toBe(1);
    await expect(web.page.getByTestId('outcome').textContent()).resolves.toContain(
      'the sessions it signed in have ended',
    );
    expectError(await call(web.api, 'GET', '/me', { token: phone.token }), 401, 'SESSION_REVOKED');
    expect((await call(web.api, 'GET', '/me', { token: await token() })).status).toBe(200);
    // The last wallet cannot be unlinked: its button is disabled.
    await expect(rows().first().getByRole('button').isDisabled()).resolves.toBe(true);
    expect(web.problems).toEqual([]);
  }, 90_000);
});
