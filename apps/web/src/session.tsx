/**
 * Who is signed in, and the SDK client that acts for them. The token lives in localStorage (the
 * SDK's `localStorageTokenStore`), so a reload restores the session without asking the wallet;
 * the wallet is asked only when the user signs in, or when the SDK signs in again for them
 * because the token expired (or its session was ended from another device) while their wallet
 * was connected.
 */
import type { Chain, SignalClient, User } from '@signal/sdk';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';
import {
  describeProblem,
  describeSignOut,
  isSessionEnded,
  isUserRejection,
  makeClient,
  type Problem,
  TOKEN_KEY,
} from './api';
import { connectWallet, disconnectWallet } from './wallets';

export type Session =
  | { status: 'restoring' }
  | { status: 'signed-out' }
  | { status: 'signing-in'; chain: Chain }
  /** `user` arrives from `GET /me` shortly after a restore; wallet and chain are known at once. */
  | { status: 'signed-in'; wallet: string; chain: Chain; user?: User };

interface SessionContextValue {
  session: Session;
  client: SignalClient;
  /** The banner under the header: a rejected signature, an expired session, a session ended elsewhere, … */
  notice: Problem | null;
  dismissNotice(): void;
  /** Signs in with the family's wallet `walletId` (from installedWallets), default its first. */
  signIn(chain: Chain, walletId?: string): Promise<void>;
  /**
   * Ends this session on the server (`POST /auth/logout`), then here; if the API could not
   * confirm, the banner says the token was only forgotten on this device.
   */
  signOut(): Promise<void>;
  /**
   * Runs a call that needs a user. If the session turns out to be over (expired, ended from
   * another device, or the wallet declined to sign in again), the app signs out and says why;
   * the error is rethrown.
   */
  authed<T>(call: (client: SignalClient) => Promise<T>): Promise<T>;
  /** Reloads the user (following count) and what they follow, after a follow or unfollow. */
  refresh(): void;
  /** Ids of the providers the user follows; undefined while unknown. */
  followed: ReadonlySet<number> | undefined;
  markFollowed(id: number, following: boolean): void;
}

const SessionContext = createContext<SessionContextValue | null>(null);

/** How much of `GET /me/following` is read to mark followed providers (100 per page). */
const FOLLOWED_PAGES = 10;

async function loadFollowed(client: SignalClient): Promise<Set<number>> {
  const ids = new Set<number>();
  for (let page = 1; page <= FOLLOWED_PAGES; page++) {
    const result = await client.me.following({ page, limit: 100 });
    for (const provider of result.items) ids.add(provider.id);
    if (page >= result.totalPages) break;
  }
  return ids;
}

const chainOf = (wallet: string): Chain => (wallet.startsWith('0x') ? 'evm' : 'solana');

export function SessionProvider({ children }: { children: ReactNode }) {
  const [client, setClient] = useState(() => makeClient());
  const [session, setSession] = useState<Session>({ status: 'restoring' });
  const [notice, setNotice] = useState<Problem | null>(null);
  const [followed, setFollowed] = useState<Set<number>>();
  // Bumped whenever the session changes hands, so late answers for an old one are dropped.
  const generation = useRef(0);

  /** Loads the user and what they follow for the session `active` acts for. */
  const loadUser = useCallback(async (active: SignalClient, owner: number) => {
    const [user, ids] = await Promise.all([active.me.get(), loadFollowed(active)]);
    if (generation.current !== owner) return;
    setSession({ status: 'signed-in', wallet: user.wallet, chain: user.chain, user });
    setFollowed(ids);
  }, []);

  /**
   * Signs `active` out: the SDK forgets the token, then asks the API to end the session (with no
   * request when the API already refused the token and the SDK dropped it). `problem` is why
   * the session ended, for the banner; without one (the user's own sign-out) the banner speaks
   * only when the API did not confirm.
   */
  const endSession = useCallback(async (active: SignalClient, problem: Problem | null) => {
    generation.current += 1;
    const result = await active.signOut();
    setClient(makeClient());
    setSession({ status: 'signed-out' });
    setFollowed(undefined);
    setNotice(problem ?? describeSignOut(result));
  }, []);

  /** Picks up the stored token (page load, or another tab signed in or out). */
  const restore = useCallback(async () => {
    const owner = ++generation.current;
    const active = makeClient();
    setClient(active);
    const stored = await active.getToken();
    if (generation.current !== owner) return;
    if (!stored) {
      setSession({ status: 'signed-out' });
      setFollowed(undefined);
      return;
    }
    setSession({ status: 'signed-in', wallet: stored.wallet, chain: chainOf(stored.wallet) });
    try {
      await loadUser(active, owner);
    } catch (error) {
      if (generation.current !== owner) return;
      if (isSessionEnded(error)) await endSession(active, describeProblem(error));
      // Network trouble leaves the session as it is (the screens say the API is unreachable);
      // follows unknown degrade to "Follow" buttons, as after a sign-in.
      else setFollowed((previous) => previous ?? new Set());
    }
  }, [endSession, loadUser]);

  useEffect(() => {
    void restore();
    const onStorage = (event: StorageEvent) => {
      if (event.key === TOKEN_KEY) void restore();
    };
    window.addEventListener('storage', onStorage);
    return () => window.removeEventListener('storage', onStorage);
  }, [restore]);

  const signIn = useCallback(async (chain: Chain, walletId?: string) => {
    const owner = ++generation.current;
    setNotice(null);
    setSession({ status: 'signing-in', chain });
    try {
      const active = makeClient(await connectWallet(chain, walletId));
      const { user } = await active.signIn();
      if (generation.current !== owner) return;
      setClient(active);
      setSession({ status: 'signed-in', wallet: user.wallet, chain: user.chain, user });
      // Unknown follows degrade to "Follow" buttons (follow is idempotent): never block the UI.
      const ids = await loadFollowed(active).catch(() => new Set<number>());
      if (generation.current === owner) setFollowed(ids);
    } catch (error) {
      if (generation.current !== owner) return;
      setSession({ status: 'signed-out' });
      setNotice(describeProblem(error));
    }
  }, []);

  const signOut = useCallback(async () => {
    const chain = session.status === 'signed-in' ? session.chain : undefined;
    setNotice(null);
    await endSession(client, null);
    if (chain) await disconnectWallet(chain);
  }, [client, endSession, session]);

  const authed = useCallback(
    async <T,>(call: (active: SignalClient) => Promise<T>): Promise<T> => {
      const owner = generation.current;
      try {
        return await call(client);
      } catch (error) {
        if ((isSessionEnded(error) || isUserRejection(error)) && generation.current === owner) {
          await endSession(client, describeProblem(error));
        }
        throw error;
      }
    },
    [client, endSession],
  );

  // The SDK may also have signed in again on the way (expired token): this picks up who that is.
  const refresh = useCallback(() => {
    void loadUser(client, generation.current).catch(() => {});
  }, [client, loadUser]);

  const markFollowed = useCallback((id: number, following: boolean) => {
    setFollowed((previous) => {
      const next = new Set(previous);
      if (following) next.add(id);
      else next.delete(id);
      return next;
    });
  }, []);

  const value = useMemo<SessionContextValue>(
    () => ({
      session,
      client,
      notice,
      dismissNotice: () => setNotice(null),
      signIn,
      signOut,
      authed,
      refresh,
      followed,
      markFollowed,
    }),
    [session, client, notice, signIn, signOut, authed, refresh, followed, markFollowed],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession() outside <SessionProvider>');
  return value;
}
