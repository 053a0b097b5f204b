/**
 * Sign-in and every method, for every kind of signer, against the real API: the SDK is
 * imported by its package name, so this runs the built output as a user would.
 */
import { createClient, type Provider } from '@signal/sdk';
import { describe, expect, it } from 'vitest';
import { recordingFetch, SEEDED_PROVIDERS, useApi } from './support/api.js';
import { signerKinds } from './support/wallets.js';

const api = useApi();

describe.each(signerKinds)('$kind', ({ make }) => {
  it('signs in (nonce → sign → verify) and stores the token', async () => {
    const wallet = make();
    const requests = recordingFetch();
    const client = createClient({ baseUrl: api.url, signer: wallet.signer, fetch: requests.fetch });
    expect(await client.getToken()).toBeNull();

    const session = await client.signIn();
    expect(session).toMatchObject({ tokenType: 'Bearer', isNewUser: true, user: { chain: wallet.chain } });
    expect(session.user.wallet.toLowerCase()).toBe(wallet.address.toLowerCase());
    expect(requests.procedures).toEqual(['auth.nonce', 'auth.verify']);
    expect(await client.getToken()).toEqual({
      token: session.token,
      expiresAt: session.expiresAt,
      wallet: session.user.wallet,
    });

    // A second sign-in of the same wallet is the same user.
    const again = await client.signIn();
    expect(again.isNewUser).toBe(false);
    expect(again.user.id).toBe(session.user.id);
  });

  it('every method: providers list/get/stats/follow/unfollow, me, my following, sign-out', async () => {
    const wallet = make();
    const client = createClient({ baseUrl: `${api.url}/`, signer: wallet.signer });
    const session = await client.signIn();

    const me = await client.me.get();
    expect(me).toEqual(session.user);

    const firstPage = await client.providers.list();
    expect(firstPage).toMatchObject({ page: 1, limit: 20, total: SEEDED_PROVIDERS, totalPages: 2 });
    const counts = firstPage.items.map((provider) => provider.followerCount);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));

    const byName = await client.providers.list({ sortBy: 'name', order: 'asc', limit: 5, page: 2 });
    expect(byName).toMatchObject({ page: 2, limit: 5 });
    expect(byName.items).toHaveLength(5);
    const names = byName.items.map((provider) => provider.name);
    expect(names).toEqual([...names].sort());

    const target = firstPage.items[3] as Provider;
    expect(await client.providers.get(target.id)).toEqual(target);
    const stats = await client.providers.stats(target.id);
    expect(stats).toMatchObject({ providerId: target.id, followerCount: target.followerCount });
    expect(stats.winRate).toBeGreaterThanOrEqual(0);

    const followed = await client.providers.follow(target.id);
    expect(followed).toEqual({ providerId: target.id, following: true, followerCount: target.followerCount + 1 });
    expect(await client.providers.follow(target.id)).toEqual(followed);

    const following = await client.me.following();
    expect(following).toMatchObject({ page: 1, limit: 20, total: 1, totalPages: 1 });
    expect(following.items[0]).toMatchObject({ ...target, followerCount: target.followerCount + 1 });
    expect(Date.parse(following.items[0]?.followedAt ?? '')).not.toBeNaN();
    expect(await client.me.following({ page: 2, limit: 1 })).toMatchObject({ items: [], page: 2, total: 1 });
    expect((await client.me.get()).followingCount).toBe(1);

    const unfollowed = await client.providers.unfollow(target.id);
    expect(unfollowed).toEqual({ providerId: target.id, following: false, followerCount: target.followerCount });
    expect(await client.providers.unfollow(target.id)).toEqual(unfollowed);
    expect((await client.me.following()).items).toEqual([]);

    await client.signOut();
    expect(await client.getToken()).toBeNull();
  });

  it('an authenticated call with no token signs in on demand', async () => {
    const wallet = make();
    const requests = recordingFetch();
    const client = createClient({ baseUrl: api.url, signer: wallet.signer, fetch: requests.fetch });
    const me = await client.me.get();
    expect(me.wallet.toLowerCase()).toBe(wallet.address.toLowerCase());
    expect(requests.procedures).toEqual(['auth.nonce', 'auth.verify', 'me.get']);
  });
});

describe('without a signer', () => {
  it('public calls work; the two sign-in steps can be run by hand and store the token', async () => {
    const [kind] = signerKinds;
    const wallet = kind!.make();
    const client = createClient({ baseUrl: api.url });
    expect((await client.providers.list({ limit: 1 })).items).toHaveLength(1);

    const nonce = await client.auth.nonce(wallet.address);
    expect(nonce.message).toBe(`Sign this message to authenticate: ${nonce.nonce}`);
    const session = await client.auth.verify({
      wallet: wallet.address,
      nonce: nonce.nonce,
      signature: await wallet.signer.signMessage(nonce.message),
    });
    expect((await client.getToken())?.token).toBe(session.token);
    expect(await client.me.get()).toEqual(session.user);
  });

  it('signIn() explains that it needs a signer', async () => {
    await expect(createClient({ baseUrl: api.url }).signIn()).rejects.toThrow(/needs a signer/);
  });
});

describe('iterating over every page', () => {
  it('providers.all walks the whole catalogue by cursor, in the order of page walking, one request a page', async () => {
    const { fetch: recorded, procedures } = recordingFetch();
    const client = createClient({ baseUrl: api.url, fetch: recorded });
    for (const query of [{ limit: 7 }, { limit: 4, sortBy: 'name', order: 'asc' }] as const) {
      const byPage: Provider[] = [];
      for (let page = 1; page <= Math.ceil(SEEDED_PROVIDERS / query.limit); page += 1) {
        byPage.push(...(await client.providers.list({ ...query, page })).items);
      }
      procedures.length = 0;
      const walked: Provider[] = [];
      for await (const provider of client.providers.all(query)) walked.push(provider);
      expect(walked).toEqual(byPage);
      expect(walked).toHaveLength(SEEDED_PROVIDERS);
      expect(procedures).toHaveLength(Math.ceil(SEEDED_PROVIDERS / query.limit));
    }
    // Stopping early fetches no further page.
    procedures.length = 0;
    for await (const _provider of client.providers.all({ limit: 3 })) break;
    expect(procedures).toHaveLength(1);
  });

  it('me.allFollowing walks the followed providers, newest follow first', async () => {
    const [kind] = signerKinds;
    const client = createClient({ baseUrl: api.url, signer: kind!.make().signer });
    const ids = [3, 1, 4, 5, 9];
    for (const id of ids) await client.providers.follow(id);
    const walked: number[] = [];
    for await (const provider of client.me.allFollowing({ limit: 2 })) walked.push(provider.id);
    const byPage = (await client.me.following({ limit: 100 })).items.map((provider) => provider.id);
    expect(walked).toEqual(byPage);
    expect([...walked].sort()).toEqual([...ids].sort());
    for (const id of ids) await client.providers.unfollow(id);
  });
});

describe('viem WalletClient over EIP-1193', () => {
  it('signs through the provider: eth_requestAccounts, then personal_sign', async () => {
    const { evmSigner } = await import('@signal/sdk/evm');
    const { createWalletClient, custom } = await import('viem');
    const { generatePrivateKey, privateKeyToAccount } = await import('viem/accounts');
    const { eip1193Provider } = await import('./support/wallets.js');
    const account = privateKeyToAccount(generatePrivateKey());
    const provider = eip1193Provider(account);
    const client = createClient({
      baseUrl: api.url,
      signer: evmSigner(createWalletClient({ transport: custom(provider) })),
    });
    const session = await client.signIn();
    expect(session.user.wallet).toBe(account.address);
    expect(provider.methods).toEqual(['eth_requestAccounts', 'personal_sign']);
  });
});
