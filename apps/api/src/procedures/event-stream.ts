/**
 * The tRPC subscription `events.stream` (`events:read`, server-sent events): the feed's events
 * with their id as tRPC's tracked id, from now on or right after `lastEventId`, read from the
 * feed by position (readFeed), so a resumed stream has nothing lost and nothing repeated
 * (docs/events.md, "The tRPC stream").
 *
 * Where it starts is settled before the stream opens (the resolver awaits it before it returns
 * the iterator), so an event committed after a client saw the stream connect is in it. Between
 * pages it waits on the process's feed watcher (feed-watcher.ts). Its key is checked again every
 * CREDENTIAL_RECHECK_MS: a revoked key's stream ends with UNAUTHORIZED, as its next request would.
 */
import { DomainError, type Event, type EventType, type Scope } from '@signal/core';
import { eventPosition, feedHead, readFeed, sequenceEvents } from '@signal/db';
import { type TrackedEnvelope, tracked } from '@trpc/server';
import type { Context } from './context.js';
import type { FeedWatcher } from './feed-watcher.js';
import { bearerToken, resolveServiceCredential, unknownServiceKey } from './service-credential.js';

const PAGE = 100;
const CREDENTIAL_RECHECK_MS = 30_000;
/** Streams open in this process (the metric signal_events_streams_open). */
let open = 0;
export const openStreams = () => open;

export async function openEventStream(
  ctx: Context,
  input: { lastEventId?: string | null | undefined; types?: EventType[] | undefined },
  watcher: FeedWatcher,
  scope: Scope,
  signal: AbortSignal | undefined,
) {
  const { db } = ctx.services.database;
  await sequenceEvents(db);
  let after: string;
  if (input.lastEventId) {
    const position = await eventPosition(db, input.lastEventId);
    if (position === undefined) {
      const message = 'no such event: unknown, not yet in the feed, or older than the retention (EVENT_RETENTION_DAYS)';
      throw new DomainError('VALIDATION_ERROR', `Invalid request: lastEventId: ${message}`, {
        issues: [{ path: ['lastEventId'], message }],
      });
    }
    after = position;
  } else {
    after = await feedHead(db);
  }
  const token = bearerToken(ctx.req);

  return (async function* stream(): AsyncGenerator<TrackedEnvelope<Event>> {
    open += 1;
    let checkedAt = Date.now();
    try {
      while (!signal?.aborted) {
        if (Date.now() - checkedAt >= CREDENTIAL_RECHECK_MS) {
          await recheck(ctx, token, scope);
          checkedAt = Date.now();
        }
        const page = await readFeed(db, { after, limit: PAGE, types: input.types });
        for (const event of page.items) yield tracked(event.id, event);
        after = page.last;
        if (page.items.length < PAGE) {
          // A stopped watcher: the server is stopping, and its stop ends the connection.
          if (!(await watcher.waitBeyond(after, { signal, maxWaitMs: CREDENTIAL_RECHECK_MS }))) return;
        }
      }
    } finally {
      open -= 1;
    }
  })();
}

async function recheck(ctx: Context, token: string, scope: Scope): Promise<void> {
  const key = await resolveServiceCredential(ctx.services, token);
  if (key === 'unknown' || key === 'not-a-key') throw unknownServiceKey();
  if (!key.scopes.includes(scope)) throw new DomainError('FORBIDDEN', `This service key lacks the scope ${scope}`);
}
