/**
 * Who follows a provider, for a fan-out service (`followers:read`): keyset pages by user id
 * with an opaque cursor (CONTRACT.md, "Followers of a provider, for fan-out").
 */
import { DomainError, FollowerPageSchema, FollowersQuerySchema } from '@signal/core';
import * as examples from '@signal/core/examples';
import { type FollowerSlice, listFollowers, listFollowersForKey } from '@signal/db';
import { resolvePaging } from '../paging.js';
import { scopedReadProcedure } from '../service-auth.js';
import { router } from '../trpc.js';

export const followersRouter = router({
  list: scopedReadProcedure('followers:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/providers/{id}/followers',
        tags: ['providers'],
        summary: "A provider's followers (service key)",
        description:
          'A page of the users who follow the provider, by user id ascending, for fanning its signals out. ' +
          'Pass `nextCursor` as `cursor` for the next page; null at the end (a full last page may carry a cursor ' +
          'that leads to an empty page). A walk returns every user who followed before it started and did not ' +
          'unfollow during it exactly once, at the same cost at any depth. `total` is the current follower count. ' +
          'Archived providers answer too. Needs a service key with `followers:read`.',
        protect: true,
        example: { request: { id: 5, limit: 100 }, response: examples.followerPage },
      },
      errors: ['PROVIDER_NOT_FOUND'],
    })
    .input(FollowersQuerySchema)
    .output(FollowerPageSchema)
    .query(async ({ input, ctx }) => {
      // Bound to the provider: another provider's cursor is refused like a forged one.
      const paging = resolvePaging(
        ctx.services.cursors,
        `followers:${input.id}`,
        { limit: input.limit, cursor: input.cursor },
        { sortBy: 'userId', order: 'asc' },
        () => 'number',
      );
      const db = ctx.services.database.db;
      const request = { providerId: input.id, afterUserId: paging.after?.id ?? 0, limit: input.limit };
      // A service key is checked in the page's own statement (one round trip); when that answers
      // nothing, the key's lookup says why (401, 403) or the provider is not there (a plain read).
      const { keyInRead } = ctx;
      let slice: FollowerSlice | undefined;
      if (keyInRead) {
        const found = await listFollowersForKey(db, request, keyInRead);
        if (found) keyInRead.admitted(found.keyId);
        else await keyInRead.check();
        slice = found?.slice;
      } else {
        slice = await listFollowers(db, request);
      }
      if (!slice) throw new DomainError('PROVIDER_NOT_FOUND', `No provider ${input.id}`);
      const last = slice.items.at(-1);
      const full = slice.items.length === input.limit;
      const nextCursor = full && last && paging.seal ? paging.seal({ key: last.userId, id: last.userId }) : null;
      return { items: slice.items, nextCursor, total: slice.total };
    }),
});
