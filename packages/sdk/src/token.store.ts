/** What a client keeps after signing in. */
export interface StoredToken {
  /** The JWT sent as `Authorization: Bearer <token>`. */
  token: string;
  /** ISO 8601; past it the client signs in again before a call (when it has a signer). */
  expiresAt: string;
  /** The canonical wallet the token was issued to. */
  wallet: string;
}

/**
 * Where a client keeps its token. Any object with these three methods will do, synchronous or
 * not (a cookie, IndexedDB, React Native's AsyncStorage, a server-side cache).
 */
export interface TokenStore {
  get(): StoredToken | null | undefined | Promise<StoredToken | null | undefined>;
  set(token: StoredToken): void | Promise<void>;
  clear(): void | Promise<void>;
}

/** The default: the token lives as long as the client object. */
export function memoryTokenStore(): TokenStore {
  let current: StoredToken | null = null;
  return {
    get: () => current,
    set: (token) => {
      current = { ...token };
    },
    clear: () => {
      current = null;
    },
  };
}

/** The part of the Web Storage API (`localStorage`, `sessionStorage`) the store uses. */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export interface LocalStorageTokenStoreOptions {
  /** Storage key; default `signal.token`. */
  key?: string;
  /** Default `globalThis.localStorage`, looked up at each use so the store can be created during SSR. */
  storage?: KeyValueStorage;
}

/**
 * Keeps the token in `localStorage`, so a reload stays signed in and tabs share one sign-in.
 * Where there is no localStorage (server rendering, some private modes), reads find nothing
 * and `set` throws.
 */
export function localStorageTokenStore(options: LocalStorageTokenStoreOptions = {}): TokenStore {
  const key = options.key ?? 'signal.token';
  const storage = (): KeyValueStorage | undefined => {
    if (options.storage) return options.storage;
    try {
      return globalThis.localStorage ?? undefined;
    } catch {
      // Some browsers throw on access when storage is disabled.
      return undefined;
    }
  };
  return {
    get() {
      const raw = storage()?.getItem(key);
      return raw ? parseStoredToken(raw) : null;
    },
    set(token) {
      const target = storage();
      if (!target) throw new Error('localStorage is not available here; pass a tokenStore that is');
      target.setItem(key, JSON.stringify({ token: token.token, expiresAt: token.expiresAt, wallet: token.wallet }));
    },
    clear() {
      storage()?.removeItem(key);
    },
  };
}

/** A value another version or another script left under the key is treated as no token. */
function parseStoredToken(raw: string): StoredToken | null {
  try {
    const value = JSON.parse(raw) as Partial<StoredToken> | null;
    if (
      value &&
      typeof value.token === 'string' &&
      typeof value.expiresAt === 'string' &&
      typeof value.wallet === 'string'
    ) {
      return { token: value.token, expiresAt: value.expiresAt, wallet: value.wallet };
    }
  } catch {
    // Not JSON: fall through.
  }
  return null;
}

/** True when the token is past its expiry (an unreadable expiry counts as past). */
export function isExpired(token: StoredToken, now = Date.now()): boolean {
  const expiresAt = Date.parse(token.expiresAt);
  return !(expiresAt > now);
}
