/**
 * Cursor paging of GET /providers and GET /me/following, over REST and tRPC: for every sort and
 * order a walk by cursor visits each provider once, in the order of the page walk; while
 * follows change counts during a walk, no provider whose sort key stayed put is skipped or
 * repeated; the contract's 400s for page + cursor, malformed, tampered, foreign (another sort,
 * order, listing or user) cursors. Ties are made on purpose (equal follower counts, names and
 * creation instants down to the microsecond). PostgreSQL in full, the main walks on PGlite.
 */
import { PROVIDER_SORT_FIELDS } from '@signal/core';
import type { Backend } from '@signal/test-support';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  evmWallet,
  expectError,
  signIn,
  signInUsers,
  type TestApi,
  trpcClient,
  trpcFailure,
  useApi,
} from '../harness.js';
import { addTies, expectEachOnce, ORDERS, walkByCursor, walkByPage } from '../paging.js';

/** The ids of `GET /providers?<query>` walked by page number. */
const walkIdsByPage = async (api: TestApi, query: string, limit: number) =>
  (await walkByPage(api, query, limit)).map((p) => p.id);

/** Every sort the catalogue takes (the four of Version 1 and the seven figure sorts), in both orders. */
async function checkEveryWalk(api: TestApi) {
  const trpc = trpcClient(api);
  expect(PROVIDER_SORT_FIELDS).toHaveLength(11);
  for (const sortBy of PROVIDER_SORT_FIELDS) {
    for (const order of ORDERS) {
      const where = `${sortBy} ${order}`;
      const expected = await walkIdsByPage(api, `sortBy=${sortBy}&order=${order}`, 7);
      expect(new Set(expected).size, where).toBe(expected.length);
      // REST: the first page names the sort; later pages send the cursor alone, or with the same sort.
      let alone = true;
      const rest = await walkByCursor(async (cursor) => {
        const query = cursor === null || !alone ? `sortBy=${sortBy}&order=${order}&` : '';
        alone = !alone;
        const reply = await call(api, 'GET', `/providers?${query}limit=7${cursor ? `&cursor=${cursor}` : ''}`);
        expect(reply.status, where).toBe(200);
        return reply.body;
      });
      expect(
        rest.flat().map((p) => p.id),
        where,
      ).toEqual(expected);
      const overTrpc = await walkByCursor(
        (cursor) =>
          trpc.providers.list.query(cursor === null ? { sortBy, order, limit: 7 } : { cursor, limit: 7 }) as never,
      );
      expect(
        overTrpc.flat().map((p) => p.id),
        where,
      ).toEqual(expected);
    }
  }
  // Past the end: a last page's nextCursor is null; a limit that divides the total exactly ends
  // with an empty page whose nextCursor is null too.
  const total = (await call(api, 'GET', '/providers')).body.total as number;
  const exact = await walkByCursor(async (cursor) => {
    const reply = await call(api, 'GET', `/providers?limit=${total}${cursor ? `&cursor=${cursor}` : ''}`);
    return reply.body;
  });
  expect(exact.map((items) => items.length)).toEqual([total]);
}

/**
 * Follows and unfollows between pages move some providers in the followerCount order; every
 * provider whose count never changed during the walk is seen exactly once, in order.
 */
async function checkWalkWhileCountsChange(api: TestApi, tokens: string[]) {
  for (const order of ORDERS) {
    const ids = (await walkIdsByPage(api, 'sortBy=id&order=asc', 100)).slice(0, 30);
    const touched = new Set<number>();
    let step = 0;
    const pages = await walkByCursor(
      async (cursor) =>
        (
          await call(
            api,
            'GET',
            `/providers?sortBy=followerCount&order=${order}&limit=6${cursor ? `&cursor=${cursor}` : ''}`,
          )
        ).body,
      async () => {
        // Each step: two users follow two providers and one unfollows an earlier one.
        for (const token of tokens) {
          const id = ids[(step * 7 + tokens.indexOf(token) * 3) % ids.length] as number;
          touched.add(id);
          expect((await call(api, 'POST', `/providers/${id}/follow`, { token })).status).toBe(200);
        }
        const back = ids[(step * 5) % ids.length] as number;
        touched.add(back);
        expect((await call(api, 'DELETE', `/providers/${back}/follow`, { token: tokens[0] })).status).toBe(200);
        step += 1;
      },
    );
    const seen = pages.flat();
    const all = await walkIdsByPage(api, 'sortBy=id&order=asc', 100);
    const untouched = all.filter((id) => !touched.has(id));
    expect(touched.size).toBeGreaterThan(3);
    expectEachOnce(
      seen,
      untouched.map((id) => ({ id })),
      (p) => `${order} ${p.id}`,
    );
    // The untouched ones come in the order of their (unchanged) counts, ties by id.
    const keys = seen.filter((p) => !touched.has(p.id)).map((p) => [p.followerCount, p.id] as const);
    const sorted = [...keys].sort((a, b) => (a[0] - b[0] || a[1] - b[1]) * (order === 'asc' ? 1 : -1));
    expect(keys).toEqual(sorted);
  }
}

async function checkRefusals(api: TestApi, token: string, otherToken: string) {
  const first = await call(api, 'GET', '/providers?sortBy=name&order=asc&limit=3');
  const cursor = first.body.nextCursor as string;
  expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
  const [payload, mac] = cursor.split('.') as [string, string];
  const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
  // A cursor for another position, forged by re-encoding the payload without the key.
  const forged = `${Buffer.from(JSON.stringify(['providers', 'name', 'asc', 'Z', 1])).toString('base64url')}.${mac}`;
  const cases: [string, string][] = [
    [`/providers?cursor=${cursor}&page=2`, 'page'],
    [`/providers?cursor=${cursor}&page=1`, 'page'],
    [`/providers?cursor=${cursor}&sortBy=id`, 'cursor'],
    [`/providers?cursor=${cursor}&sortBy=name&order=desc`, 'cursor'],
    [`/providers?cursor=${flip(payload, 5)}.${mac}`, 'cursor'],
    [`/providers?cursor=${payload}.${flip(mac, 3)}`, 'cursor'],
    [`/providers?cursor=${forged}`, 'cursor'],
    [`/providers?cursor=${payload}`, 'cursor'],
    ['/providers?cursor=not-a-cursor', 'cursor'],
    ['/providers?cursor=', 'cursor'],
    [`/providers?cursor=${'a'.repeat(1100)}.${mac}`, 'cursor'],
    [`/me/following?cursor=${cursor}`, 'cursor'],
  ];
  for (const [path, field] of cases) {
    const error = expectError(await call(api, 'GET', path, { token }), 400, 'VALIDATION_ERROR');
    expect(
      error.issues?.map((issue) => issue.path[0]),
      path,
    ).toContain(field);
  }
  // A following cursor is bound to its user, and not a catalogue cursor.
  const trpc = trpcClient(api, token);
  for (const id of [1, 2, 3]) await trpc.providers.follow.mutate({ id });
  const mine = await trpc.me.following.query({ limit: 1 });
  expect(mine.nextCursor).not.toBeNull();
  expect((await trpc.me.following.query({ cursor: mine.nextCursor as string, limit: 1 })).items).toHaveLength(1);
  expectError(
    await call(api, 'GET', `/me/following?cursor=${mine.nextCursor}`, { token: otherToken }),
    400,
    'VALIDATION_ERROR',
  );
  expectError(await call(api, 'GET', `/providers?cursor=${mine.nextCursor}`), 400, 'VALIDATION_ERROR');
  // Over tRPC the same code, typed.
  const failure = await trpcFailure(trpc.providers.list.query({ cursor, page: 2 }));
  expect(failure.data?.code).toBe('VALIDATION_ERROR');
  expect(failure.data?.httpStatus).toBe(400);
  const tampered = await trpcFailure(trpc.providers.list.query({ cursor: `${payload}.${flip(mac, 0)}` }));
  expect(tampered.data?.code).toBe('VALIDATION_ERROR');
  for (const id of [1, 2, 3]) await trpc.providers.unfollow.mutate({ id });
}

async function checkFollowingWalk(api: TestApi) {
  const { token } = await signIn(api, evmWallet());
  const ids = [5, 2, 9, 11, 3, 7, 1];
  for (const id of ids) expect((await call(api, 'POST', `/providers/${id}/follow`, { token })).status).toBe(200);
  // Two follows at the same instant: ties by provider id.
  await sql`update follows set created_at = timestamptz '2026-03-04 05:06:07.654321+00' where provider_id in (2, 9)`.execute(
    api.db.db,
  );
  const byPage: number[] = [];
  for (let page = 1; page <= 3; page += 1) {
    byPage.push(
      ...(await call(api, 'GET', `/me/following?limit=3&page=${page}`, { token })).body.items.map(
        (p: { id: number }) => p.id,
      ),
    );
  }
  expect([...byPage].sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
  const trpc = trpcClient(api, token);
  for (const transport of ['rest', 'trpc'] as const) {
    const pages = await walkByCursor(async (cursor) =>
      transport === 'rest'
        ? (await call(api, 'GET', `/me/following?limit=3${cursor ? `&cursor=${cursor}` : ''}`, { token })).body
        : ((await trpc.me.following.query(cursor ? { cursor, limit: 3 } : { limit: 3 })) as never),
    );
    expect(
      pages.flat().map((p) => p.id),
      transport,
    ).toEqual(byPage);
  }
  // An unfollow and a new follow during the walk: the others are each seen once.
  const seen: number[] = [];
  let changed = false;
  await walkByCursor(
    async (cursor) => {
      const body = (await call(api, 'GET', `/me/following?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { token }))
        .body;
      seen.push(...body.items.map((p: { id: number }) => p.id));
      return body;
    },
    async () => {
      if (changed) return;
      changed = true;
      await call(api, 'DELETE', `/providers/${byPage[4]}/follow`, { token });
      await call(api, 'POST', '/providers/20/follow', { token });
    },
  );
  for (const id of byPage.filter((id) => id !== byPage[4])) expect(seen.filter((s) => s === id)).toHaveLength(1);
  for (const id of [...ids, 20]) await call(api, 'DELETE', `/providers/${id}/follow`, { token });
}

/** The block's server: `seed` providers plus the ties (addTies), and three users signed in. */
function useTiedCatalogue(backend: Backend, seed: number) {
  const api = useApi(backend, { env: { SEED_PROVIDERS: String(seed) } });
  const tokens: string[] = [];
  beforeAll(async () => {
    await addTies(api);
    tokens.push(...(await signInUsers(api, 3)));
  });
  return { api, tokens };
}

describe('cursor paging on postgres', () => {
  const { api, tokens } = useTiedCatalogue('postgres', 40);

  it('every sort and order: a cursor walk visits each provider once, in the page walk order (REST and tRPC)', async () => {
    await checkEveryWalk(api);
  });

  it('while follows change counts, no provider whose count stayed put is skipped or repeated', async () => {
    await checkWalkWhileCountsChange(api, tokens);
  });

  it('page + cursor, malformed, tampered, forged and foreign cursors → 400 VALIDATION_ERROR', async () => {
    await checkRefusals(api, tokens[0] as string, tokens[1] as string);
  });

  it('/me/following by cursor: the page walk order, bound to its user, stable under changes', async () => {
    await checkFollowingWalk(api);
  });
});

describe('cursor paging on pglite', () => {
  const { api, tokens } = useTiedCatalogue('pglite', 25);

  it('walks, walks under changing counts, refusals, /me/following', async () => {
    await checkEveryWalk(api);
    await checkWalkWhileCountsChange(api, tokens);
    await checkRefusals(api, tokens[0] as string, tokens[1] as string);
    await checkFollowingWalk(api);
  });
});
