/**
 * GET /providers/{id}/followers (CONTRACT.md, "Followers of a provider, for fan-out"): who may
 * call it, paging and its cursor, and a walk of 10,000 followers while others follow and
 * unfollow, which must return every follower that stayed exactly once.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createServiceKey, evmWallet, expectError, signIn, trpcClient, trpcFailure, useApi } from '../harness.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
const FOLLOWERS = 10_000;

interface Item {
  userId: number;
  wallet: string;
  chain: string;
  followedAt: string;
}

describe.each(['postgres', 'pglite'] as const)('followers of a provider on %s', (backend) => {
  const api = useApi(backend, {
    env: { ADMIN_KEY, SEED_PROVIDERS: '0', SERVICE_KEY_RATE_LIMIT_PER_MINUTE: '0' },
  });
  let reader: string;
  let userToken: string;
  /** A provider with FOLLOWERS followers, seeded by SQL; another with a handful. */
  let big: number;
  let small: number;
  let empty: number;
  let followerIds: number[];
  let outsiderIds: number[];

  const page = (providerId: number, query = '', token = reader) =>
    call(api, 'GET', `/providers/${providerId}/followers${query}`, { token });

  beforeAll(async () => {
    const providers = await sql<{ id: number }>`
      insert into providers (name, created_at) values ('big', now()), ('small', now()), ('empty', now()) returning id
    `.execute(api.db.db);
    [big, small, empty] = providers.rows.map((row) => Number(row.id)) as [number, number, number];
    // 1.5 × FOLLOWERS users; two of every three follow the big provider, the third is there to
    // follow during the walk, between the followers' ids.
    const inserted = await sql<{ id: number }>`
      insert into users (wallet, chain, created_at, last_login_at)
      select '0x' || lpad(to_hex(g), 40, '0'), 'evm', now(), now() from generate_series(1, ${FOLLOWERS * 1.5}) g
      returning id
    `.execute(api.db.db);
    const ids = inserted.rows.map((row) => Number(row.id)).sort((a, b) => a - b);
    followerIds = ids.filter((_, i) => i % 3 !== 0);
    outsiderIds = ids.filter((_, i) => i % 3 === 0);
    // As the demo seed does: one count at the end instead of the trigger's update per row (10,000
    // updates of one provider row in one transaction cost seconds).
    await api.db.db.transaction().execute(async (trx) => {
      await sql`alter table follows disable trigger follows_keep_follower_count`.execute(trx);
      await sql`
        insert into follows (user_id, provider_id, created_at)
        select id, ${big}, now() - (id || ' seconds')::interval from unnest(${followerIds}::bigint[]) as id
      `.execute(trx);
      await sql`
        insert into follows (user_id, provider_id) select id, ${small} from unnest(${ids.slice(0, 5)}::bigint[]) as id
      `.execute(trx);
      await sql`
        update providers p set follower_count = (select count(*) from follows f where f.provider_id = p.id)
      `.execute(trx);
    });
    // HTTP after the seeding: on PGlite the seeding holds the event loop (the database runs in
    // this process) longer than the keep-alive timeout, and a connection opened before it would
    // be closed under the next request.
    reader = await createServiceKey(api, ADMIN_KEY, 'fan-out', ['followers:read']);
    userToken = (await signIn(api, evmWallet())).token;
  });

  it('opens to followers:read and ADMIN_KEY only; a user token or another scope is 403, no key 401', async () => {
    expect((await page(small)).status).toBe(200);
    expect((await page(small, '', ADMIN_KEY)).status).toBe(200);
    const other = await createServiceKey(api, ADMIN_KEY, 'writer', [
      'providers:write',
      'stats:write',
      'events:read',
      'webhooks:manage',
      'keys:manage',
    ]);
    expectError(await page(small, '', other), 403, 'FORBIDDEN');
    expectError(await page(small, '', userToken), 403, 'FORBIDDEN');
    const anonymous = await call(api, 'GET', `/providers/${small}/followers`);
    expectError(anonymous, 401, 'UNAUTHORIZED');
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('answers users in id order with their wallet and when they followed; unknown provider 404', async () => {
    const reply = await page(small);
    expect(reply.status).toBe(200);
    const expected = await api.db.db
      .selectFrom('follows as f')
      .innerJoin('users as u', 'u.id', 'f.user_id')
      .select(['u.id', 'u.wallet', 'u.chain', 'f.created_at'])
      .where('f.provider_id', '=', small)
      .orderBy('u.id')
      .execute();
    expect(reply.body).toEqual({
      items: expected.map((row) => ({
        userId: Number(row.id),
        wallet: row.wallet,
        chain: row.chain,
        followedAt: row.created_at.toISOString(),
      })),
      nextCursor: null,
      total: 5,
    });
    expect((await page(empty)).body).toEqual({ items: [], nextCursor: null, total: 0 });
    expectError(await page(999_999), 404, 'PROVIDER_NOT_FOUND');
  });

  it('pages by limit (1..1000, default 100); a full last page may lead to an empty one', async () => {
    expect((await page(big)).body.items).toHaveLength(100);
    for (const limit of ['0', '1001', 'x', '1.5']) {
      expectError(await page(big, `?limit=${limit}`), 400, 'VALIDATION_ERROR');
    }
    const first = await page(small, '?limit=5');
    expect(first.body.items).toHaveLength(5);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const after = await page(small, `?limit=5&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(after.body).toEqual({ items: [], nextCursor: null, total: 5 });
  });

  it("refuses a tampered cursor and another provider's", async () => {
    const first = await page(small, '?limit=2');
    const cursor: string = first.body.nextCursor;
    expectError(await page(big, `?cursor=${encodeURIComponent(cursor)}`), 400, 'VALIDATION_ERROR');
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('A') ? 'BB' : 'AA'}`;
    expectError(await page(small, `?cursor=${encodeURIComponent(tampered)}`), 400, 'VALIDATION_ERROR');
    const second = await page(small, `?limit=2&cursor=${encodeURIComponent(cursor)}`);
    expect(second.body.items.map((item: Item) => item.userId)).toEqual(
      (await page(small)).body.items.slice(2, 4).map((item: Item) => item.userId),
    );
  });

  it('over tRPC: the same pages, the same codes', async () => {
    const client = trpcClient(api, reader);
    const viaTrpc = await client.followers.list.query({ id: small, limit: 3 });
    const viaRest = await page(small, '?limit=3');
    expect(viaTrpc).toEqual(viaRest.body);
    const refused = await trpcFailure(trpcClient(api, userToken).followers.list.query({ id: small }));
    expect(refused.data?.code).toBe('FORBIDDEN');
    const missing = await trpcFailure(client.followers.list.query({ id: 999_999 }));
    expect(missing.data?.code).toBe('PROVIDER_NOT_FOUND');
  });

  it(`a walk of ${FOLLOWERS} followers while others follow and unfollow returns each that stayed exactly once`, async () => {
    const before = await api.db.db
      .selectFrom('follows')
      .select('user_id')
      .where('provider_id', '=', big)
      .orderBy('user_id')
      .execute();
    const preexisting = before.map((row) => Number(row.user_id));
    expect(preexisting).toHaveLength(FOLLOWERS);
    // Every 7th follower leaves during the walk (some of them come back); non-followers join,
    // spread over the whole id range, and two signed-in users follow and unfollow over REST.
    const leavers = preexisting.filter((_, i) => i % 7 === 3);
    expect(preexisting).toEqual(followerIds);
    const joiners = outsiderIds.filter((_, i) => i % 5 === 0);
    const churners = await Promise.all([signIn(api, evmWallet()), signIn(api, evmWallet())]);
    let walking = true;
    // Steps of churn done so far: the walk waits for one between its pages, so that writes land
    // between every two pages however fast either side runs (through PgBouncer on a loaded
    // machine a churn step is slower than a page).
    let churned = 0;
    const churn = (async () => {
      let step = 0;
      while (walking) {
        const leaver = leavers[step % leavers.length] as number;
        const joiner = joiners[step % joiners.length] as number;
        await sql`delete from follows where user_id = ${leaver} and provider_id = ${big}`.execute(api.db.db);
        await sql`insert into follows (user_id, provider_id) values (${joiner}, ${big}) on conflict do nothing`.execute(
          api.db.db,
        );
        if (step % 4 === 0) {
          // A leaver that comes back: it may be seen once, never twice.
          const back = leavers[(step * 13) % leavers.length] as number;
          await sql`insert into follows (user_id, provider_id) values (${back}, ${big}) on conflict do nothing`.execute(
            api.db.db,
          );
        }
        const churner = churners[step % 2] as { token: string };
        await call(api, step % 3 === 0 ? 'DELETE' : 'POST', `/providers/${big}/follow`, { token: churner.token });
        step++;
        churned = step;
      }
      return step;
    })();
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    try {
      do {
        const query: string = `?limit=250${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const reply = await page(big, query);
        expect(reply.status).toBe(200);
        seen.push(...reply.body.items.map((item: Item) => item.userId));
        cursor = reply.body.nextCursor;
        pages++;
        const after = churned;
        for (let i = 0; cursor && churned === after && i < 2_000; i++) await new Promise((r) => setTimeout(r, 5));
      } while (cursor);
    } finally {
      walking = false;
    }
    const steps = await churn;
    expect(steps).toBeGreaterThanOrEqual(pages - 1);
    // Strictly ascending: nobody twice.
    for (let i = 1; i < seen.length; i++) expect(seen[i] as number).toBeGreaterThan(seen[i - 1] as number);
    const seenSet = new Set(seen);
    const left = new Set(leavers);
    const missing = preexisting.filter((id) => !left.has(id) && !seenSet.has(id));
    expect(missing).toEqual([]);
    // Nobody who never followed: every id seen was a follower at some point of the walk.
    const everFollowed = new Set([...preexisting, ...joiners]);
    for (const [, churner] of churners.entries()) everFollowed.add(churner.user.id);
    expect(seen.filter((id) => !everFollowed.has(id))).toEqual([]);
  });
});
