import { beforeAll, describe, expect, it } from 'vitest';
import { call, evmWallet, expectError, signIn, solanaWallet, trpcClient, trpcFailure, useApi } from '../harness.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const api = useApi('postgres', { env: { SEED_PROVIDERS: '12' } });
let providerIds: number[];

beforeAll(async () => {
  const list = await call(api, 'GET', '/providers?limit=100&sortBy=id&order=asc');
  providerIds = list.body.items.map((p: { id: number }) => p.id);
});

async function followerCount(id: number): Promise<number> {
  const reply = await call(api, 'GET', `/providers/${id}`);
  expect(reply.status).toBe(200);
  return reply.body.followerCount;
}

async function followRows(where: { providerId?: number; userId?: number }) {
  let query = api.db.db.selectFrom('follows').select(['user_id', 'provider_id', 'created_at']);
  if (where.providerId !== undefined) query = query.where('provider_id', '=', where.providerId);
  if (where.userId !== undefined) query = query.where('user_id', '=', where.userId);
  return query.execute();
}

describe('follow and unfollow over REST', () => {
  it('follow → following with n+1; repeating changes nothing; unfollow → n; repeating changes nothing', async () => {
    const { token, user } = await signIn(api, evmWallet());
    const id = providerIds[0]!;
    const n = await followerCount(id);
    expect((await followRows({ providerId: id })).length).toBe(n);

    const follow = await call(api, 'POST', `/providers/${id}/follow`, { token });
    expect(follow.status).toBe(200);
    expect(follow.body).toEqual({ providerId: id, following: true, followerCount: n + 1 });
    const [row] = await followRows({ providerId: id, userId: user.id });
    expect(row).toBeDefined();

    api.advanceClock(1000);
    const again = await call(api, 'POST', `/providers/${id}/follow`, { token });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(follow.body);
    expect(await followerCount(id)).toBe(n + 1);
    expect((await followRows({ providerId: id })).length).toBe(n + 1);
    // The repeat is not a new follow: the original followedAt stands.
    const [rowAfter] = await followRows({ providerId: id, userId: user.id });
    expect(rowAfter!.created_at.getTime()).toBe(row!.created_at.getTime());

    const unfollow = await call(api, 'DELETE', `/providers/${id}/follow`, { token });
    expect(unfollow.status).toBe(200);
    expect(unfollow.body).toEqual({ providerId: id, following: false, followerCount: n });
    const unfollowAgain = await call(api, 'DELETE', `/providers/${id}/follow`, { token });
    expect(unfollowAgain.status).toBe(200);
    expect(unfollowAgain.body).toEqual(unfollow.body);
    expect(await followerCount(id)).toBe(n);
    expect((await followRows({ providerId: id })).length).toBe(n);
    expect(await followRows({ providerId: id, userId: user.id })).toEqual([]);
  });

  it('unfollowing a provider never followed answers following:false with the count unchanged', async () => {
    const { token } = await signIn(api, solanaWallet());
    const id = providerIds[1]!;
    const n = await followerCount(id);
    const reply = await call(api, 'DELETE', `/providers/${id}/follow`, { token });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ providerId: id, following: false, followerCount: n });
  });

  it('GET /me/following: newest follow first with followedAt, page envelope and paging; /me counts them', async () => {
    const { token, user } = await signIn(api, evmWallet());
    const [a, b, c] = [providerIds[2]!, providerIds[5]!, providerIds[3]!];
    for (const id of [a, b, c]) {
      const reply = await call(api, 'POST', `/providers/${id}/follow`, { token });
      expect(reply.status).toBe(200);
      api.advanceClock(1000);
    }

    const page = await call(api, 'GET', '/me/following', { token });
    expect(page.status).toBe(200);
    expect(Object.keys(page.body).sort()).toEqual(['items', 'limit', 'nextCursor', 'page', 'total', 'totalPages']);
    expect(page.body).toMatchObject({ page: 1, limit: 20, total: 3, totalPages: 1 });
    expect(page.body.items.map((p: { id: number }) => p.id)).toEqual([c, b, a]);
    const rows = new Map((await followRows({ userId: user.id })).map((row) => [Number(row.provider_id), row]));
    for (const item of page.body.items) {
      const { followedAt, ...provider } = item;
      expect(followedAt).toMatch(ISO);
      expect(Date.parse(followedAt)).toBe(rows.get(item.id)!.created_at.getTime());
      expect(provider).toEqual((await call(api, 'GET', `/providers/${item.id}`)).body);
    }
    const times = page.body.items.map((p: { followedAt: string }) => Date.parse(p.followedAt));
    expect(times[0] - times[1]).toBeGreaterThanOrEqual(1000);
    expect(times[1] - times[2]).toBeGreaterThanOrEqual(1000);

    const first = await call(api, 'GET', '/me/following?limit=2', { token });
    expect(first.body).toMatchObject({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(first.body.items.map((p: { id: number }) => p.id)).toEqual([c, b]);
    const second = await call(api, 'GET', '/me/following?limit=2&page=2', { token });
    expect(second.body).toMatchObject({ page: 2, limit: 2, total: 3, totalPages: 2 });
    expect(second.body.items.map((p: { id: number }) => p.id)).toEqual([a]);
    expect([...first.body.items, ...second.body.items]).toEqual(page.body.items);
    const past = await call(api, 'GET', '/me/following?limit=2&page=3', { token });
    expect(past.status).toBe(200);
    expect(past.body).toEqual({ items: [], page: 3, limit: 2, total: 3, totalPages: 2, nextCursor: null });

    const me = await call(api, 'GET', '/me', { token });
    expect(me.status).toBe(200);
    expect(me.body.followingCount).toBe(3);

    // Unfollow the middle one: gone from the list and the count.
    expect((await call(api, 'DELETE', `/providers/${b}/follow`, { token })).status).toBe(200);
    const afterUnfollow = await call(api, 'GET', '/me/following', { token });
    expect(afterUnfollow.body).toMatchObject({ total: 2, totalPages: 1 });
    expect(afterUnfollow.body.items.map((p: { id: number }) => p.id)).toEqual([c, a]);
    expect((await call(api, 'GET', '/me', { token })).body.followingCount).toBe(2);

    // Following again after the unfollow is a new follow: a later followedAt, first in the list.
    const previous = Date.parse(page.body.items[1].followedAt);
    api.advanceClock(1000);
    const refollow = await call(api, 'POST', `/providers/${b}/follow`, { token });
    expect(refollow.status).toBe(200);
    expect(refollow.body.following).toBe(true);
    const afterRefollow = await call(api, 'GET', '/me/following', { token });
    expect(afterRefollow.body.items.map((p: { id: number }) => p.id)).toEqual([b, c, a]);
    const followedAgainAt = Date.parse(afterRefollow.body.items[0].followedAt);
    expect(followedAgainAt).toBeGreaterThan(previous);
    expect(followedAgainAt).toBeGreaterThan(Date.parse(afterRefollow.body.items[1].followedAt));
    expect((await call(api, 'GET', '/me', { token })).body.followingCount).toBe(3);
  });

  it('signing in again answers the user with the follows it has (followingCount), like /me', async () => {
    const wallet = evmWallet();
    const { token } = await signIn(api, wallet);
    for (const id of providerIds.slice(0, 2)) {
      expect((await call(api, 'POST', `/providers/${id}/follow`, { token })).status).toBe(200);
    }
    const again = await signIn(api, wallet);
    expect((again.user as { followingCount?: number }).followingCount).toBe(2);
    expect((await call(api, 'GET', '/me', { token: again.token })).body.followingCount).toBe(2);
  });

  it('a new user follows nothing: empty page, followingCount 0', async () => {
    const { token, user } = await signIn(api, evmWallet());
    expect((user as { followingCount?: number }).followingCount).toBe(0);
    const page = await call(api, 'GET', '/me/following', { token });
    expect(page.status).toBe(200);
    expect(page.body).toEqual({ items: [], page: 1, limit: 20, total: 0, totalPages: 0, nextCursor: null });
  });

  // Every protected procedure's 401s (no token, garbage, expired, revoked; REST and tRPC) are
  // checked from the router's meta in protected.test.ts; here, only that a refusal writes nothing.
  it('a follow or unfollow refused for want of a token changes no follower count', async () => {
    const id = providerIds[0]!;
    const before = await followerCount(id);
    expectError(await call(api, 'POST', `/providers/${id}/follow`), 401, 'UNAUTHORIZED');
    expectError(await call(api, 'DELETE', `/providers/${id}/follow`), 401, 'UNAUTHORIZED');
    expect(await followerCount(id)).toBe(before);
  });

  it('an empty body with Content-Type application/json is accepted on follow and unfollow', async () => {
    const { token } = await signIn(api, evmWallet());
    const id = providerIds[4]!;
    const n = await followerCount(id);
    const json = { 'content-type': 'application/json' };
    const follow = await call(api, 'POST', `/providers/${id}/follow`, { token, rawBody: '', headers: json });
    expect(follow.status).toBe(200);
    expect(follow.body).toEqual({ providerId: id, following: true, followerCount: n + 1 });
    const unfollow = await call(api, 'DELETE', `/providers/${id}/follow`, { token, rawBody: '', headers: json });
    expect(unfollow.status).toBe(200);
    expect(unfollow.body).toEqual({ providerId: id, following: false, followerCount: n });
    // No Content-Type and no body at all: also fine.
    const bare = await call(api, 'POST', `/providers/${id}/follow`, { token });
    expect(bare.body).toEqual({ providerId: id, following: true, followerCount: n + 1 });
    await call(api, 'DELETE', `/providers/${id}/follow`, { token });
  });
});

describe('the same flow over tRPC', () => {
  it('follow, repeat, following, list, unfollow with @trpc/client', async () => {
    const { token } = await signIn(api, evmWallet());
    const trpc = trpcClient(api, token);
    const id = providerIds[6]!;
    const n = await followerCount(id);

    const followed = await trpc.providers.follow.mutate({ id });
    expect(followed).toEqual({ providerId: id, following: true, followerCount: n + 1 });
    expect(await trpc.providers.follow.mutate({ id })).toEqual(followed);

    const following = await trpc.me.following.query({});
    expect(following).toMatchObject({ page: 1, limit: 20, total: 1, totalPages: 1 });
    expect(following.items).toHaveLength(1);
    expect(following.items[0]).toMatchObject({ id, followerCount: n + 1, followedAt: expect.stringMatching(ISO) });
    // Same shapes as REST.
    const rest = await call(api, 'GET', '/me/following', { token });
    expect(following).toEqual(rest.body);
    expect((await trpc.me.get.query()).followingCount).toBe(1);

    const list = await trpc.providers.list.query({ limit: 5 });
    expect(list).toMatchObject({
      page: 1,
      limit: 5,
      total: providerIds.length,
      totalPages: Math.ceil(providerIds.length / 5),
    });
    expect(list.items).toHaveLength(5);
    expect(list).toEqual((await call(api, 'GET', '/providers?limit=5')).body);

    const unfollowed = await trpc.providers.unfollow.mutate({ id });
    expect(unfollowed).toEqual({ providerId: id, following: false, followerCount: n });
    expect(await trpc.providers.unfollow.mutate({ id })).toEqual(unfollowed);
    expect((await trpc.me.following.query({})).total).toBe(0);
    expect(await followerCount(id)).toBe(n);
  });

  it('contract codes in error.data.code: no token, unknown provider', async () => {
    const anonymous = await trpcFailure(trpcClient(api).providers.follow.mutate({ id: providerIds[0]! }));
    expect(anonymous.data?.code).toBe('UNAUTHORIZED');
    expect(anonymous.data?.httpStatus).toBe(401);
    const { token } = await signIn(api, evmWallet());
    const unknown = await trpcFailure(trpcClient(api, token).providers.follow.mutate({ id: 999_999 }));
    expect(unknown.data?.code).toBe('PROVIDER_NOT_FOUND');
    expect(unknown.data?.httpStatus).toBe(404);
  });
});

describe('concurrency', () => {
  it('20 users racing follows and unfollows: followerCount equals the follow rows and the expected figure', async () => {
    const id = providerIds[7]!;
    const initial = (await followRows({ providerId: id })).length;
    expect(await followerCount(id)).toBe(initial);
    const users = await Promise.all(Array.from({ length: 20 }, () => signIn(api, evmWallet())));

    const act = (token: string, method: 'POST' | 'DELETE') =>
      call(api, method, `/providers/${id}/follow`, { token }).then((reply) => {
        expect(reply.status).toBe(200);
        expect(reply.body.following).toBe(method === 'POST');
        return reply;
      });
    await Promise.all(
      users.map(async ({ token }, i) => {
        await act(token, 'POST');
        await act(token, 'DELETE');
        await act(token, 'POST');
        if (i % 2 === 1) await act(token, 'DELETE');
      }),
    );
    const expected = initial + 10;
    expect((await followRows({ providerId: id })).length).toBe(expected);
    expect(await followerCount(id)).toBe(expected);
    expect((await call(api, 'GET', `/providers/${id}/stats`)).body.followerCount).toBe(expected);

    // The same user repeating a follow concurrently still makes one follow.
    const first = users[1]!.token;
    const replies = await Promise.all(Array.from({ length: 8 }, () => act(first, 'POST')));
    for (const reply of replies) {
      expect(reply.body).toEqual({ providerId: id, following: true, followerCount: expected + 1 });
    }
    expect((await followRows({ providerId: id })).length).toBe(expected + 1);
    expect(await followerCount(id)).toBe(expected + 1);
    await Promise.all(Array.from({ length: 8 }, () => act(first, 'DELETE')));
    expect((await followRows({ providerId: id })).length).toBe(expected);
    expect(await followerCount(id)).toBe(expected);
  });
});

describe('deleting a user', () => {
  it('removes its follows, lowers the counts, and its token then gets 404 WALLET_NOT_FOUND', async () => {
    const { token, user } = await signIn(api, evmWallet());
    const [p, q] = [providerIds[8]!, providerIds[9]!];
    await call(api, 'POST', `/providers/${p}/follow`, { token });
    await call(api, 'POST', `/providers/${q}/follow`, { token });
    const [countP, countQ] = [await followerCount(p), await followerCount(q)];
    expect((await followRows({ userId: user.id })).length).toBe(2);

    await api.db.db.deleteFrom('users').where('id', '=', user.id).execute();

    expect(await followRows({ userId: user.id })).toEqual([]);
    expect(await followerCount(p)).toBe(countP - 1);
    expect(await followerCount(q)).toBe(countQ - 1);
    expect((await followRows({ providerId: p })).length).toBe(countP - 1);
    expect((await call(api, 'GET', `/providers/${q}/stats`)).body.followerCount).toBe(countQ - 1);

    expectError(await call(api, 'GET', '/me', { token }), 404, 'WALLET_NOT_FOUND');
    expectError(await call(api, 'GET', '/me/following', { token }), 404, 'WALLET_NOT_FOUND');
    expectError(await call(api, 'POST', `/providers/${p}/follow`, { token }), 404, 'WALLET_NOT_FOUND');
    expectError(await call(api, 'DELETE', `/providers/${p}/follow`, { token }), 404, 'WALLET_NOT_FOUND');
    // The failed follow wrote nothing.
    expect(await followerCount(p)).toBe(countP - 1);
    expect(await followRows({ userId: user.id })).toEqual([]);
    const trpcError = await trpcFailure(trpcClient(api, token).providers.follow.mutate({ id: p }));
    expect(trpcError.data?.code).toBe('WALLET_NOT_FOUND');
  });
});
