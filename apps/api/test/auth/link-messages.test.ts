/**
 * Link messages name the account (CONTRACT.md, Version 4, "Changes to earlier versions"; issue
 * 42, item 6). The attack: a signed-in attacker asks for a `purpose=link` nonce for the victim's
 * wallet and relays it on a look-alike page as a sign-in. Before, the link text was the sign-in
 * text, so the victim's "sign-in" signature linked the victim's wallet to the attacker's account
 * (and the victim's later sign-ins landed there). Now the link text says "link this wallet to
 * account <id>", a signature over the sign-in text of a link nonce links nothing, and neither
 * kind of signed message is accepted by the other route.
 */
import { describe, expect, it } from 'vitest';
import {
  call,
  evmWallet,
  expectError,
  signIn,
  solanaWallet,
  type TestWallet,
  useApi,
  walletSignsInAsNewUser,
} from '../harness.js';

/** The default SIWE/SIWS sign-in statement (SIGN_IN_STATEMENT unset). */
const SIGN_IN_STATEMENT = 'Sign in to Signal. This request will not trigger a blockchain transaction or cost any fees.';

describe.each(['postgres', 'pglite'] as const)('link messages on %s', (backend) => {
  const api = useApi(backend);

  const linkNonce = async (token: string, wallet: TestWallet, format: string) => {
    const issued = await call(
      api,
      'GET',
      `/auth/nonce?wallet=${encodeURIComponent(wallet.address)}&purpose=link&format=${format}`,
      { token },
    );
    expect(issued.status).toBe(200);
    return issued.body as { nonce: string; message: string };
  };
  const linkWith = (token: string, wallet: TestWallet, nonce: string, signature: string) =>
    call(api, 'POST', '/me/wallets', { token, body: { wallet: wallet.address, nonce, signature } });

  it('names the account: plain text, and the SIWE and SIWS statement', async () => {
    const user = await signIn(api, evmWallet());
    const plain = await linkNonce(user.token, evmWallet(), 'plain');
    expect(plain.message).toBe(`Sign this message to link this wallet to account ${user.user.id}: ${plain.nonce}`);
    for (const [wallet, format] of [
      [evmWallet(), 'siwe'],
      [solanaWallet(), 'siws'],
    ] as const) {
      const { message } = await linkNonce(user.token, wallet, format);
      const lines = message.split('\n');
      expect(lines[3]).toBe(`Link this wallet to account ${user.user.id}.`);
      expect(message).not.toContain(SIGN_IN_STATEMENT);
      // The honest link: the wallet signs what it was shown.
      const nonce = /\nNonce: ([A-Za-z0-9]+)\n/.exec(message)?.[1] as string;
      expect((await linkWith(user.token, wallet, nonce, await wallet.sign(message))).status).toBe(201);
    }
  });

  it('a link nonce relayed as a sign-in links nothing: the victim signed sign-in words', async () => {
    const attacker = await signIn(api, evmWallet());
    const victim = evmWallet();
    // The look-alike page shows the victim the sign-in text of the attacker's link nonce.
    const plain = await linkNonce(attacker.token, victim, 'plain');
    const relayedPlain = `Sign this message to authenticate: ${plain.nonce}`;
    const refusedPlain = await linkWith(attacker.token, victim, plain.nonce, await victim.sign(relayedPlain));
    expectError(refusedPlain, 401, 'INVALID_SIGNATURE');
    // The same with SIWE: the page swaps the link statement for the sign-in one.
    const siwe = await linkNonce(attacker.token, victim, 'siwe');
    const relayedSiwe = siwe.message.replace(/^Link this wallet to account \d+\.$/m, SIGN_IN_STATEMENT);
    expect(relayedSiwe).not.toBe(siwe.message);
    const refusedSiwe = await linkWith(attacker.token, victim, siwe.nonce, await victim.sign(relayedSiwe));
    expectError(refusedSiwe, 401, 'INVALID_SIGNATURE');

    // Nothing was linked: the attacker has one wallet, and the victim's signs in as a new user.
    const wallets = await call(api, 'GET', '/me/wallets', { token: attacker.token });
    expect(wallets.body.items.map((item: { wallet: string }) => item.wallet)).toEqual([attacker.user.wallet]);
    await walletSignsInAsNewUser(api, victim, attacker.user.id);
  });

  it('neither signed message passes for the other: a sign-in links nothing, a link signs no one in', async () => {
    const attacker = await signIn(api, evmWallet());
    const victim = evmWallet();
    const signInNonce = await call(api, 'GET', `/auth/nonce?wallet=${victim.address}`);
    const signedIn = await victim.sign(signInNonce.body.message);
    expectError(await linkWith(attacker.token, victim, signInNonce.body.nonce, signedIn), 401, 'INVALID_NONCE');

    const link = await linkNonce(attacker.token, victim, 'plain');
    const signedLink = await victim.sign(link.message);
    const verify = await call(api, 'POST', '/auth/verify', {
      body: { wallet: victim.address, nonce: link.nonce, signature: signedLink },
    });
    expectError(verify, 401, 'INVALID_NONCE');
  });
});
