/**
 * Token lifecycle against the real API with an injected clock: re-auth after expiry (the API
 * says TOKEN_EXPIRED, or the stored token is past expiresAt), one shared sign-in for concurrent
 * calls, the typed error without a signer, and sign-out racing a sign-in.
 */
import { createClient, memoryTokenStore, SignalApiError, type Signer, type StoredToken } from '@signal/sdk';
import { evmSigner } from '@signal/sdk/evm';
import { solanaSigner } from '@signal/sdk/solana';
import { Keypair } from '@solana/web3.js';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { DAY_MS, recordingFetch, TOKEN_LIFETIME_MS, useApi } from './support/api.js';
import { countingSigner } from './support/wallets.js';

const api = useApi();

/** Runs `body` with the server clock moved by `ms`, then moves it back. */
async function withClockMovedBy<T>(ms: number, body: () => Promise<T>): Promise<T> {
  api.advanceClock(ms);
  try {
    return await body();
  } finally {
    api.advanceClock(-ms);
  }
}

function setup(signer: Signer | undefined = evmSigner(privateKeyToAccount(generatePrivateKey()))) {
  const counted = signer ? countingSigner(signer) : undefined;
  const requests = recordingFetch();
  const store = memoryTokenStore();
  const client = createClient({ baseUrl: api.url, signer: counted?.signer, tokenStore: store, fetch: requests.fetch });
  return { client, store, requests, signatures: () => counted?.signatures ?? 0 };
}

/** Signs in with the server clock a month and a day behind, so the token is expired for both sides now. */
async function signInLongAgo(client: ReturnType<typeof createClient>) {
  const session = await withClockMovedBy(-(TOKEN_LIFETIME_MS + DAY_MS), () => client.signIn());
  expect(Date.parse(session.expiresAt)).toBeLessThan(Date.now());
  return session;
}

describe('re-auth with a signer', () => {
  it('the API answers TOKEN_EXPIRED → one sign-in, then the call is retried and succeeds', async () => {
    const { client, requests, signatures } = setup(solanaSigner(Keypair.generate()));
    const first = await client.signIn();

    const me = await withClockMovedBy(TOKEN_LIFETIME_MS + DAY_MS, async () => {
      // The client still believes the token is good (its clock is not moved), so it sends it.
      expect((await client.getToken())?.token).toBe(first.token);
      return client.me.get();
    });
    expect(me.id).toBe(first.user.id);
    expect(requests.procedures).toEqual(['auth.nonce', 'auth.verify', 'me.get', 'auth.nonce', 'auth.verify', 'me.get']);
    expect(signatures()).toBe(2);
    const renewed = await client.getToken();
    expect(renewed?.token).not.toBe(first.token);
    expect(Date.parse(renewed?.expiresAt ?? '')).toBeGreaterThan(Date.parse(first.expiresAt));
  });

  it('the stored token is past expiresAt → signs in before the call, without sending the old token', async () => {
    const { client, requests, signatures } = setup();
    const old = await signInLongAgo(client);
    requests.procedures.length = 0;

    const followed = await client.providers.follow(1);
    expect(followed).toMatchObject({ providerId: 1, following: true });
    expect(requests.procedures).toEqual(['auth.nonce', 'auth.verify', 'providers.follow']);
    expect(signatures()).toBe(2);
    expect((await client.getToken())?.token).not.toBe(old.token);
  });

  it('ten concurrent calls after the API expired the token share one sign-in (one nonce, one signature)', async () => {
    const { client, requests, signatures } = setup();
    await client.signIn();
    requests.procedures.length = 0;

    const results = await withClockMovedBy(TOKEN_LIFETIME_MS + DAY_MS, () =>
      Promise.all([
        ...Array.from({ length: 8 }, () => client.me.get()),
        client.me.following(),
        client.providers.follow(2),
      ]),
    );
    expect(results).toHaveLength(10);
    expect(requests.count('auth.nonce')).toBe(1);
    expect(requests.count('auth.verify')).toBe(1);
    expect(signatures()).toBe(2);
    // Each call was sent twice: once with the expired token, once with the new one.
    expect(requests.count('me.get')).toBe(16);
  });

  it('ten concurrent calls with a token past expiresAt share one sign-in before any is sent', async () => {
    const { client, requests, signatures } = setup();
    await signInLongAgo(client);
    requests.procedures.length = 0;

    await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? client.me.get() : client.me.following())));
    expect(requests.count('auth.nonce')).toBe(1);
    expect(requests.count('auth.verify')).toBe(1);
    expect(requests.procedures).toHaveLength(12);
    expect(signatures()).toBe(2);
  });

  it('concurrent explicit signIn() calls share one sign-in too', async () => {
    const { client, requests, signatures } = setup();
    const sessions = await Promise.all([client.signIn(), client.signIn(), client.signIn()]);
    expect(new Set(sessions.map((session) => session.token)).size).toBe(1);
    expect(requests.count('auth.nonce')).toBe(1);
    expect(signatures()).toBe(1);
  });

  it('a token the API does not accept at all (UNAUTHORIZED) is replaced the same way', async () => {
    const { client, store, requests, signatures } = setup();
    const wallet = (await client.signIn()).user.wallet;
    const far = new Date(Date.now() + DAY_MS).toISOString();
    await store.set({ token: 'eyJhbGciOiJub25lIn0.e30.bm90LWEtdG9rZW4', expiresAt: far, wallet });
    requests.procedures.length = 0;

    expect((await client.me.get()).wallet).toBe(wallet);
    expect(requests.procedures).toEqual(['me.get', 'auth.nonce', 'auth.verify', 'me.get']);
    expect(signatures()).toBe(2);
  });

  it('sign-out while a sign-in is in flight: its late token is not stored, a new sign-in is', async () => {
    const inner = evmSigner(privateKeyToAccount(generatePrivateKey()));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow: Signer = {
      ...inner,
      chain: 'evm',
      signMessage: async (message) => {
        await gate;
        return inner.signMessage(message);
      },
    };
    const client = createClient({ baseUrl: api.url, signer: slow });
    const pending = client.signIn();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await client.signOut();
    // A sign-in after the sign-out is a new one, and its token is kept.
    const after = client.signIn();
    release();
    expect((await pending).token).toBeTruthy();
    const session = await after;
    expect((await client.getToken())?.token).toBe(session.token);
    expect(session.token).not.toBe((await pending).token);
  });
});

describe('an expired token without a signer', () => {
  it('the API expired it → TOKEN_EXPIRED, and the dead token is dropped from the store', async () => {
    // A token left in a shared store by an earlier session (a reload with no wallet connected).
    const store = memoryTokenStore();
    await createClient({ baseUrl: api.url, signer: solanaSigner(Keypair.generate()), tokenStore: store }).signIn();
    const client = createClient({ baseUrl: api.url, tokenStore: store });

    const error = await withClockMovedBy(TOKEN_LIFETIME_MS + DAY_MS, () =>
      client.me.get().then(
        () => undefined,
        (reason: unknown) => reason,
      ),
    );
    expect(error).toBeInstanceOf(SignalApiError);
    expect(error).toMatchObject({ code: 'TOKEN_EXPIRED', status: 401 });
    expect(await store.get()).toBeNull();
  });

  it('past expiresAt → TOKEN_EXPIRED from the API, no sign-in attempted', async () => {
    const { client: signing, store } = setup();
    await signInLongAgo(signing);
    const requests = recordingFetch();
    const client = createClient({ baseUrl: api.url, tokenStore: store, fetch: requests.fetch });
    await expect(client.providers.follow(1)).rejects.toMatchObject({ code: 'TOKEN_EXPIRED', status: 401 });
    expect(requests.procedures).toEqual(['providers.follow']);
    expect(await client.getToken()).toBeNull();
  });

  it('a token that is still good is used as it is', async () => {
    const { client: signing, store } = setup();
    const session = await signing.signIn();
    const stored = (await store.get()) as StoredToken;
    const client = createClient({ baseUrl: api.url, tokenStore: { get: async () => stored, set() {}, clear() {} } });
    expect(await client.me.get()).toEqual(session.user);
  });
});
