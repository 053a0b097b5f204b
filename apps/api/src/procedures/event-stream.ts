/**
 * The tRPC subscription `events.stream` (`events:read`, server-sent events): the feed's events
 * with their id as tRPC's tracked id, from now on or right after `lastEventId`, by feed position,
 * so a resumed stream has nothing lost and nothing repeated (docs/events.md, "The tRPC stream").
 *
 * Where it starts is settled before the stream opens (the resolver awaits it before it returns
 * the iterator; http/trpc-stream.ts answers a refusal before any stream), so an event committed
 * after a client saw the stream connect is in it. Its pages come from the process's feed pump
 * (ctx.services.feed), which reads each new page once for every stream: a waiting stream costs
 * the database nothing per burst. Only a stream behind the pump's window (resuming from an old
 * id) reads its own pages, until it has caught up. Its key is checked again every
 * CREDENTIAL_RECHECK_MS: a revoked key's stream ends with UNAUTHORIZED, as its next request would.
 */
import { DomainError, type Event, type EventType, type Scope } from '@signal/core';
import { eventPosition, feedHead, readFeedAfter } from '@signal/db';
import { type TrackedEnvelope, tracked } from '@trpc/server';
import type { Context } from './context.js';
import { bearerToken, resolveServiceCredential, unknownServiceKey } from './service-credential.js';

const PAGE = 100;
const CREDENTIAL_RECHECK_MS = 30_000;
/** Streams open in this process (the metric signal_events_streams_open). */
let open = 0;
export const openStreams = () => open;

export async function openEventStream(
  ctx: Context & { releaseStream: () => void },
  input: { lastEventId?: string | null | undefined; types?: EventType[] | undefined },
  scope: Scope,
  signal: AbortSignal | undefined,
) {
  const { services } = ctx;
  const { db } = services.database;
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
    // From now on: the head the pump last read (anything numbered later is after it).
    after = services.feed.head() ?? (await feedHead(db));
  }
  const token = bearerToken(ctx.req);
  const wanted = input.types ? new Set<string>(input.types) : undefined;

  return (async function* stream(): AsyncGenerator<TrackedEnvelope<Event>> {
    open += 1;
    let checkedAt = Date.now();
    try {
      while (!signal?.aborted) {
        const sinceCheck = Date.now() - checkedAt;
        if (sinceCheck >= CREDENTIAL_RECHECK_MS) {
          await recheck(ctx, token, scope);
          checkedAt = Date.now();
        }
        const next = await services.feed.eventsAfter(after, {
          signal,
          maxWaitMs: Math.max(1, CREDENTIAL_RECHECK_MS - sinceCheck),
        });
        // A stopped pump: the server is stopping, and its stop ends the connection.
        if (next === 'stopped') return;
        const page = Array.isArray(next) ? next : await readFeedAfter(db, after, PAGE);
        // Behind the window with nothing left to read before it: read on from the window.
        if (!Array.isArray(next) && page.length === 0) after = next.behind;
        for (const { position, event } of page) {
          if (!wanted || wanted.has(event.type)) yield tracked(event.id, event);
          after = position;
        }
      }
    } finally {
      open -= 1;
      ctx.releaseStream();
    }
  })();
}

async function recheck(ctx: Context, token: string, scope: Scope): Promise<void> {
  const key = await resolveServiceCredential(ctx.services, token);
  if (key === 'unknown' || key === 'not-a-key') throw unknownServiceKey();
  if (!key.scopes.includes(scope)) throw new DomainError('FORBIDDEN', `This service key lacks the scope ${scope}`);
}
