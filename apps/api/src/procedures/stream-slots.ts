/**
 * Streams are bounded (CONTRACT.md, Version 4, "Changes to earlier versions"): at most
 * STREAMS_PER_CREDENTIAL open subscriptions per key or user on a server; one more is refused
 * with 429 RATE_LIMITED (tRPC's TOO_MANY_REQUESTS) before its stream starts (http/trpc-stream.ts
 * answers a refusal as JSON with its status). Every subscription takes its slot through
 * `holdStreamSlot` after its credential is admitted (events.stream, and signals.live the same
 * way), so the bound needs no list of routes.
 *
 * The slot is released once, by whichever comes first: the stream's end (its generator's
 * `finally` calls `ctx.releaseStream`), the connection's end (the call's abort signal: a stream
 * that never started has no `finally` to run), or a refusal after the slot was taken.
 */
import { DomainError } from '@signal/core';
import type { StreamSlots } from './context.js';
import { middleware } from './trpc.js';

/** Before a client tries again: a slot frees when one of its streams ends, which it knows of itself. */
const RETRY_AFTER_SECONDS = 10;

export function createStreamSlots(perCredential: number): StreamSlots {
  const open = new Map<string, number>();
  return {
    take(credential) {
      const count = open.get(credential) ?? 0;
      if (count >= perCredential) return undefined;
      open.set(credential, count + 1);
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        const left = (open.get(credential) ?? 1) - 1;
        if (left > 0) open.set(credential, left);
        else open.delete(credential);
      };
    },
    open: () => [...open.values()].reduce((sum, count) => sum + count, 0),
  };
}

/** Whose slots a subscription takes: the service key (ADMIN_KEY is `admin`) or the user. */
function credentialOf(ctx: object): string {
  const { serviceKey, auth } = ctx as { serviceKey?: { id: string }; auth?: { userId: number } };
  if (serviceKey) return `key:${serviceKey.id}`;
  if (auth) return `user:${auth.userId}`;
  // A subscription must admit a credential before it takes a slot: a wiring mistake, not a client's.
  throw new Error('holdStreamSlot runs after the middleware that admits the credential');
}

/**
 * A subscription's slot, after its credential's admission: ctx.releaseStream gives it back (the
 * stream's generator calls it when it ends).
 */
export const holdStreamSlot = middleware(async ({ ctx, next, signal }) => {
  const { streams, config } = ctx.services;
  const release = streams.take(credentialOf(ctx));
  if (!release) {
    const limit = config.streamsPerCredential;
    throw new DomainError(
      'RATE_LIMITED',
      `At most ${limit} streams may be open at once per key or user (STREAMS_PER_CREDENTIAL); close one, or retry in ${RETRY_AFTER_SECONDS} s`,
      { retryAfterSeconds: RETRY_AFTER_SECONDS },
    );
  }
  signal?.addEventListener('abort', release, { once: true });
  const result = await next({ ctx: { releaseStream: release } });
  if (!result.ok) release();
  return result;
});
