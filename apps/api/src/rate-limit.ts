/**
 * The auth rate limit: AUTH_RATE_LIMIT_PER_MINUTE requests per client address and endpoint
 * (auth.nonce and auth.verify each), counted in PostgreSQL so that every server sharing the
 * database shares the count. A tRPC middleware, so REST and /trpc are limited alike, and it
 * runs before input parsing: malformed attempts count too.
 */
import { DomainError } from '@signal/core';
import { hitRateLimit } from '@signal/db';
import { clientAddress, rateLimitKey } from './http/client-ip.js';
import { signInProcedure } from './trpc.js';

export const RATE_LIMIT_WINDOW_MS = 60_000;

export function rateLimitedProcedure(endpoint: string) {
  return signInProcedure.use(async ({ ctx, next }) => {
    const { config, database, now } = ctx.services;
    const limit = config.authRateLimitPerMinute;
    if (limit === 0) return next();
    const at = now();
    const key = rateLimitKey(clientAddress(ctx.req, config.trustProxy));
    const { hits, resetAt } = await hitRateLimit(database.db, {
      bucket: `${endpoint}:${key}`,
      now: at,
      windowMs: RATE_LIMIT_WINDOW_MS,
    });
    if (hits > limit) {
      throw rateLimited(
        `More than ${limit} ${endpoint} requests a minute from this address`,
        secondsUntil(resetAt, at),
      );
    }
    return next();
  });
}

export function rateLimited(message: string, retryAfterSeconds: number): DomainError {
  return new DomainError('RATE_LIMITED', `${message}; retry in ${retryAfterSeconds} s`, {
    headers: { 'Retry-After': String(retryAfterSeconds) },
  });
}

/** Whole seconds from `now` until `at`, at least 1 (Retry-After: 0 would invite a busy loop). */
export function secondsUntil(at: Date, now: Date): number {
  return Math.max(1, Math.ceil((at.getTime() - now.getTime()) / 1000));
}
