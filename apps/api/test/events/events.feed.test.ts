/**
 * The pull feed (GET /events, `events:read`) through the public surface, on PostgreSQL and
 * PGlite: each event this service announces from its real trigger (sign-in, sign-out, follow),
 * none from a change that changed nothing; the cursor (unchanged when nothing is new, valid with
 * any `types` and over tRPC, refused when malformed or tampered); scopes; retention.
 */
import { randomBytes } from 'node:crypto';
import { purgeEvents } from '@signal/db';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { feedNumbered } from '../events-support.js';
import {
  call,
  createServiceKey,
  evmWallet,
  expectError,
  signIn,
  solanaWallet,
  trpcClient,
  useApi,
} from '../harness.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;

describe.each(['postgres', 'pglite'] as const)('the event feed on %s', (backend) => {
  const api = useApi(backend, { env: { ADMIN_KEY, SEED_PROVIDERS: '3', METRICS: 'true' } });
  let reader: string;
  beforeAll(async () => {
    reader = await createServiceKey(api, ADMIN_KEY, 'feed reader', ['events:read']);
  });

  /** GET /events once the pump has numbered what committed (a reader only reads: docs/events.md). */
  const feed = async (query = '', token = reader) => {
    await feedNumbered(api);
    return call(api, 'GET', `/events${query}`, { token });
  };
  /** Everything after `cursor`, page by page (small pages, to walk cursors), and where it ends. */
  async function readAll(cursor: string | undefined, query = '') {
    const items: { id: string; type: string; occurredAt: string; data: Record<string, unknown> }[] = [];
    for (;;) {
      const page = await feed(`?limit=2${query}${cursor ? `&after=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      items.push(...page.body.items);
      if (page.body.nextCursor === cursor) return { items, cursor };
      cursor = page.body.nextCursor;
    }
  }
  const tail = async () => (await readAll(undefined)).cursor as string;
  const typesAndData = (items: { type: string; data: unknown }[]) => items.map(({ type, data }) => ({ type, data }));

  it('starts empty: the demo seed announced nothing, and the cursor stays put', async () => {
    const first = await feed();
    expect(first.status).toBe(200);
    expect(first.body.items).toEqual([]);
    expect(typeof first.body.nextCursor).toBe('string');
    const again = await feed(`?after=${first.body.nextCursor}`);
    expect(again.body).toEqual({ items: [], nextCursor: first.body.nextCursor });
  });

  it('sign-in, follow, unfollow and sign-out each announced from their real trigger, no-ops not', async () => {
    const start = await tail();
    const wallet = evmWallet();
    const first = await signIn(api, wallet);
    const userId = first.user.id;
    const second = await signIn(api, wallet);
    const providers = (await call(api, 'GET', '/providers?sortBy=id&order=asc')).body.items;
    const provider = providers[0];
    const follow = () => call(api, 'POST', `/providers/${provider.id}/follow`, { token: first.token });
    const unfollow = () => call(api, 'DELETE', `/providers/${provider.id}/follow`, { token: first.token });
    expect((await follow()).status).toBe(200);
    expect((await follow()).status).toBe(200);
    expect((await unfollow()).status).toBe(200);
    expect((await unfollow()).status).toBe(200);
    expect((await follow()).status).toBe(200);
    const revoke = () => call(api, 'DELETE', `/me/sessions/${second.sessionId}`, { token: first.token });
    expect((await revoke()).status).toBe(200);
    expect((await revoke()).status).toBe(200);
    const third = await signIn(api, wallet);
    expect((await call(api, 'POST', '/auth/logout', { token: first.token, body: { scope: 'all' } })).status).toBe(200);

    const { items } = await readAll(start);
    const count = provider.followerCount;
    expect(typesAndData(items.slice(0, -2))).toEqual([
      { type: 'user.created', data: { userId, wallet: first.user.wallet, chain: 'evm' } },
      { type: 'session.created', data: { userId, sessionId: first.sessionId } },
      { type: 'session.created', data: { userId, sessionId: second.sessionId } },
      { type: 'follow.created', data: { userId, providerId: provider.id, followerCount: count + 1 } },
      { type: 'follow.deleted', data: { userId, providerId: provider.id, followerCount: count } },
      { type: 'follow.created', data: { userId, providerId: provider.id, followerCount: count + 1 } },
      { type: 'session.revoked', data: { userId, sessionId: second.sessionId } },
      { type: 'session.created', data: { userId, sessionId: third.sessionId } },
    ]);
    // Sign-out of every session: the two still live, ended in one statement (in either order).
    const signedOut = typesAndData(items.slice(-2)) as { type: string; data: { sessionId: string } }[];
    expect(signedOut.map((e) => e.type)).toEqual(['session.revoked', 'session.revoked']);
    expect(signedOut.map((e) => e.data).sort((a, b) => a.sessionId.localeCompare(b.sessionId))).toEqual(
      [first.sessionId, third.sessionId].sort().map((sessionId) => ({ userId, sessionId })),
    );
    for (const event of items) {
      expect(event.id).toMatch(/^evt_[0-9a-f]{32}$/);
      expect(Date.parse(event.occurredAt)).toBeGreaterThan(Date.now() - 60_000);
    }
    expect(new Set(items.map((e) => e.id)).size).toBe(items.length);
  });

  it('types filters, and its cursor moves past what it skipped; the same cursor serves any filter', async () => {
    const start = await tail();
    const wallet = solanaWallet();
    const login = await signIn(api, wallet);
    const only = await feed(`?types=user.created,follow.deleted&after=${start}`);
    expect(only.status).toBe(200);
    expect(typesAndData(only.body.items)).toEqual([
      { type: 'user.created', data: { userId: login.user.id, wallet: wallet.address, chain: 'solana' } },
    ]);
    // The session.created it skipped is behind its cursor now…
    expect((await feed(`?after=${only.body.nextCursor}`)).body.items).toEqual([]);
    // …but not behind the cursor it started from, read without a filter.
    const all = await feed(`?after=${start}`);
    expect(all.body.items.map((e: { type: string }) => e.type)).toEqual(['user.created', 'session.created']);
    expect(all.body.nextCursor).toBe(only.body.nextCursor);
  });

  it('a full page carries the cursor of its last item', async () => {
    const start = await tail();
    await signIn(api, evmWallet());
    const page = await feed(`?limit=1&after=${start}`);
    expect(page.body.items.map((e: { type: string }) => e.type)).toEqual(['user.created']);
    const next = await feed(`?limit=1&after=${page.body.nextCursor}`);
    expect(next.body.items.map((e: { type: string }) => e.type)).toEqual(['session.created']);
  });

  it('over tRPC, with the same cursors', async () => {
    const start = await tail();
    const wallet = evmWallet();
    const login = await signIn(api, wallet);
    const client = trpcClient(api, reader);
    await feedNumbered(api);
    const page = await client.events.feed.query({ after: start, types: 'session.created' });
    expect(typesAndData(page.items)).toEqual([
      { type: 'session.created', data: { userId: login.user.id, sessionId: login.sessionId } },
    ]);
    expect((await feed(`?after=${page.nextCursor}`)).body.items).toEqual([]);
  });

  it('refuses a malformed or tampered cursor, an unknown type and a limit out of range', async () => {
    const cursor = await tail();
    const tampered = `${cursor.slice(0, 4)}${cursor[4] === 'A' ? 'B' : 'A'}${cursor.slice(5)}`;
    for (const query of [
      '?after=nonsense',
      `?after=${tampered}`,
      '?types=follow.created,follow.exploded',
      '?types=',
      '?limit=0',
      '?limit=1001',
      '?limit=ten',
    ]) {
      const reply = await feed(query);
      expectError(reply, 400, 'VALIDATION_ERROR');
    }
    expect(expectError(await feed('?types=user.deleted'), 400, 'VALIDATION_ERROR').message).toContain('user.deleted');
    // A cursor of another listing is no feed cursor.
    const providers = await call(api, 'GET', '/providers?limit=1');
    expectError(await feed(`?after=${providers.body.nextCursor}`), 400, 'VALIDATION_ERROR');
  });

  it('needs a service key with events:read', async () => {
    expectError(await call(api, 'GET', '/events'), 401, 'UNAUTHORIZED');
    const user = await signIn(api, evmWallet());
    expectError(await feed('', user.token), 403, 'FORBIDDEN');
    const other = await createServiceKey(api, ADMIN_KEY, 'no events', ['followers:read']);
    expectError(await feed('', other), 403, 'FORBIDDEN');
    expect((await feed('', ADMIN_KEY)).status).toBe(200);
  });

  it('retention: events older than the cut are purged, and a cursor past them reads on', async () => {
    const start = await tail();
    await signIn(api, evmWallet());
    await feedNumbered(api); // only events given a feed position are purged
    const purged = await purgeEvents(api.db.db, { before: new Date(Date.now() + 60_000) });
    expect(purged).toBeGreaterThan(0);
    expect((await feed()).body.items).toEqual([]);
    const page = await feed(`?after=${start}`);
    expect(page.body.items).toEqual([]);
    await signIn(api, evmWallet());
    expect((await feed(`?after=${page.body.nextCursor}`)).body.items.map((e: { type: string }) => e.type)).toEqual([
      'user.created',
      'session.created',
    ]);
  });

  it('a read only reads: 30 feed reads write nothing to the feed’s tables', async () => {
    await signIn(api, evmWallet());
    await feedNumbered(api);
    /**
     * What a write to events or event_feed_state would change: each row's xmin (the transaction
     * that last wrote it) and the row count. Exact at once, unlike pg_stat_user_tables, whose
     * counts a backend that goes idle may flush up to 10 s later.
     */
    const written = async () => {
      const { rows } = await sql<{ written: string }>`
        select (select count(*) from events)::text || ':' ||
               coalesce((select string_agg(xmin::text, ',' order by xmin::text) from events), '') || ':' ||
               coalesce((select string_agg(xmin::text, ',') from event_feed_state), '') as written
      `.execute(api.db.db);
      return rows[0]?.written ?? '';
    };
    const before = await written();
    for (let i = 0; i < 30; i++) {
      const reply = await call(api, 'GET', `/events?limit=1000${i % 2 ? '&types=user.created' : ''}`, {
        token: reader,
      });
      expect(reply.status).toBe(200);
    }
    await trpcClient(api, reader).events.feed.query({});
    // Before the pump, each read ran the sequencer, which wrote event_feed_state's row: 31 rows.
    expect(await written()).toBe(before);
  });

  it('metrics: events written (numbered) and the feed lag', async () => {
    const scrape = async () => {
      const text = await (await fetch(`${api.url}/metrics`)).text();
      const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
      return { written: value('signal_events_written'), lag: value('signal_events_feed_lag_seconds') };
    };
    await tail();
    const before = await scrape();
    await signIn(api, evmWallet());
    await feedNumbered(api); // the pump numbered them
    const after = await scrape();
    expect(after.written - before.written).toBe(2);
    expect(after.lag).toBe(0);
  });
});
