/**
 * What the live hub (live-hub.ts) learns from the feed: a user's stream carries the providers it
 * follows now, so a follow or unfollow (`follow.created`, `follow.deleted`) changes what its open
 * streams carry, and a sign-out (`session.revoked`) ends the streams of that session with
 * SESSION_REVOKED (tRPC's `serialized-error`), as its next request would be refused.
 *
 * One reader per process, and only while a user's stream is open: it takes the feed's pages from
 * the process's feed pump (feed-pump.ts, which reads each page once for every stream of the
 * process), so a follow costs no database work per stream. A change reaches the open streams
 * within about the pump's interval (200 ms); one made in the moments between a stream's
 * admission (which reads the user's follows) and this reader's next page can be missed by that
 * stream, until it reconnects.
 *
 * A key's streams: every RECHECK_MS its key is looked at again, once for all its streams
 * (revoked, expired, the scope gone: they end with the error its next request would get).
 */
import { readFeedAfter } from '@signal/db';
import type { Services } from '../procedures/context.js';
import { sessionRevoked } from '../procedures/trpc.js';
import { toWireError } from '../wire/errors.js';
import { trpcErrorShape } from '../wire/trpc-errors.js';
import type { LiveStream } from './live-stream.js';

const PAGE = 100;
const WAIT_MS = 30_000;
const RECHECK_MS = 30_000;

export interface LiveFollowsTarget {
  followed(stream: LiveStream, provider: number): void;
  unfollowed(stream: LiveStream, provider: number): void;
  /** Ends the stream with this error shape (tRPC's). */
  signedOut(stream: LiveStream, error: unknown): void;
}

export interface LiveFollows {
  /** A stream opened: a user's is kept current from now on. */
  watch(stream: LiveStream): void;
  forget(stream: LiveStream): void;
  stop(): Promise<void>;
}

/** The error shape a stream ends with. */
const shapeOf = (error: unknown) => trpcErrorShape(toWireError(error), 'signals.live');

export function startLiveFollows(
  services: Pick<Services, 'database' | 'feed' | 'log'>,
  target: LiveFollowsTarget,
): LiveFollows {
  const byUser = new Map<number, Set<LiveStream>>();
  const byKey = new Map<string, Set<LiveStream>>();
  const stopping = new AbortController();
  let running: Promise<void> | undefined;

  const apply = (type: string, data: { userId?: number; providerId?: number; sessionId?: string }) => {
    const streams = data.userId === undefined ? undefined : byUser.get(data.userId);
    if (!streams) return;
    for (const stream of [...streams]) {
      if (type === 'follow.created' && data.providerId !== undefined) target.followed(stream, data.providerId);
      else if (type === 'follow.deleted' && data.providerId !== undefined) target.unfollowed(stream, data.providerId);
      else if (type === 'session.revoked') {
        const { reader } = stream.subscription;
        if (reader.kind === 'user' && reader.sessionId === data.sessionId) {
          target.signedOut(stream, shapeOf(sessionRevoked()));
        }
      }
    }
  };

  const loop = async () => {
    const { feed } = services;
    let after = feed.head() ?? '0';
    while (byUser.size > 0 && !stopping.signal.aborted) {
      try {
        const next = await feed.eventsAfter(after, { signal: stopping.signal, maxWaitMs: WAIT_MS });
        if (next === 'stopped') return;
        const page = Array.isArray(next) ? next : await readFeedAfter(services.database.db, after, PAGE);
        if (!Array.isArray(next) && page.length === 0) after = next.behind;
        for (const { position, event } of page) {
          apply(event.type, event.data as Parameters<typeof apply>[1]);
          after = position;
        }
      } catch (error) {
        services.log.warn({ err: error }, 'signals.live: reading the feed for follows failed; trying again');
        await new Promise((resolve) => setTimeout(resolve, 1_000).unref());
      }
    }
  };

  const recheck = setInterval(() => {
    for (const streams of byKey.values()) {
      const group = [...streams];
      void group[0]?.subscription.recheck?.().catch((error: unknown) => {
        for (const stream of group) target.signedOut(stream, shapeOf(error));
      });
    }
  }, RECHECK_MS);
  recheck.unref();

  return {
    watch(stream) {
      const { reader } = stream.subscription;
      if (reader.kind === 'key') {
        const set = byKey.get(reader.keyId);
        if (set) set.add(stream);
        else byKey.set(reader.keyId, new Set([stream]));
        return;
      }
      const set = byUser.get(reader.userId);
      if (set) set.add(stream);
      else byUser.set(reader.userId, new Set([stream]));
      running ??= loop().finally(() => {
        running = undefined;
      });
    },
    forget(stream) {
      const { reader } = stream.subscription;
      if (reader.kind === 'key') {
        const set = byKey.get(reader.keyId);
        set?.delete(stream);
        if (set?.size === 0) byKey.delete(reader.keyId);
        return;
      }
      const set = byUser.get(reader.userId);
      set?.delete(stream);
      if (set?.size === 0) byUser.delete(reader.userId);
    },
    async stop() {
      clearInterval(recheck);
      stopping.abort();
      await running;
    },
  };
}
