import { CursorPageQuerySchema, FollowedProviderPageSchema, UserSchema } from '@signal/core';
import * as examples from '@signal/core/examples';
import { findUserById, listFollowing } from '@signal/db';
import { z } from 'zod';
import { resolvePaging } from '../paging.js';
import { signedInRead } from '../route-meta.js';
import { authedProcedure, router, walletNotFound } from '../trpc.js';

export const meRouter = router({
  get: authedProcedure
    .meta(
      signedInRead({
        path: '/me',
        tags: ['me'],
        summary: 'The signed-in user',
        description:
          'The user the bearer token was issued to, with the number of providers it follows. ' +
          '404 `WALLET_NOT_FOUND` if the token is valid but its user no longer exists.',
        example: { response: examples.user },
      }),
    )
    .input(z.void())
    .output(UserSchema)
    .query(async ({ ctx }) => {
      const user = await findUserById(ctx.services.database.db, ctx.auth.userId);
      if (!user) throw walletNotFound();
      return user;
    }),

  following: authedProcedure
    .meta(
      signedInRead({
        path: '/me/following',
        tags: ['me'],
        summary: 'Providers the signed-in user follows',
        description:
          'A page of the providers the signed-in user follows, newest follow first; each item is a provider ' +
          'with `followedAt`. Past the last page the items are empty. Instead of `page`, `cursor` takes the ' +
          '`nextCursor` of an earlier page (`page` is then null).',
        example: { request: { page: 1, limit: 20 }, response: examples.followingPage },
      }),
    )
    .input(CursorPageQuerySchema)
    .output(FollowedProviderPageSchema)
    .query(async ({ input, ctx }) => {
      // A cursor is bound to its user: another user's is refused like a forged one.
      const paging = resolvePaging(
        ctx.services.cursors,
        `following:${ctx.auth.userId}`,
        input,
        { sortBy: 'followedAt', order: 'desc' },
        () => 'string',
      );
      const page = await listFollowing(ctx.services.database.db, { ...paging, userId: ctx.auth.userId });
      if (page === 'user-not-found') throw walletNotFound();
      return page;
    }),
});
