/**
 * The one place the app meets the SDK's configuration: where the API is, where the token lives,
 * and what an error means to a person.
 */
import {
  createClient,
  isSignalApiError,
  localStorageTokenStore,
  type SignalClient,
  type Signer,
  type SignOutResult,
} from '@signal/sdk';

/** The API serves this app, so by default it is the page's own origin. */
export const API_URL = (import.meta.env.VITE_SIGNAL_API_URL || window.location.origin).replace(/\/+$/, '');

/** Shared by every client the app creates, so a reload (or another tab) stays signed in. */
export const TOKEN_KEY = 'signal-demo.token';
const tokenStore = localStorageTokenStore({ key: TOKEN_KEY });

/**
 * A client without a signer calls the public endpoints and sends the stored token; one with a
 * signer (after the user connects a wallet) also signs in, and signs in again when the token
 * expires.
 */
export function makeClient(signer?: Signer): SignalClient {
  return createClient({ baseUrl: API_URL, tokenStore, ...(signer ? { signer } : {}) });
}

/** avatarUrl is relative to the API (`/avatars/<seed>.svg`), not to wherever the app is hosted. */
export function apiAsset(path: string): string {
  return new URL(path, `${API_URL}/`).href;
}

export type Problem = {
  kind: 'rejected' | 'expired' | 'revoked' | 'network' | 'not-found' | 'no-wallet' | 'rate-limited' | 'other';
  title: string;
  detail: string;
};

/**
 * Codes that mean the stored session is gone: the user has to sign in again. SESSION_REVOKED:
 * it was ended on the server, from another device (its Sessions page, or "Sign out everywhere
 * else" there).
 */
const SESSION_ENDED = new Set(['TOKEN_EXPIRED', 'SESSION_REVOKED', 'UNAUTHORIZED', 'WALLET_NOT_FOUND']);

export function isSessionEnded(error: unknown): boolean {
  return isSignalApiError(error) && SESSION_ENDED.has(error.code);
}

/** Problems that end the session: the banner under the header says so, so a button need not. */
export const announcedByBanner = (problem: Problem) =>
  problem.kind === 'expired' || problem.kind === 'revoked' || problem.kind === 'rejected';

/**
 * What a "Sign out" the user asked for left behind: nothing to say when the API ended the
 * session (or had already ended it); a warning when only this device forgot the token, because
 * a copy of it still works until it expires.
 */
export function describeSignOut(result: SignOutResult): Problem | null {
  if (result.serverConfirmed || !result.error || isSessionEnded(result.error)) return null;
  const why =
    result.error.code === 'NETWORK_ERROR'
      ? 'The Signal API could not be reached'
      : `The Signal API refused (${result.error.code})`;
  return {
    kind: 'network',
    title: 'Signed out on this device only',
    detail: `${why}, so the session was not ended on the server. Sign in again and choose "Sign out everywhere else" under Sessions to end it.`,
  };
}

/**
 * A wallet that declines says so with EIP-1193's code 4001 (viem keeps it on its
 * UserRejectedRequestError; Phantom and other Solana wallets throw it as is), somewhere in the
 * cause chain.
 */
export function isUserRejection(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 8; depth++) {
    if (typeof current !== 'object') return false;
    const { code, name, cause } = current as { code?: unknown; name?: unknown; cause?: unknown };
    if (code === 4001 || name === 'UserRejectedRequestError') return true;
    current = cause;
  }
  return false;
}

export class NoWalletError extends Error {
  override readonly name = 'NoWalletError';
}

/** What went wrong, in words for the person looking at the page. */
export function describeProblem(error: unknown): Problem {
  if (isUserRejection(error)) {
    return {
      kind: 'rejected',
      title: 'Signature rejected',
      detail: 'Your wallet declined the request, so you are not signed in. Nothing was signed.',
    };
  }
  if (error instanceof NoWalletError) return { kind: 'no-wallet', title: 'No wallet found', detail: error.message };
  if (isSignalApiError(error)) {
    if (error.code === 'NETWORK_ERROR') {
      return {
        kind: 'network',
        title: 'Cannot reach the Signal API',
        detail: `No answer from ${API_URL}. Check your connection, then try again.`,
      };
    }
    if (error.code === 'SESSION_REVOKED') {
      return {
        kind: 'revoked',
        title: 'You were signed out on another device',
        detail: 'This session was ended from another device signed in with your wallet. Sign in again to continue.',
      };
    }
    if (isSessionEnded(error)) {
      return {
        kind: 'expired',
        title: 'Your session has expired',
        detail: 'Sign in again with your wallet to continue.',
      };
    }
    if (error.code === 'PROVIDER_NOT_FOUND') {
      return { kind: 'not-found', title: 'Provider not found', detail: 'It may have been removed from the catalogue.' };
    }
    if (error.code === 'RATE_LIMITED') return describeRateLimit(error.rateLimit, error.retryAfter, error.message);
    return { kind: 'other', title: 'Something went wrong', detail: `${error.message} (${error.code})` };
  }
  return {
    kind: 'other',
    title: 'Something went wrong',
    detail: error instanceof Error ? error.message : String(error),
  };
}

/**
 * A 429 in words: which limit (the API names it in RateLimit-Policy) and how long until it
 * lifts (Retry-After), as a delay and as a time of day, so the text stays true while it is read.
 */
export function describeRateLimit(limit: string | undefined, retryAfter: number | undefined, message: string): Problem {
  const when =
    retryAfter === undefined
      ? 'Try again shortly.'
      : `Try again in ${formatDelay(retryAfter)} (at ${new Date(Date.now() + retryAfter * 1000).toLocaleTimeString()}).`;
  switch (limit) {
    case 'auth.nonce':
    case 'auth.verify':
      return {
        kind: 'rate-limited',
        title: 'Too many sign-in attempts',
        detail: `Sign-in requests from your network are limited per minute. ${when}`,
      };
    case 'follow':
      return {
        kind: 'rate-limited',
        title: 'Too many follows',
        detail: `Follows and unfollows are limited per minute for each account. ${when}`,
      };
    case 'read':
      return {
        kind: 'rate-limited',
        title: 'Too many requests',
        detail: `Catalogue requests from your network are limited per minute. ${when}`,
      };
    default:
      return { kind: 'rate-limited', title: 'Too many requests', detail: `${message}. ${when}` };
  }
}

function formatDelay(seconds: number): string {
  if (seconds < 60) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  const m = minutes === 1 ? '1 minute' : `${minutes} minutes`;
  return rest === 0 ? m : `${m} ${rest === 1 ? '1 second' : `${rest} seconds`}`;
}
