import {
  DomainError,
  RevokedSessionSchema,
  SessionIdParamsSchema,
  SessionListQuerySchema,
  SessionPageSchema,
} from '@signal/core';
import * as examples from '@signal/core/examples';
import { listSessions, revokeSession } from '@signal/db';
import { resolvePaging } from '../paging.js';
import { signedInRead } from '../route-meta.js';
import { authedProcedure, router } from '../trpc.js';

/** The signed-in user's sessions: one per sign-in, each with its own token. */
export const sessionsRouter = router({
  list: authedProcedure
    .meta(
      signedInRead({
        path: '/me/sessions',
        tags: ['me'],
        summary: "The signed-in user's sessions",
        description:
          'A page of the live sessions (not signed out, not expired) of the signed-in user, newest first: one per ' +
          'sign-in, with the user agent and client address it started from. `current` marks the session of the ' +
          'token making this request. `lastUsedAt` is written at most once a minute, so it may lag by up to 60 s. ' +
          'Instead of `page`, `cursor` takes the `nextCursor` of an earlier page.',
        example: { request: { page: 1, limit: 20 }, response: examples.sessionPage },
      }),
    )
    .input(SessionListQuerySchema)
    .output(SessionPageSchema)
    .query(({ input, ctx }) => {
      const { userId, sessionId } = ctx.auth;
      // Bound to its user like the following cursor: another user's is refused as forged.
      const paging = resolvePaging(
        ctx.services.cursors,
        `sessions:${userId}`,
        input,
        { sortBy: 'createdAt', order: 'desc' },
        () => 'string',
      );
      return listSessions(ctx.services.database.db, {
        ...paging,
        userId,
        currentId: sessionId,
        now: ctx.services.now(),
      });
    }),

  revoke: authedProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/me/sessions/{id}',
        tags: ['me'],
        summary: 'Sign out one session',
        description:
          "Ends one of the signed-in user's sessions: its token answers 401 `SESSION_REVOKED` from the next request " +
          'on, on every server. Repeating it gives the same answer. Ending the current session signs this token ' +
          'out too. A session of another user, or an unknown id, is 404 `SESSION_NOT_FOUND`.',
        protect: true,
        example: { request: { id: examples.session.id }, response: { id: examples.session.id, revoked: true } },
      },
      errors: ['SESSION_NOT_FOUND', 'WALLET_NOT_FOUND'],
    })
    .input(SessionIdParamsSchema)
    .output(RevokedSessionSchema)
    .mutation(async ({ input, ctx }) => {
      const revoked = await revokeSession(ctx.services.database.db, {
        sessionId: input.id,
        userId: ctx.auth.userId,
        now: ctx.services.now(),
      });
      if (!revoked) throw sessionNotFound(input.id);
      return { id: input.id, revoked: true as const };
    }),
});

/** The signed-in user has no session `id` (unknown, or another user's). */
export const sessionNotFound = (id: string) => new DomainError('SESSION_NOT_FOUND', `you have no session ${id}`);
