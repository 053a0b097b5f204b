import { buildAuthMessage, parseSignInMessage } from '@signal/core';
import { SignalApiError, toSignalApiError } from './api-error.js';
import type { Signer } from './signer.types.js';
import { isExpired, memoryTokenStore, type StoredToken, type TokenStore } from './token.store.js';
import { createTransport } from './transport.js';
import { walk } from './walk.js';
import type {
  ActiveSession,
  ActiveSessionPage,
  FollowedProvider,
  FollowedProviderPage,
  FollowResult,
  LinkedWallet,
  Nonce,
  PageQuery,
  Performance,
  PerformanceWindow,
  Provider,
  ProviderId,
  ProviderListQuery,
  ProviderPage,
  ProviderStats,
  RevokedSession,
  Session,
  SignOutScope,
  UnfollowResult,
  UnlinkedWallet,
  User,
} from './wire.types.js';

export interface ClientOptions {
  /** Where the API is served, e.g. `https://api.example.com` (its tRPC endpoint is `<baseUrl>/trpc`). */
  baseUrl: string;
  /**
   * Signs in when needed: on `signIn()`, and before an authenticated call when there is no
   * token, it has expired, or the API rejects it. Without one, the client calls public
   * endpoints and uses whatever token the store already holds.
   */
  signer?: Signer;
  /** Where the token is kept; default {@link memoryTokenStore}. */
  tokenStore?: TokenStore;
  /** A fetch implementation; default the global `fetch`. */
  fetch?: typeof globalThis.fetch;
  /**
   * The message the wallet signs. Default: the sign-in message of the signer's family, `siwe`
   * (EIP-4361) for EVM and `siws` (Sign-In With Solana) for Solana, which names the site so
   * the wallet shows a sign-in request for it and warns on a look-alike page. `plain` signs the
   * original "Sign this message to authenticate: <nonce>".
   */
  messageFormat?: MessageFormat;
  /**
   * The site (host[:port]) a SIWE/SIWS message must name, or the SDK refuses to sign it.
   * Default: the page's host in a browser (`location.host`), else the host of `baseUrl`. Set it
   * when the API names another site (its `SIGN_IN_DOMAIN`), e.g. the app on `app.example.com`
   * and the API on `api.example.com`.
   */
  signInDomain?: string;
  /** The EIP-155 chain id a SIWE message names; default the API's `EVM_CHAIN_ID`. */
  chainId?: number;
}

export type MessageFormat = 'plain' | 'siwe' | 'siws';

/** What `signOut()` did. */
export interface SignOutResult {
  /** How many sessions the API ended (0 when it was not asked or did not answer). */
  revoked: number;
  /**
   * True when the API answered and ended the sessions of the scope. False when no request was
   * made (no token was stored) or the request failed (see `error`): the token is forgotten
   * here all the same, but if the API could not be reached a copy of it is still accepted
   * until it expires.
   */
  serverConfirmed: boolean;
  /**
   * Why the API did not confirm: `NETWORK_ERROR` when it could not be reached;
   * `SESSION_REVOKED`, `TOKEN_EXPIRED` or `UNAUTHORIZED` when it already refused the token (so
   * this session was over, but with scope `all` the others were not ended); any other code it
   * answered. Absent when confirmed or when no token was stored.
   */
  error?: SignalApiError;
}

export interface SignalClient {
  /**
   * Runs the sign-in flow with the client's signer (nonce → signature → verify) and stores the
   * token. Concurrent callers, including calls re-authenticating after expiry, share one
   * sign-in: one nonce, one signature prompt.
   */
  signIn(): Promise<Session>;
  /**
   * Signs out (`POST /auth/logout`) and says how it went; a later authenticated call signs in
   * again if the client has a signer.
   *
   * - `current` (default) and `all`: forgets the token first (a sign-in still in flight will
   *   not store its token either, and a call refused meanwhile does not sign in again on its
   *   behalf), then asks the API to end this session, or every session of the user, so that any
   *   copy of the token is refused on every server. It does not reject on an API failure: the token is forgotten anyway and
   *   the result says the API did not confirm, and why. Without a stored token it makes no
   *   request.
   * - `others` ("sign out everywhere else"): ends every other session of the user and keeps
   *   this one signed in. An ordinary authenticated call: it signs in first when needed (with
   *   a signer) and throws {@link SignalApiError} on failure, since nothing was done here.
   */
  signOut(options?: { scope?: SignOutScope }): Promise<SignOutResult>;
  /** The stored token, or null when there is none or it has expired. */
  getToken(): Promise<StoredToken | null>;

  /**
   * Links another wallet to the signed-in user (`GET /auth/nonce?purpose=link`, then
   * `POST /me/wallets`): `signer` signs a link nonce (its family's sign-in message, SIWE or SIWS,
   * or `plain` when the client's `messageFormat` is). That wallet then signs the same user in.
   * Linking a wallet already linked to this user answers it again; one of another user throws
   * `WALLET_ALREADY_LINKED`.
   */
  linkWallet(signer: Signer): Promise<LinkedWallet>;
  /** `GET /me/wallets` (signed in): every wallet of the user, oldest first; `primary` marks `User.wallet`. */
  wallets(): Promise<LinkedWallet[]>;
  /**
   * `DELETE /me/wallets/{wallet}` (signed in): the wallet stops signing this user in and the
   * sessions it signed in end (this client's too, if that wallet signed it in). The last wallet
   * throws `LAST_WALLET`; a wallet not linked to this user `NOT_FOUND`.
   */
  unlinkWallet(wallet: string): Promise<UnlinkedWallet>;

  /** The two steps of sign-in, for flows that sign elsewhere; `signIn()` runs both. */
  auth: {
    /** `GET /auth/nonce`: a single-use nonce for the wallet and the exact message to sign. */
    nonce(wallet: string, options?: { format?: MessageFormat; chainId?: number }): Promise<Nonce>;
    /** `POST /auth/verify`: exchanges a signed nonce for a token, which the client stores. */
    verify(body: { wallet: string; nonce: string; signature: string }): Promise<Session>;
  };
  providers: {
    /**
     * `GET /providers`: a page of the catalogue; default page 1, 20 per page, most followed
     * first. Pass a page's `nextCursor` as `cursor` (instead of `page`) for the next one.
     */
    list(query?: ProviderListQuery): Promise<ProviderPage>;
    /**
     * Every provider of the catalogue in the query's sort (its `limit` per request), walked by
     * cursor: `for await (const provider of signal.providers.all({ sortBy: 'name' }))`. Each
     * page costs the same at any depth, and a provider whose sort key does not change meanwhile
     * is seen exactly once. `page` and `cursor` in the query are ignored.
     */
    all(query?: ProviderListQuery): AsyncIterableIterator<Provider>;
    /** `GET /providers/{id}`. */
    get(id: ProviderId): Promise<Provider>;
    /** `GET /providers/{id}/stats`. */
    stats(id: ProviderId): Promise<ProviderStats>;
    /** `GET /providers/{id}/performance`: the chart of a window (default `90d`) of its published NAV series. */
    performance(id: ProviderId, window?: PerformanceWindow): Promise<Performance>;
    /** `POST /providers/{id}/follow` (signed in; idempotent). */
    follow(id: ProviderId): Promise<FollowResult>;
    /** `DELETE /providers/{id}/follow` (signed in; idempotent). */
    unfollow(id: ProviderId): Promise<UnfollowResult>;
  };
  me: {
    /** `GET /me` (signed in). */
    get(): Promise<User>;
    /** `GET /me/following` (signed in): followed providers, newest follow first; `cursor` as for the list. */
    following(query?: PageQuery): Promise<FollowedProviderPage>;
    /** Every followed provider, newest follow first, walked by cursor like `providers.all`. */
    allFollowing(query?: PageQuery): AsyncIterableIterator<FollowedProvider>;
  };
  /** The signed-in user's sessions: one per sign-in, on this device or another. */
  sessions: {
    /**
     * `GET /me/sessions` (signed in): a page of the live sessions, newest first; `current` is
     * true on this client's. `cursor` as for the provider list.
     */
    list(query?: PageQuery): Promise<ActiveSessionPage>;
    /** Every live session, newest first, walked by cursor like `providers.all`. */
    all(query?: PageQuery): AsyncIterableIterator<ActiveSession>;
    /**
     * `DELETE /me/sessions/{id}` (signed in; idempotent): ends that session, whose token is then
     * refused with `SESSION_REVOKED`. An unknown id or another user's → `SESSION_NOT_FOUND`.
     * To end this client's own session use `signOut()`, which also forgets the token.
     */
    revoke(id: string): Promise<RevokedSession>;
  };
}

/** A nonce the SDK is willing to put into a message for a wallet to sign (the contract's alphabet). */
const NONCE_SHAPE = /^[A-Za-z0-9]{16,512}$/;

const FAMILY_FORMAT = { evm: 'siwe', solana: 'siws' } as const;

const sameWallet = (a: string, b: string) => a === b || (a.startsWith('0x') && a.toLowerCase() === b.toLowerCase());

/**
 * Whether `nonce.message` is the text the SDK asked for and no other: the plain message of the
 * nonce, or a SIWE/SIWS message naming this nonce, this wallet and the expected site. A wallet
 * prompted in the background (re-auth) must never sign text a server chose freely, such as a
 * look-alike site relaying another site's login message: the site a sign-in message names is
 * what the wallet shows and checks against the page, so the SDK holds it to the page too.
 */
function isExpectedMessage(
  nonce: Nonce,
  expected: { format: MessageFormat; wallet: string; domain: string; chainId: number | undefined },
): boolean {
  if (!NONCE_SHAPE.test(nonce.nonce) || !sameWallet(nonce.wallet, expected.wallet)) return false;
  if (expected.format === 'plain') return nonce.message === buildAuthMessage(nonce.nonce);
  const fields = parseSignInMessage(nonce.message);
  if (!fields || fields.format !== expected.format || fields.nonce !== nonce.nonce) return false;
  if (fields.domain.toLowerCase() !== expected.domain.toLowerCase() || !sameWallet(fields.address, expected.wallet)) {
    return false;
  }
  let uriHost: string;
  try {
    uriHost = new URL(fields.uri).host;
  } catch {
    return false;
  }
  if (uriHost.toLowerCase() !== expected.domain.toLowerCase()) return false;
  if (expected.chainId !== undefined && fields.chainId !== String(expected.chainId)) return false;
  return fields.expiresAt.getTime() > fields.issuedAt.getTime();
}

/** The site a sign-in message must name unless the caller says: the page's, else the API's. */
function defaultSignInDomain(baseUrl: string): string {
  const page = (globalThis as { location?: { host?: string } }).location?.host;
  return page || new URL(baseUrl).host;
}

/** Codes that mean "the token we sent is no good": a signer fixes each by signing in again. */
const REJECTED_TOKEN = new Set(['TOKEN_EXPIRED', 'SESSION_REVOKED', 'UNAUTHORIZED']);

export function createClient(options: ClientOptions): SignalClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const { signer } = options;
  const store = options.tokenStore ?? memoryTokenStore();

  // Every call's failure is a SignalApiError, whatever went wrong.
  const trpc = createTransport({
    url: `${baseUrl}/trpc`,
    fetch: options.fetch,
    toError: (error) => toSignalApiError(error, baseUrl),
  });

  // Bumped by signOut(): a sign-in that started before must not store its token afterwards.
  let epoch = 0;
  let inFlight: Promise<Session> | undefined;

  const storeSession = async (session: Session, startedAt: number) => {
    if (startedAt !== epoch) return;
    await store.set({ token: session.token, expiresAt: session.expiresAt, wallet: session.user.wallet });
  };

  const verify = async (body: { wallet: string; nonce: string; signature: string }, startedAt = epoch) => {
    const session = await trpc.auth.verify.mutate(body);
    await storeSession(session, startedAt);
    return session;
  };

  /**
   * Asks for a nonce for `active`'s wallet, checks the message is the one expected, and has the
   * wallet sign it: the body of POST /auth/verify, or of POST /me/wallets for a `link` nonce
   * (asked with the user's token in `context`).
   */
  const signNonce = async (
    active: Signer,
    format: MessageFormat,
    link?: { context: { token?: string } },
  ): Promise<{ wallet: string; nonce: string; signature: string }> => {
    const wallet = await active.getAddress();
    const chainId = format === 'siwe' ? options.chainId : undefined;
    const query = {
      wallet,
      format,
      ...(chainId === undefined ? {} : { chainId }),
      ...(link ? { purpose: 'link' as const } : {}),
    };
    const nonce = await trpc.auth.nonce.query(query, link);
    const domain = options.signInDomain ?? defaultSignInDomain(baseUrl);
    if (!isExpectedMessage(nonce, { format, wallet, domain, chainId })) {
      throw new SignalApiError('NETWORK_ERROR', `${baseUrl} asked to sign an unexpected message; nothing was signed`, {
        status: 200,
      });
    }
    return { wallet, nonce: nonce.nonce, signature: await active.signMessage(nonce.message) };
  };

  const runSignIn = async (active: Signer): Promise<Session> => {
    const startedAt = epoch;
    const format = options.messageFormat ?? FAMILY_FORMAT[active.chain];
    if (format !== 'plain' && format !== FAMILY_FORMAT[active.chain]) {
      throw new Error(
        `messageFormat '${format}' is not for ${active.chain} wallets; use '${FAMILY_FORMAT[active.chain]}' or 'plain'`,
      );
    }
    return verify(await signNonce(active, format), startedAt);
  };

  const signIn = (): Promise<Session> => {
    if (!signer) {
      return Promise.reject(new Error('signIn() needs a signer: pass one to createClient({ signer })'));
    }
    if (inFlight) return inFlight;
    const attempt = runSignIn(signer).finally(() => {
      if (inFlight === attempt) inFlight = undefined;
    });
    inFlight = attempt;
    return attempt;
  };

  /** The token for an authenticated call: the stored one while it is valid, else a fresh sign-in. */
  const tokenForCall = async (): Promise<string | undefined> => {
    const stored = await store.get();
    if (stored && !isExpired(stored)) return stored.token;
    if (signer) return (await signIn()).token;
    // No signer: send what we have and let the API answer (TOKEN_EXPIRED, UNAUTHORIZED).
    return stored?.token;
  };

  /** After the API rejected `rejected`: reuse a token another call already fetched, else sign in. */
  const tokenAfterRejection = async (rejected: string): Promise<string> => {
    const stored = await store.get();
    if (stored && stored.token !== rejected && !isExpired(stored)) return stored.token;
    return (await signIn()).token;
  };

  /**
   * Runs an authenticated call. A rejected token (expired, signed out, or no longer accepted)
   * is replaced by one sign-in and the call retried once; without a signer the typed error is
   * thrown and an expired or signed-out token is dropped from the store.
   */
  const authed = async <T>(call: (context: { token?: string }) => Promise<T>): Promise<T> => {
    // Taken before the token is read: a sign-out from here on makes this call an old one.
    const startedAt = epoch;
    const token = await tokenForCall();
    try {
      return await call({ token });
    } catch (error) {
      if (!(error instanceof SignalApiError) || token === undefined || !REJECTED_TOKEN.has(error.code)) throw error;
      // Signed out while the call was under way: do not prompt the wallet on its behalf.
      if (startedAt !== epoch) throw error;
      if (!signer) {
        if (error.code !== 'UNAUTHORIZED' && (await store.get())?.token === token) await store.clear();
        throw error;
      }
      const fresh = await tokenAfterRejection(token);
      return call({ token: fresh });
    }
  };

  const listProviders = (query: ProviderListQuery = {}) => trpc.providers.list.query(query);
  const listFollowing = (query: PageQuery = {}) => authed((context) => trpc.me.following.query(query, { context }));
  const listSessions = (query: PageQuery = {}) => authed((context) => trpc.sessions.list.query(query, { context }));

  return {
    signIn,
    linkWallet: (linked) =>
      authed(async (context) => {
        // A wallet of the other family than the client's signer signs its own family's message.
        const format = options.messageFormat === 'plain' ? 'plain' : FAMILY_FORMAT[linked.chain];
        const body = await signNonce(linked, format, { context });
        return trpc.wallets.link.mutate(body, { context });
      }),
    wallets: () => authed(async (context) => (await trpc.wallets.list.query(undefined, { context })).items),
    unlinkWallet: (wallet) => authed((context) => trpc.wallets.unlink.mutate({ wallet }, { context })),
    async signOut({ scope = 'current' } = {}): Promise<SignOutResult> {
      const logout = (context: { token?: string }) => trpc.auth.logout.mutate({ scope }, { context });
      if (scope === 'others') return { ...(await authed(logout)), serverConfirmed: true };
      epoch += 1;
      // The next sign-in starts afresh rather than joining one whose token will not be stored.
      inFlight = undefined;
      const stored = await store.get();
      // Forgotten before the request, so an unreachable or slow API cannot keep this device
      // signed in: calls from here on find no token (and sign in afresh, with a signer).
      await store.clear();
      if (!stored) return { revoked: 0, serverConfirmed: false };
      return logout({ token: stored.token }).then(
        ({ revoked }) => ({ revoked, serverConfirmed: true }),
        (error: SignalApiError) => ({ revoked: 0, serverConfirmed: false, error }),
      );
    },
    async getToken() {
      const stored = await store.get();
      return stored && !isExpired(stored) ? { ...stored } : null;
    },
    auth: {
      nonce: (wallet, nonceOptions = {}) => trpc.auth.nonce.query({ wallet, ...nonceOptions }),
      verify: (body) => verify(body),
    },
    providers: {
      list: listProviders,
      all: (query = {}) => walk(listProviders, query),
      get: (id) => trpc.providers.get.query({ id }),
      stats: (id) => trpc.providers.stats.query({ id }),
      performance: (id, window) => trpc.providers.performance.query({ id, ...(window && { window }) }),
      follow: (id) => authed((context) => trpc.providers.follow.mutate({ id }, { context })),
      unfollow: (id) => authed((context) => trpc.providers.unfollow.mutate({ id }, { context })),
    },
    me: {
      get: () => authed((context) => trpc.me.get.query(undefined, { context })),
      following: listFollowing,
      allFollowing: (query = {}) => walk(listFollowing, query),
    },
    sessions: {
      list: listSessions,
      all: (query = {}) => walk(listSessions, query),
      revoke: (id) => authed((context) => trpc.sessions.revoke.mutate({ id }, { context })),
    },
  };
}
