/**
 * The pull feed of events (`events:read`): every committed change, oldest first, exactly once
 * to a consumer that always passes the last `nextCursor` (docs/events.md).
 */
import { EventFeedQuerySchema, EventPageSchema, EventStreamInputSchema } from '@signal/core';
import * as examples from '@signal/core/examples';
import { readFeed } from '@signal/db';
import { openEventStream } from '../event-stream.js';
import { openFeedCursor, sealFeedCursor } from '../feed-cursor.js';
import { scopedProcedure } from '../service-auth.js';
import { holdStreamSlot } from '../stream-slots.js';
import { router } from '../trpc.js';

export const eventsRouter = router({
  feed: scopedProcedure('events:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/events',
        tags: ['events'],
        summary: 'The event feed',
        description:
          'Up to `limit` events after the cursor `after`, oldest first, in commit order. Pass `nextCursor` as `after` ' +
          'to read on: a consumer that always does receives every event exactly once, whichever servers wrote them ' +
          'and in whatever order their transactions ran. `nextCursor` is always present; it is unchanged when no ' +
          'event is new, and with `types` it may move past the events the filter skips. A cursor is valid with any ' +
          '`types` and on every server. Without `after`: from the oldest event kept (`EVENT_RETENTION_DAYS`). ' +
          'Types and payloads: docs/events.md.',
        protect: true,
        example: { request: { limit: 2, types: 'follow.created,session.revoked' }, response: examples.eventPage },
      },
      errors: ['FORBIDDEN'],
    })
    .input(EventFeedQuerySchema)
    .output(EventPageSchema)
    .query(async ({ input, ctx }) => {
      const { database, cursors } = ctx.services;
      const after = input.after === undefined ? '0' : openFeedCursor(cursors, input.after);
      // A reader only reads: the process's feed pump numbers what committed (ops/feed-pump.ts).
      const page = await readFeed(database.db, { after, limit: input.limit, types: input.types });
      return { items: page.items, nextCursor: sealFeedCursor(cursors, page.last) };
    }),
  /**
   * tRPC only (a subscription over server-sent events; served by tRPC's own HTTP handler, see
   * http/trpc-stream.ts): the same events with their id as the tracked id, from now on or right
   * after `lastEventId` (docs/events.md, "The tRPC stream").
   */
  stream: scopedProcedure('events:read')
    .use(holdStreamSlot)
    .meta({ errors: ['FORBIDDEN'] })
    .input(EventStreamInputSchema)
    .subscription(({ input, ctx, signal }) => openEventStream(ctx, input ?? {}, 'events:read', signal)),
});
