import { buildAuthMessage, buildLinkMessage, linkStatement, parseSignInMessage } from '@signal/core';
import { SignalApiError } from './api-error.js';
import type { ClientOptions, MessageFormat, SignalClient, SignOutResult } from './client.types.js';
import { logMethods } from './log-client.js';
import { signalMethods } from './signal-reads.js';
import type { Signer } from './signer.types.js';
import { isExpired, memoryTokenStore } from './token.store.js';
import { serviceTransport } from './transport.js';
import { walk } from './walk.js';
import type { Nonce, PageQuery, ProviderListQuery, Session } from './wire.types.js';

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
  expected: {
    format: MessageFormat;
    wallet: string;
    domain: string;
    chainId: number | undefined;
    /** A link: the account the message must name. Absent: a sign-in, which must name none. */
    linkTo?: string;
  },
): boolean {
  if (!NONCE_SHAPE.test(nonce.nonce) || !sameWallet(nonce.wallet, expected.wallet)) return false;
  const { linkTo } = expected;
  if (expected.format === 'plain') {
    return (
      nonce.message === (linkTo === undefined ? buildAuthMessage(nonce.nonce) : buildLinkMessage(nonce.nonce, linkTo))
    );
  }
  const fields = parseSignInMessage(nonce.message);
  if (!fields || fields.format !== expected.format || fields.nonce !== nonce.nonce) return false;
  // A link names the account it joins; a sign-in never reads as a link (a relayed link nonce).
  if (linkTo !== undefined ? fields.statement !== linkStatement(linkTo) : LINK_STATEMENT.test(fields.statement)) {
    return false;
  }
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

/** What every link statement starts with (core's linkStatement): never a sign-in's. */
const LINK_STATEMENT = /^Link this wallet to account /;

/**
 * The user id a token names (its `sub`), read without checking the token (the API checks it):
 * the account a link message must name. Undefined for anything that is not a JWT with one.
 */
function tokenSubject(token: string | undefined): string | undefined {
  const payload = token?.split('.')[1];
  if (!payload) return undefined;
  try {
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const sub = (JSON.parse(json) as { sub?: unknown }).sub;
    return typeof sub === 'string' && /^[1-9][0-9]*$/.test(sub) ? sub : undefined;
  } catch {
    return undefined;
  }
}

/** The site a sign-in message must name unless the caller says: the page's, else the API's. */
function defaultSignInDomain(baseUrl: string): string {
  const page = (globalThis as { location?: { host?: string } }).location?.host;
  return page || new URL(baseUrl).host;
}

/** Codes that mean "the token we sent is no good": a signer fixes each by signing in again. */
const REJECTED_TOKEN = new Set(['TOKEN_EXPIRED', 'SESSION_REVOKED', 'UNAUTHORIZED']);

export function createClient(options: ClientOptions): SignalClient {
  // Every call's failure is a SignalApiError, whatever went wrong.
  const { baseUrl, trpc } = serviceTransport(options);
  const { signer } = options;
  const store = options.tokenStore ?? memoryTokenStore();

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
    // A link message must name the signed-in account, and no other (the token says which).
    const linkTo = link ? (tokenSubject(link.context.token) ?? '') : undefined;
    if (!isExpectedMessage(nonce, { format, wallet, domain, chainId, ...(link ? { linkTo } : {}) })) {
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
    log: logMethods(baseUrl, trpc, options.fetch),
    signals: signalMethods({
      baseUrl,
      trpc,
      fetch: options.fetch,
      readerToken: async () => {
        const stored = await store.get();
        return stored && !isExpired(stored) ? stored.token : undefined;
      },
      authed,
      userToken: tokenForCall,
      // A token the API no longer takes: one sign-in (with a signer), else the refusal stands.
      renew: async (refusal, token) => {
        if (!signer || !token || !REJECTED_TOKEN.has((refusal as SignalApiError).code)) throw refusal;
        await tokenAfterRejection(token);
      },
    }),
  };
}
