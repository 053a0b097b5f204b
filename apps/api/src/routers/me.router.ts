import { DomainError, FollowedProviderPageSchema, PageQuerySchema, UserSchema } from '@signal/core';
import { findUserById, listFollowing } from '@signal/db';
import { z } from 'zod';
import { authedProcedure, router } from '../trpc.js';

export const walletNotFound = () =>
  new DomainError('WALLET_NOT_FOUND', 'the user of this token no longer exists; sign in again');

export const meRouter = router({
  get: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/me',
        tags: ['me'],
        summary: 'The signed-in user',
        protect: true,
      },
    })
    .input(z.void())
    .output(UserSchema)
    .query(async ({ ctx }) => {
      const user = await findUserById(ctx.services.database.db, ctx.auth.userId);
      if (!user) throw walletNotFound();
      return user;
    }),

  following: authedProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/me/following',
        tags: ['me'],
        summary: 'Providers the signed-in user follows',
        description: 'Newest follow first; each item carries followedAt.',
        protect: true,
      },
    })
    .input(PageQuerySchema)
    .output(FollowedProviderPageSchema)
    .query(async ({ input, ctx }) => {
      const page = await listFollowing(ctx.services.database.db, { ...input, userId: ctx.auth.userId });
      if (page === 'user-not-found') throw walletNotFound();
      return page;
    }),
});
