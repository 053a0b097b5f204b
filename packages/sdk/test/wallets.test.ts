/**
 * Several wallets per user through the SDK, on both backends: an EVM user links a Solana wallet
 * (and the reverse), lists them, signs in with either as the same user, unlinks; the typed
 * errors of a wallet of another user and of the last wallet.
 */
import { createClient, SignalApiError, type Signer } from '@signal/sdk';
import { evmSigner } from '@signal/sdk/evm';
import { solanaSigner } from '@signal/sdk/solana';
import { Keypair } from '@solana/web3.js';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { useApi } from './support/api.js';

const evm = (): Signer => evmSigner(privateKeyToAccount(generatePrivateKey()));
const solana = (): Signer => solanaSigner(Keypair.generate());

describe.each(['postgres', 'pglite'] as const)('linked wallets through the SDK on %s', (backend) => {
  const api = useApi(backend);

  const client = (signer: Signer) => createClient({ baseUrl: api.url, signer });

  it('signIn never signs a relayed link message, and linkWallet signs one naming this account only', async () => {
    const attacker = client(evm());
    await attacker.signIn();
    const attackerToken = (await attacker.getToken())?.token as string;
    // The look-alike page between the victim and the API turns the victim's sign-in nonce
    // request into a link nonce request of the attacker's account (a real one, from the API).
    const relay: typeof fetch = async (input, init) => {
      const url = new URL(String(input instanceof Request ? input.url : input));
      if (url.pathname.endsWith('/auth.nonce')) {
        const batched = url.searchParams.get('batch') === '1';
        const parsed = JSON.parse(url.searchParams.get('input') ?? '{}');
        if (batched) parsed['0'] = { ...parsed['0'], purpose: 'link' };
        url.searchParams.set('input', JSON.stringify(batched ? parsed : { ...parsed, purpose: 'link' }));
        const headers = new Headers(init?.headers);
        headers.set('authorization', `Bearer ${attackerToken}`);
        return fetch(url, { ...init, headers });
      }
      return fetch(input, init);
    };
    for (const messageFormat of ['plain', 'siwe'] as const) {
      const victim = evm();
      let signed = 0;
      const counted: Signer = {
        ...victim,
        signMessage: (message) => {
          signed++;
          return victim.signMessage(message);
        },
      };
      const relayed = createClient({ baseUrl: api.url, signer: counted, fetch: relay, messageFormat });
      await expect(relayed.signIn()).rejects.toMatchObject({
        code: 'NETWORK_ERROR',
        message: expect.stringContaining('asked to sign an unexpected message'),
      });
      expect(signed).toBe(0);
    }
    // The honest link, plain: the SDK checks the text names the signed-in account, and signs it.
    const main = createClient({ baseUrl: api.url, signer: evm(), messageFormat: 'plain' });
    await main.signIn();
    const second = evm();
    expect(await main.linkWallet(second)).toMatchObject({ wallet: await second.getAddress() });
  });

  it('links a wallet of the other family; either signs the same user in; unlinking ends that wallet’s sessions', async () => {
    for (const [first, second] of [
      [evm(), solana()],
      [solana(), evm()],
    ] as const) {
      const main = client(first);
      const user = (await main.signIn()).user;
      const address = await second.getAddress();
      const linked = await main.linkWallet(second);
      expect(linked).toMatchObject({ wallet: address, chain: second.chain, primary: false, lastLoginAt: null });
      // Again: the same wallet back, nothing new.
      expect(await main.linkWallet(second)).toEqual(linked);
      expect((await main.wallets()).map((w) => [w.wallet, w.primary])).toEqual([
        [user.wallet, true],
        [address, false],
      ]);

      const other = client(second);
      const session = await other.signIn();
      expect(session).toMatchObject({ isNewUser: false, user: { id: user.id, wallet: user.wallet } });
      expect((await other.me.get()).wallets.map((w) => w.wallet)).toEqual([user.wallet, address]);

      expect(await main.unlinkWallet(address)).toEqual({ wallet: address, unlinked: true });
      expect(await main.wallets()).toHaveLength(1);
      // The other device's session ended with its wallet; without re-signing it is refused.
      const stale = createClient({
        baseUrl: api.url,
        tokenStore: {
          get: async () => ({ token: session.token, expiresAt: session.expiresAt, wallet: address }),
          set: async () => {},
          clear: async () => {},
        },
      });
      await expect(stale.me.get()).rejects.toMatchObject({ code: 'SESSION_REVOKED' });
      // With its signer it signs in again: the wallet belongs to nobody now, so a new user.
      expect((await other.me.get()).id).not.toBe(user.id);
    }
  });

  it('a wallet of another user → WALLET_ALREADY_LINKED; the last wallet → LAST_WALLET', async () => {
    const shared = evm();
    const a = client(evm());
    const b = client(evm());
    await a.linkWallet(shared);
    const taken = await b.linkWallet(shared).catch((error: unknown) => error);
    expect(taken).toBeInstanceOf(SignalApiError);
    expect(taken).toMatchObject({ code: 'WALLET_ALREADY_LINKED', status: 409 });
    const only = (await b.me.get()).wallet;
    await expect(b.unlinkWallet(only)).rejects.toMatchObject({ code: 'LAST_WALLET', status: 409 });
  });
});
