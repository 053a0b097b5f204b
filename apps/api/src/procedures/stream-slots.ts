/**
 * Streams are bounded (CONTRACT.md, Version 4, "Changes to earlier versions"): at most
 * STREAMS_PER_CREDENTIAL open subscriptions per key or user on a server; one more is refused
 * with 429 RATE_LIMITED (tRPC's TOO_MANY_REQUESTS) before its stream starts (http/trpc-stream.ts
 * answers a refusal as JSON with its status). Beside it (issue 41), STREAMS_PER_ADDRESS per
 * client address (429 too: many users behind one address cannot take the process's streams) and
 * STREAMS_MAX in the process (503 SERVICE_UNAVAILABLE with Retry-After: this server is full,
 * another may not be). `0` turns either off. Every subscription takes its slot through
 * `holdStreamSlot` after its credential is admitted (events.stream, and signals.live the same
 * way), so the bound needs no list of routes.
 *
 * The slot is released once, by whichever comes first: the stream's end (its generator's
 * `finally` calls `ctx.releaseStream`), the connection's end (the call's abort signal: a stream
 * that never started has no `finally` to run), or a refusal after the slot was taken.
 */
import { DomainError } from '@signal/core';
import { rateLimitKey, requestAddress } from '../wire/client-address.js';
import type { StreamSlots } from './context.js';
import { middleware } from './trpc.js';

/** Before a client tries again: a slot frees when one of its streams ends, which it knows of itself. */
const RETRY_AFTER_SECONDS = 10;

export interface StreamBounds {
  perCredential: number;
  /** 0: none. */
  perAddress: number;
  /** 0: none. */
  total: number;
}

export function createStreamSlots(bounds: StreamBounds): StreamSlots {
  const byCredential = new Map<string, number>();
  const byAddress = new Map<string, number>();
  let total = 0;
  const decrement = (counts: Map<string, number>, name: string) => {
    const left = (counts.get(name) ?? 1) - 1;
    if (left > 0) counts.set(name, left);
    else counts.delete(name);
  };
  return {
    take(credential, address) {
      if (bounds.total > 0 && total >= bounds.total) return 'total';
      if (bounds.perAddress > 0 && (byAddress.get(address) ?? 0) >= bounds.perAddress) return 'address';
      if ((byCredential.get(credential) ?? 0) >= bounds.perCredential) return 'credential';
      byCredential.set(credential, (byCredential.get(credential) ?? 0) + 1);
      byAddress.set(address, (byAddress.get(address) ?? 0) + 1);
      total += 1;
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        total -= 1;
        decrement(byCredential, credential);
        decrement(byAddress, address);
      };
    },
    open: () => total,
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
  const release = streams.take(credentialOf(ctx), rateLimitKey(requestAddress(ctx)));
  if (release === 'total') {
    throw new DomainError(
      'SERVICE_UNAVAILABLE',
      `This server holds its ${config.streamsMax} streams (STREAMS_MAX); retry in ${RETRY_AFTER_SECONDS} s, or on another server`,
      { retryAfterSeconds: RETRY_AFTER_SECONDS },
    );
  }
  if (release === 'address') {
    throw new DomainError(
      'RATE_LIMITED',
      `At most ${config.streamsPerAddress} streams may be open at once from one address (STREAMS_PER_ADDRESS); close one, or retry in ${RETRY_AFTER_SECONDS} s`,
      { retryAfterSeconds: RETRY_AFTER_SECONDS },
    );
  }
  if (release === 'credential') {
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
