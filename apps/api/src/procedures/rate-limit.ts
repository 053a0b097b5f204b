/**
 * Rate limits, as tRPC middlewares so REST and /trpc are limited alike. Each runs before input
 * parsing, so malformed attempts count too.
 * - auth: AUTH_RATE_LIMIT_PER_MINUTE per client address and endpoint (auth.nonce, auth.verify);
 * - follow: FOLLOW_RATE_LIMIT_PER_MINUTE per user, follow and unfollow together;
 *   both counted in PostgreSQL, so every server sharing the database shares the count;
 * - read: READ_RATE_LIMIT_PER_MINUTE per client address on the public catalogue reads, counted
 *   in the process (a database write per read would double the cost of the cheapest requests);
 * - service key: SERVICE_KEY_RATE_LIMIT_PER_MINUTE per key on the scoped routes, counted in the
 *   process for the same reason (service-auth.ts);
 * - statement: SIGNAL_RATE_LIMIT_PER_MINUTE per signer on the statement routes, for statements
 *   whose signature holds, and as many per client address for the others (a forger spends its
 *   own budget, not the publisher's it names); in PostgreSQL.
 * A 429 carries Retry-After and the IETF RateLimit / RateLimit-Policy fields
 * (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy: "follow";q=60;w=60` and
 * `RateLimit: "follow";r=0;t=42` (quota, window, remaining, seconds until the window ends).
 */
import { isIP } from 'node:net';
import { DomainError } from '@signal/core';
import { hitRateLimit, type NewUserBudget } from '@signal/db';
import { ipv6Prefix, rateLimitKey, requestAddress } from '../wire/client-address.js';
import { rateLimitFields } from '../wire/errors.js';
import type { Context, Services } from './context.js';
import { authedProcedure, publicProcedure, signInProcedure } from './trpc.js';

export const RATE_LIMIT_WINDOW_MS = 60_000;

interface Hit {
  hits: number;
  resetAt: Date;
}

/** A limit's name in the RateLimit fields and its quota per window. */
export interface RatePolicy {
  name: string;
  limit: number;
}

export function rateLimitHeaders(policy: RatePolicy, remaining: number, resetSeconds: number): Record<string, string> {
  return rateLimitFields({
    policy: policy.name,
    quota: policy.limit,
    windowSeconds: RATE_LIMIT_WINDOW_MS / 1000,
    remaining,
    resetSeconds,
  });
}

/**
 * Checks a hit against its policy: past the quota, a 429; within it, the RateLimit fields go
 * on the answer when `announce` (not on answers a shared cache may keep, whose counts would be
 * another client's).
 */
function enforce(
  ctx: Pick<Context, 'res'>,
  policy: RatePolicy,
  hit: Hit,
  at: Date,
  message: string,
  announce: boolean,
): void {
  const resetSeconds = secondsUntil(hit.resetAt, at);
  if (hit.hits > policy.limit) throw rateLimited(message, resetSeconds, policy);
  if (announce) {
    for (const [name, value] of Object.entries(rateLimitHeaders(policy, policy.limit - hit.hits, resetSeconds))) {
      ctx.res.setHeader(name, value);
    }
  }
}

export function rateLimitedProcedure(endpoint: string) {
  return signInProcedure.use(async ({ ctx, next }) => {
    const { config, database, now } = ctx.services;
    const limit = config.authRateLimitPerMinute;
    if (limit === 0) return next();
    const at = now();
    const key = rateLimitKey(requestAddress(ctx));
    const hit = await hitRateLimit(database.db, {
      bucket: `${endpoint}:${key}`,
      now: at,
      windowMs: RATE_LIMIT_WINDOW_MS,
    });
    enforce(ctx, { name: endpoint, limit }, hit, at, addressLimitMessage(limit, endpoint), true);
    return next();
  });
}

/** Follow and unfollow: one count per user, whichever server answers. */
export const followLimitedProcedure = authedProcedure.use(async ({ ctx, next }) => {
  const { config, database, now } = ctx.services;
  const limit = config.followRateLimitPerMinute;
  if (limit === 0) return next();
  const at = now();
  const hit = await hitRateLimit(database.db, {
    bucket: `follow:user:${ctx.auth.userId}`,
    now: at,
    windowMs: RATE_LIMIT_WINDOW_MS,
  });
  enforce(ctx, { name: 'follow', limit }, hit, at, `More than ${limit} follows and unfollows a minute`, true);
  return next();
});

/**
 * Counts one signed statement against one of the statement routes' two budgets of
 * SIGNAL_RATE_LIMIT_PER_MINUTE, in the database so every server shares them; past it, a 429
 * before any database check. Whose budget: the signer's when the signature holds as far as this
 * server can tell without a chain (`locallyValid`: an EOA's, a Solana wallet's, a delegated
 * key's), else the client address's (a forgery, or a contract wallet's signature, which only
 * the chain can tell). A forger who names a publisher's wallet spends its own address's budget,
 * never the publisher's; and a publisher behind an address a forger shares keeps its own.
 * Counted before the work, with one atomic upsert, so concurrent requests cannot pass it.
 */
export async function countStatement(
  ctx: Pick<Context, 'services' | 'req' | 'res'>,
  signer: string,
  locallyValid: boolean,
): Promise<void> {
  const { config, database, now } = ctx.services;
  const limit = config.signalRateLimitPerMinute;
  if (limit === 0) return;
  const at = now();
  const bucket = locallyValid ? `statement:${signer}` : `statement-unverified:${rateLimitKey(requestAddress(ctx))}`;
  const hit = await hitRateLimit(database.db, { bucket, now: at, windowMs: RATE_LIMIT_WINDOW_MS });
  const message = locallyValid
    ? `More than ${limit} statements a minute by ${signer}`
    : `More than ${limit} statements a minute from this address whose signature did not hold (or needs the chain)`;
  enforce(ctx, { name: 'statement', limit }, hit, at, message, locallyValid);
}

/**
 * Counts one public catalogue read of the request's address; past the limit, a 429. Also
 * called for a revalidation answered 304 without running the procedure (http/caching.ts).
 */
export function countCatalogueRead(ctx: Pick<Context, 'services' | 'req' | 'res'>): void {
  const { config, now } = ctx.services;
  const limit = config.readRateLimitPerMinute;
  if (limit === 0) return;
  const at = now();
  const hit = counter(readCounters, ctx.services).hit(rateLimitKey(requestAddress(ctx)), at);
  enforce(
    ctx,
    { name: 'read', limit },
    hit,
    at,
    `More than ${limit} catalogue reads a minute from this address`,
    false,
  );
}

/** Public catalogue reads: per client address, counted in this process. */
export const readLimitedProcedure = publicProcedure.use(async ({ ctx, next }) => {
  countCatalogueRead(ctx);
  return next();
});

/** Counts one request of a service key on a scoped route; past the limit, a 429. */
export function countServiceKeyRequest(ctx: Pick<Context, 'services' | 'res'>, keyId: string): void {
  const { config, now } = ctx.services;
  const limit = config.serviceKeyRateLimitPerMinute;
  if (limit === 0) return;
  const at = now();
  const hit = counter(serviceKeyCounters, ctx.services).hit(keyId, at);
  enforce(ctx, { name: 'service-key', limit }, hit, at, `More than ${limit} requests a minute with this key`, true);
}

/**
 * Fixed one-minute windows in memory, aligned with the database's windows. The whole map is
 * dropped when a window ends, so it holds at most the addresses seen in one minute.
 */
class WindowCounter {
  private windowStart = 0;
  private counts = new Map<string, number>();

  hit(key: string, at: Date): Hit {
    const start = Math.floor(at.getTime() / RATE_LIMIT_WINDOW_MS) * RATE_LIMIT_WINDOW_MS;
    if (start !== this.windowStart) {
      this.windowStart = start;
      this.counts = new Map();
    }
    const hits = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, hits);
    return { hits, resetAt: new Date(start + RATE_LIMIT_WINDOW_MS) };
  }
}

const readCounters = new WeakMap<Services, WindowCounter>();
const serviceKeyCounters = new WeakMap<Services, WindowCounter>();

/** A server's own counter of one limit. */
function counter(counters: WeakMap<Services, WindowCounter>, services: Services): WindowCounter {
  let found = counters.get(services);
  if (!found) {
    found = new WindowCounter();
    counters.set(services, found);
  }
  return found;
}

/** What a client address over the sign-in limit is told (before "; retry in N s"). */
export const addressLimitMessage = (limit: number, endpoint: string) =>
  `More than ${limit} ${endpoint} requests a minute from this address`;

export function rateLimited(
  message: string,
  retryAfterSeconds: number,
  policy: RatePolicy,
  windowMs = RATE_LIMIT_WINDOW_MS,
): DomainError {
  return new DomainError('RATE_LIMITED', `${message}; retry in ${retryAfterSeconds} s`, {
    retryAfterSeconds,
    rateLimit: {
      policy: policy.name,
      quota: policy.limit,
      windowSeconds: windowMs / 1000,
      remaining: 0,
      resetSeconds: retryAfterSeconds,
    },
  });
}

/** Whole seconds from `now` until `at`, at least 1 (Retry-After: 0 would invite a busy loop). */
export function secondsUntil(at: Date, now: Date): number {
  return Math.max(1, Math.ceil((at.getTime() - now.getTime()) / 1000));
}

/** The new-account limit's window: an hour, counted in the database like the sign-in limit. */
export const NEW_USER_WINDOW_MS = 3_600_000;

/**
 * The new-account budgets of the request's client: NEW_USER_RATE_LIMIT_PER_HOUR for its address
 * (IPv6: its /64) and, for IPv6, NEW_USER_RATE_LIMIT_PER_HOUR_PER_56 for its /56, in that order
 * (the order admitNewUser takes them in). A returning wallet is never counted (admitNewUser).
 */
export function newUserBudgets(ctx: Pick<Context, 'services' | 'req'>): NewUserBudget[] {
  const { newUserRateLimitPerHour: perAddress, newUserRateLimitPerHourPer56: per56 } = ctx.services.config;
  const address = requestAddress(ctx);
  const budgets: NewUserBudget[] = [];
  if (perAddress > 0) budgets.push({ bucket: rateLimitKey(address), limit: perAddress });
  if (per56 > 0 && isIP(address) === 6) budgets.push({ bucket: ipv6Prefix(address, 56), limit: per56 });
  return budgets;
}

/** The 429 of a sign-in that would create an account past a budget; the nonce stays unused. */
export function newUserRefused(refusal: { budget: NewUserBudget; resetAt: Date }, at: Date): DomainError {
  const { bucket, limit } = refusal.budget;
  const from = bucket.endsWith('/56') ? 'this /56 network' : 'this address';
  return rateLimited(
    `More than ${limit} new accounts an hour from ${from}; wallets that signed in before are not limited`,
    secondsUntil(refusal.resetAt, at),
    { name: 'new-user', limit },
    NEW_USER_WINDOW_MS,
  );
}
