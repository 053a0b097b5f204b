/**
 * Token stores: the localStorage store (a reload stays signed in, foreign values are ignored),
 * and any { get, set, clear } object, synchronous or not.
 */
import {
  createClient,
  type KeyValueStorage,
  localStorageTokenStore,
  memoryTokenStore,
  type StoredToken,
  type TokenStore,
} from '@signal/sdk';
import { evmSigner } from '@signal/sdk/evm';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { recordingFetch, useApi } from './support/api.js';

const api = useApi();

/** The Web Storage interface over a Map, standing in for a browser's localStorage in Node. */
class MapStorage implements KeyValueStorage {
  readonly items = new Map<string, string>();
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.items.set(key, String(value));
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
}

const accountSigner = () => evmSigner(privateKeyToAccount(generatePrivateKey()));

describe('localStorageTokenStore', () => {
  it('keeps the token across page loads: a new client is signed in without signing', async () => {
    const storage = new MapStorage();
    const firstLoad = createClient({
      baseUrl: api.url,
      signer: accountSigner(),
      tokenStore: localStorageTokenStore({ storage }),
    });
    const session = await firstLoad.signIn();
    expect(JSON.parse(storage.getItem('signal.token') ?? 'null')).toEqual({
      token: session.token,
      expiresAt: session.expiresAt,
      wallet: session.user.wallet,
    });

    const requests = recordingFetch();
    const reload = createClient({
      baseUrl: api.url,
      tokenStore: localStorageTokenStore({ storage }),
      fetch: requests.fetch,
    });
    expect(await reload.me.get()).toEqual(session.user);
    expect(requests.procedures).toEqual(['me.get']);

    await reload.signOut();
    expect(storage.items.size).toBe(0);
  });

  it('uses its own key, and reads a foreign or corrupt value as no token', async () => {
    const storage = new MapStorage();
    const store = localStorageTokenStore({ storage, key: 'my-app.auth' });
    expect(await store.get()).toBeNull();
    storage.setItem('my-app.auth', '{not json');
    expect(await store.get()).toBeNull();
    storage.setItem('my-app.auth', JSON.stringify({ token: 42 }));
    expect(await store.get()).toBeNull();
    const token: StoredToken = { token: 't', expiresAt: '2030-01-01T00:00:00.000Z', wallet: 'w' };
    await store.set(token);
    expect(await store.get()).toEqual(token);
    expect([...storage.items.keys()]).toEqual(['my-app.auth']);
  });

  // Node 20 has no localStorage, like a server render.
  it.skipIf('localStorage' in globalThis)(
    'where there is no localStorage it reads nothing and refuses to store',
    async () => {
      const store = localStorageTokenStore();
      expect(await store.get()).toBeNull();
      await store.clear();
      expect(() => store.set({ token: 't', expiresAt: '2030-01-01T00:00:00.000Z', wallet: 'w' })).toThrow(
        /localStorage is not available/,
      );
    },
  );
});

describe('custom and default stores', () => {
  it('any asynchronous { get, set, clear } object', async () => {
    const saved = new Map<string, StoredToken>();
    const log: string[] = [];
    const asyncStore: TokenStore = {
      async get() {
        log.push('get');
        return saved.get('token');
      },
      async set(token) {
        log.push('set');
        saved.set('token', token);
      },
      async clear() {
        log.push('clear');
        saved.delete('token');
      },
    };
    const client = createClient({ baseUrl: api.url, signer: accountSigner(), tokenStore: asyncStore });
    const user = await client.me.get();
    expect(saved.get('token')?.wallet).toBe(user.wallet);
    expect(log).toEqual(['get', 'set']);
    await client.signOut();
    expect(saved.size).toBe(0);
  });

  it('the memory store is the default and is private to its client', async () => {
    const signer = accountSigner();
    const a = createClient({ baseUrl: api.url, signer });
    const b = createClient({ baseUrl: api.url });
    await a.signIn();
    expect(await a.getToken()).not.toBeNull();
    expect(await b.getToken()).toBeNull();

    const store = memoryTokenStore();
    const token: StoredToken = { token: 't', expiresAt: '2030-01-01T00:00:00.000Z', wallet: 'w' };
    await store.set(token);
    token.token = 'changed after set';
    expect((await store.get())?.token).toBe('t');
  });

  it('getToken() hides an expired token', async () => {
    const store = memoryTokenStore();
    await store.set({ token: 't', expiresAt: '2020-01-01T00:00:00.000Z', wallet: 'w' });
    expect(await createClient({ baseUrl: api.url, tokenStore: store }).getToken()).toBeNull();
    await store.set({ token: 't', expiresAt: 'not a date', wallet: 'w' });
    expect(await createClient({ baseUrl: api.url, tokenStore: store }).getToken()).toBeNull();
  });
});
