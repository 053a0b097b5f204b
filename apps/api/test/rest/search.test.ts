/**
 * Searching the catalogue (`GET /providers` with filters), over REST and tRPC, on PostgreSQL and
 * PGlite: the name search `q` (a substring ignoring ASCII case, `%`, `_` and `\` literal,
 * non-ASCII names) and `minFollowers` against a filter computed here from the public list;
 * totals count the matches; filters combine with AND and with any sort; a cursor carries its
 * filters (alone it continues them; restated with another set → 400); a cursor walk under a
 * filter while other writers change the catalogue sees every unchanged match once, in order;
 * malformed filters → 400; a filtered list's ETag follows the data it answers from.
 */
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, signInUsers, type TestApi, trpcClient, trpcFailure, useApi } from '../harness.js';
import { expectEachOnce, walkByCursor, walkByPage } from '../paging.js';

/** Names that trip a naive search: LIKE's own characters, case, and letters beyond ASCII. */
const NAMES = [
  'Alpha 100% Trend',
  'alpha_beta',
  'ALPHA Wolf',
  'Back\\slash Capital',
  'x%y',
  'x_y',
  'xay',
  'x\\y',
  'Zürich Quant',
  'ZÜRICH Macro',
  'Ünïcode Trader',
  'Émile Signals',
  'émile lower',
  '日本 Signals',
  "O'Brien & Co",
];

const QUERIES = [
  '%',
  '_',
  '\\',
  'x%y',
  'x_y',
  'x\\y',
  '%y',
  'alpha',
  'ALPHA',
  'aLpHa_',
  'zürich',
  'Zü',
  'ÜRICH',
  'nïc',
  'Ünï',
  'émile',
  'Émile',
  '日本',
  "o'b",
  'signals',
  'no such provider',
  // Several words of three characters or more: the index is asked for each word, the whole
  // text is checked on what it finds (words in another order or apart do not match).
  'PHA 100% tre',
  'mile sig',
  'Signals 日本',
  'Brien & Co',
  'alpha trend',
];

interface Listed {
  id: number;
  name: string;
  followerCount: number;
}

const asciiFold = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** The contract's match: a substring, ignoring the case of ASCII letters (at least). */
const contains = (name: string, q: string) => asciiFold(name).includes(asciiFold(q));
/** Folding every letter: what a search may also match, beyond ASCII. */
const containsFolded = (name: string, q: string) => name.toLowerCase().includes(q.toLowerCase());

/** Code point order (UTF-8 byte order), as names sort. */
const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

const query = (params: Record<string, string | number | undefined>) =>
  Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
    .join('&');

async function everyProvider(api: TestApi): Promise<Listed[]> {
  return walkByPage<Listed>(api, 'sortBy=id&order=asc', 100);
}

async function checkNameSearch(api: TestApi) {
  const all = await everyProvider(api);
  const trpc = trpcClient(api);
  for (const q of QUERIES) {
    const reply = await call(api, 'GET', `/providers?${query({ q, sortBy: 'name', order: 'asc', limit: 100 })}`);
    expect(reply.status, q).toBe(200);
    const found: Listed[] = reply.body.items;
    const names = found.map((p) => p.name);
    const must = all.filter((p) => contains(p.name, q));
    const may = new Set(all.filter((p) => contains(p.name, q) || containsFolded(p.name, q)).map((p) => p.id));
    for (const p of must) expect(names, `q=${q} finds ${p.name}`).toContain(p.name);
    for (const p of found) expect(may.has(p.id), `q=${q} should not find ${p.name}`).toBe(true);
    expect(names, `q=${q} sorted by name`).toEqual([...names].sort(byCodePoint));
    expect(reply.body.total, q).toBe(found.length);
    expect(reply.body.totalPages, q).toBe(Math.ceil(found.length / 100));
    // tRPC: the same answer.
    const overTrpc = await trpc.providers.list.query({ q, sortBy: 'name', order: 'asc', limit: 100 });
    expect(
      overTrpc.items.map((p) => p.id),
      q,
    ).toEqual(found.map((p) => p.id));
  }
  // A page past the last match still carries the exact total (the page and its total are read
  // together for a search; past the end no row carries it, and the total is counted alone).
  for (const q of ['a', 'signals']) {
    const count = all.filter((p) => contains(p.name, q)).length;
    const last = Math.max(1, Math.ceil(count / 3));
    const page = await call(api, 'GET', `/providers?${query({ q, page: last, limit: 3 })}`);
    expect(page.body.total, q).toBe(count);
    expect(page.body.items.length, q).toBe(count - (last - 1) * 3);
    const past = await call(api, 'GET', `/providers?${query({ q, page: last + 1, limit: 3 })}`);
    expect(past.status, q).toBe(200);
    expect(past.body.items, q).toEqual([]);
    expect(past.body.total, q).toBe(count);
    expect(past.body.totalPages, q).toBe(Math.ceil(count / 3));
  }
  // The literal characters really are literal: exactly these names.
  const exact = async (q: string) =>
    ((await call(api, 'GET', `/providers?${query({ q, sortBy: 'name', order: 'asc' })}`)).body.items as Listed[]).map(
      (p) => p.name,
    );
  expect(await exact('x%y')).toEqual(['x%y']);
  expect(await exact('x_y')).toEqual(['x_y']);
  expect(await exact('x\\y')).toEqual(['x\\y']);
  expect(await exact('100%')).toEqual(['Alpha 100% Trend']);
  expect(await exact('ALPHA')).toEqual(expect.arrayContaining(['ALPHA Wolf', 'Alpha 100% Trend', 'alpha_beta']));
  expect(await exact('nïc')).toEqual(['Ünïcode Trader']);
  expect(await exact('日本')).toEqual(['日本 Signals']);
  expect(await exact('no such provider')).toEqual([]);
  expect(await exact('pha 100% TREND')).toEqual(['Alpha 100% Trend']);
  expect(await exact('Trend 100%')).toEqual([]);
  expect(await exact('alpha  100%')).toEqual([]);
  expect(await exact('ack\\slash cap')).toEqual(['Back\\slash Capital']);
}

async function checkFiltersAndTotals(api: TestApi) {
  const all = await everyProvider(api);
  for (const sortBy of ['followerCount', 'createdAt', 'name', 'id'] as const) {
    for (const order of ['asc', 'desc'] as const) {
      const sets: { q?: string; minFollowers?: number }[] = [
        { minFollowers: 2 },
        { q: 'a', minFollowers: 1 },
        { q: 'signals' },
        { minFollowers: 0 },
      ];
      for (const params of sets) {
        const where = `${sortBy} ${order} ${JSON.stringify(params)}`;
        const expected = all
          .filter((p) => params.q === undefined || contains(p.name, params.q))
          .filter((p) => params.minFollowers === undefined || p.followerCount >= params.minFollowers);
        const got = await walkByPage<Listed>(api, `${query({ ...params, sortBy, order })}`, 4);
        expect(
          got.map((p) => p.id).sort((a, b) => a - b),
          where,
        ).toEqual(expected.map((p) => p.id).sort((a, b) => a - b));
        const first = await call(api, 'GET', `/providers?${query({ ...params, sortBy, order, limit: 4 })}`);
        expect(first.body.total, where).toBe(expected.length);
        expect(first.body.totalPages, where).toBe(Math.ceil(expected.length / 4));
        // The same order as the unfiltered list, restricted to the matches.
        const unfiltered = (await walkByPage<Listed>(api, `sortBy=${sortBy}&order=${order}`, 100)).map((p) => p.id);
        const matching = new Set(expected.map((p) => p.id));
        expect(
          got.map((p) => p.id),
          where,
        ).toEqual(unfiltered.filter((id) => matching.has(id)));
        expect(expected.length, where).toBeGreaterThan(0);
        // The cursor walk gives the page walk.
        const byCursor = await walkByCursor<Listed>(async (cursor) => {
          const path = cursor
            ? `/providers?limit=4&cursor=${cursor}`
            : `/providers?${query({ ...params, sortBy, order, limit: 4 })}`;
          return (await call(api, 'GET', path)).body;
        });
        expect(
          byCursor.flat().map((p) => p.id),
          where,
        ).toEqual(got.map((p) => p.id));
      }
    }
  }
}

async function checkCursorFilters(api: TestApi) {
  const filters = { q: 'a', minFollowers: 1 };
  const first = await call(api, 'GET', `/providers?${query({ ...filters, sortBy: 'name', order: 'asc', limit: 2 })}`);
  expect(first.status).toBe(200);
  const cursor = first.body.nextCursor as string;
  expect(cursor).not.toBeNull();
  // Alone, with the same filters, with the same sort and filters, in another order of params.
  const alone = await call(api, 'GET', `/providers?limit=2&cursor=${cursor}`);
  expect(alone.status).toBe(200);
  for (const p of alone.body.items as Listed[]) {
    expect(contains(p.name, 'a')).toBe(true);
    expect(p.followerCount).toBeGreaterThanOrEqual(1);
  }
  expect(alone.body.total).toBe(first.body.total);
  for (const extra of ['q=a&minFollowers=1', 'minFollowers=1&q=a&sortBy=name', 'minFollowers=01&q=a&order=asc']) {
    const again = await call(api, 'GET', `/providers?limit=2&cursor=${cursor}&${extra}`);
    expect(again.status, extra).toBe(200);
    expect(again.body.items, extra).toEqual(alone.body.items);
  }
  // Another filter set: one changed, added or dropped; the sort restated without the filters.
  for (const other of [
    'q=b&minFollowers=1',
    'q=A&minFollowers=1',
    'q=a&minFollowers=2',
    'q=a',
    'minFollowers=1',
    'q=a&minFollowers=1&minFollowers=1&q=a&unknown=1&sortBy=name&order=asc&minFollowers=1',
    'sortBy=name',
    'order=asc',
    'sortBy=name&order=asc',
  ]) {
    const reply = await call(api, 'GET', `/providers?limit=2&cursor=${cursor}&${other}`);
    if (other.startsWith('q=a&minFollowers=1&minFollowers=1')) {
      // Repeated keys: the first value counts (as for every query), unknown ones are ignored.
      expect(reply.status, other).toBe(200);
      continue;
    }
    const error = expectError(reply, 400, 'VALIDATION_ERROR');
    expect(
      error.issues?.map((issue) => issue.path[0]),
      other,
    ).toContain('cursor');
  }
  // An unfiltered cursor replayed with a filter.
  const plain = (await call(api, 'GET', '/providers?sortBy=name&order=asc&limit=2')).body.nextCursor as string;
  expectError(await call(api, 'GET', `/providers?cursor=${plain}&q=a`), 400, 'VALIDATION_ERROR');
  expect((await call(api, 'GET', `/providers?cursor=${plain}&sortBy=name`)).status).toBe(200);
  // tRPC: the same rules, the same code.
  const trpc = trpcClient(api);
  const viaTrpc = await trpc.providers.list.query({ ...filters, sortBy: 'name', order: 'asc', limit: 2 });
  expect(viaTrpc.nextCursor).not.toBeNull();
  const next = await trpc.providers.list.query({ cursor: viaTrpc.nextCursor as string, limit: 2 });
  expect(next.items).toEqual(alone.body.items);
  const refused = await trpcFailure(
    trpc.providers.list.query({ cursor: viaTrpc.nextCursor as string, q: 'b', minFollowers: 1, limit: 2 }),
  );
  expect(refused.data?.code).toBe('VALIDATION_ERROR');
  expect(refused.data?.httpStatus).toBe(400);
}

async function checkRefusals(api: TestApi) {
  const bad = [
    'q=',
    `q=${'a'.repeat(101)}`,
    'q=%00',
    'q=a%0Ab',
    'minFollowers=-1',
    'minFollowers=1.5',
    'minFollowers=1e3',
    'minFollowers=%205',
    'minFollowers=',
    'minFollowers=abc',
    'minFollowers=0x10',
  ];
  for (const params of bad) {
    const error = expectError(await call(api, 'GET', `/providers?${params}`), 400, 'VALIDATION_ERROR');
    expect(error.issues?.length, params).toBeGreaterThan(0);
  }
  // At the bounds, and unknown parameters ignored.
  for (const params of [`q=${'a'.repeat(100)}`, 'minFollowers=0', 'minFollowers=9007199254740991', 'qq=&foo=1']) {
    expect((await call(api, 'GET', `/providers?${params}`)).status, params).toBe(200);
  }
  const trpc = trpcClient(api);
  expect((await trpcFailure(trpc.providers.list.query({ q: '' }))).data?.httpStatus).toBe(400);
  expect((await trpcFailure(trpc.providers.list.query({ minFollowers: -1 }))).data?.httpStatus).toBe(400);
}

/**
 * A walk under a filter while other writers follow, unfollow and rename providers between its
 * pages: every matching provider whose sort key and match did not change is seen exactly once,
 * in order.
 */
async function checkWalkWhileWritersChange(api: TestApi, tokens: string[]) {
  for (const order of ['asc', 'desc'] as const) {
    const all = await everyProvider(api);
    const renamed = new Set<number>();
    let step = 0;
    const pages = await walkByCursor<Listed>(
      async (cursor) =>
        (
          await call(
            api,
            'GET',
            cursor
              ? `/providers?limit=3&cursor=${cursor}`
              : `/providers?${query({ q: 'a', sortBy: 'name', order, limit: 3 })}`,
          )
        ).body,
      async () => {
        // Follows change rows (not their names); a rename moves one provider in the name order.
        for (const token of tokens) {
          const target = all[(step * 5 + tokens.indexOf(token) * 7) % all.length] as Listed;
          expect((await call(api, 'POST', `/providers/${target.id}/follow`, { token })).status).toBe(200);
        }
        const moved = all[(step * 3 + 1) % all.length] as Listed;
        renamed.add(moved.id);
        await sql`update providers set name = ${`${moved.name} a${step}`} where id = ${moved.id}`.execute(api.db.db);
        step += 1;
      },
    );
    expect(step).toBeGreaterThan(2);
    const seen = pages.flat();
    for (const p of seen) expect(contains(p.name, 'a'), p.name).toBe(true);
    const unchanged = all.filter((p) => contains(p.name, 'a') && !renamed.has(p.id));
    expectEachOnce(seen, unchanged, (p) => `${order} ${p.name}`);
    const names = seen.filter((p) => !renamed.has(p.id)).map((p) => p.name);
    const sorted = [...names].sort(byCodePoint);
    expect(names).toEqual(order === 'asc' ? sorted : sorted.reverse());
  }
}

/** A filtered list revalidates exactly: its ETag moves when the data it answers from moves. */
async function checkCaching(api: TestApi) {
  const path = `/providers?${query({ q: 'wolf' })}`;
  const first = await call(api, 'GET', path);
  const etag = first.headers.get('etag') as string;
  expect(etag).toBeTruthy();
  expect((await call(api, 'GET', path, { headers: { 'if-none-match': etag } })).status).toBe(304);
  // A new match appears: the same URL answers it, with another tag.
  await sql`insert into providers (name) values ('Lone Wolf')`.execute(api.db.db);
  const after = await call(api, 'GET', path, { headers: { 'if-none-match': etag } });
  expect(after.status).toBe(200);
  expect(after.headers.get('etag')).not.toBe(etag);
  expect((after.body.items as Listed[]).map((p) => p.name)).toContain('Lone Wolf');
  expect(after.body.total).toBe(first.body.total + 1);
}

async function addNamedProviders(api: TestApi) {
  for (const [index, name] of NAMES.entries()) {
    await sql`insert into providers (name, follower_count) values (${name}, ${index % 4})`.execute(api.db.db);
  }
}

for (const backend of ['postgres', 'pglite'] as const) {
  describe(`catalogue search on ${backend}`, () => {
    const api = useApi(backend, { env: { SEED_PROVIDERS: '30' } });
    let tokens: string[];
    beforeAll(async () => {
      await addNamedProviders(api);
      tokens = await signInUsers(api, 2);
    });

    it('q: a substring ignoring ASCII case; %, _ and \\ literal; non-ASCII names (REST and tRPC)', async () => {
      await checkNameSearch(api);
    });

    it('filters with the four Version 1 sorts: the matches in the sort order, totals, page and cursor walks agree', async () => {
      await checkFiltersAndTotals(api);
    });

    it('a cursor carries its filters: alone it continues them, with another set → 400', async () => {
      await checkCursorFilters(api);
    });

    it('malformed filters → 400 VALIDATION_ERROR; bounds and unknown parameters accepted', async () => {
      await checkRefusals(api);
    });

    it('a filtered walk while others write: every unchanged match once, in order', async () => {
      await checkWalkWhileWritersChange(api, tokens);
    });

    it('a filtered list revalidates exactly', async () => {
      await checkCaching(api);
    });
  });
}
