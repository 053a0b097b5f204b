/**
 * What the SDK's client is: its options and every method it offers, with the contract each
 * keeps (client.ts implements it).
 */
import type { SignalApiError } from './api-error.js';
import type { LogMethods } from './log-client.js';
import type { Signer } from './signer.types.js';
import { memoryTokenStore, type StoredToken, type TokenStore } from './token.store.js';
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
  Signal,
  SignalList,
  SignalLiveEvent,
  SignalStatus,
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

/** A page of a provider's signals: `cursor` (a page's `nextCursor`), `limit` (1..100, default 20), only some `status`es. */
export interface SignalListQuery {
  cursor?: string;
  limit?: number;
  status?: SignalStatus | SignalStatus[];
}

/** A signal handed out by `signals.live`: its data, and its event id (the statement's log index) to resume after. */
export type SignalLiveHandler = (event: SignalLiveEvent, id: string) => void | Promise<void>;

export interface SignalLiveOptions {
  /** Only these providers (among those the user follows). */
  providerIds?: number[];
  /** The id of the last event handled: the stream resumes right after it. Without it, from now on. */
  lastEventId?: string;
  /**
   * Called once when the stream ends on its own: the API refused it (`UNAUTHORIZED`,
   * `FORBIDDEN`, `RATE_LIMITED` over the stream cap, an unknown `lastEventId`), or the handler
   * threw. Default `console.error`. Not called after the unsubscribe.
   */
  onError?: (error: unknown) => void;
}

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
   * `POST /me/wallets`): `signer` signs a link nonce (its family's format, SIWE or SIWS, or
   * `plain` when the client's `messageFormat` is), whose text names the signed-in account
   * ("Sign this message to link this wallet to account <userId>: <nonce>", or the statement
   * "Link this wallet to account <userId>."); the SDK refuses to sign a link message naming
   * another account, and a sign-in never signs a link message. That wallet then signs the same
   * user in.
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
  /** The public log of record: checkpoints and proofs, unchecked (check them with `@signal/sdk/log`). */
  log: LogMethods;
  /**
   * Trading signals as this reader sees them. Reads send the stored token when there is a valid
   * one (never signing in for it): a follower of the provider sees `content` and the statements
   * before `revealAt`, everyone else after it. A stored token the API refuses (signed out
   * elsewhere) is renewed once with a signer; without one the read throws (`SESSION_REVOKED`,
   * `TOKEN_EXPIRED`) and drops it, so the next read is the public's.
   */
  signals: {
    /** `GET /providers/{id}/signals`: a page, newest first; pass its `nextCursor` as `cursor` for the next. */
    list(providerId: ProviderId, query?: SignalListQuery): Promise<SignalList>;
    /** `GET /providers/{id}/signals/{signalId}`; `SIGNAL_NOT_FOUND` when there is none. */
    get(providerId: ProviderId, signalId: string): Promise<Signal>;
    /** `GET /me/signals` (signed in): the signals of the providers the user follows now, newest first. */
    mine(query?: { cursor?: string; limit?: number }): Promise<SignalList>;
    /**
     * The `signals.live` subscription (signed in; a sign-in first with a signer): every statement
     * of a followed provider's signals from now on (or right after `lastEventId`), in log order,
     * each once, `onSignal(event, id)` awaited one at a time. A dropped connection resumes by
     * itself after the last id handed out; a token the API refuses is renewed once with the
     * signer. Returns the unsubscribe.
     */
    live(onSignal: SignalLiveHandler, options?: SignalLiveOptions): () => void;
  };
}
