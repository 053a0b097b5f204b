/**
 * Bad parameters of the provider and following endpoints: each answers 400 VALIDATION_ERROR
 * whose issues name the parameter at fault. Unknown query parameters are ignored.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, evmWallet, expectError, type Reply, signIn, useApi } from '../harness.js';

const api = useApi('postgres', { env: { SEED_PROVIDERS: '5' } });
let token: string;

beforeAll(async () => {
  ({ token } = await signIn(api, evmWallet()));
});

/** 400 VALIDATION_ERROR with an issue whose path starts with the parameter. */
function expectInvalid(reply: Reply, parameter: string) {
  const body = expectError(reply, 400, 'VALIDATION_ERROR');
  expect(body.issues, JSON.stringify(body)).toBeDefined();
  expect(body.issues!.length).toBeGreaterThan(0);
  for (const issue of body.issues!) {
    expect(Array.isArray(issue.path)).toBe(true);
    expect(typeof issue.message).toBe('string');
  }
  expect(
    body.issues!.some((issue) => issue.path[0] === parameter),
    JSON.stringify(body),
  ).toBe(true);
  return body;
}

const BAD_PAGES = ['0', '-1', '1.5', '1e1', '0x10', '', 'abc', '+1', ' 1', '9007199254740992'];
const BAD_LIMITS = ['0', '101', '1e1', '', '-5', '1.0', 'abc', '0x10'];
const BAD_IDS = ['abc', '0', '-1', '1.5', '9007199254740992', '123456789012345678901234567890', '1e3', '0x10', '%20'];

describe('GET /providers query parameters', () => {
  it.each(BAD_PAGES)('page=%j → 400 naming page', async (page) => {
    expectInvalid(await call(api, 'GET', `/providers?page=${encodeURIComponent(page)}`), 'page');
  });

  it.each(BAD_LIMITS)('limit=%j → 400 naming limit', async (limit) => {
    expectInvalid(await call(api, 'GET', `/providers?limit=${encodeURIComponent(limit)}`), 'limit');
  });

  it.each(['popularity', 'FOLLOWERCOUNT', 'followers', '', 'name;drop table providers'])(
    'sortBy=%j → 400 naming sortBy',
    async (sortBy) => {
      expectInvalid(await call(api, 'GET', `/providers?sortBy=${encodeURIComponent(sortBy)}`), 'sortBy');
    },
  );

  it.each(['up', 'ASC', 'descending', ''])('order=%j → 400 naming order', async (order) => {
    expectInvalid(await call(api, 'GET', `/providers?order=${encodeURIComponent(order)}`), 'order');
  });

  it('several bad parameters are all named', async () => {
    const body = expectInvalid(await call(api, 'GET', '/providers?page=0&limit=101&sortBy=x&order=up'), 'page');
    const named = new Set(body.issues!.map((issue) => issue.path[0]));
    expect([...named].sort()).toEqual(['limit', 'order', 'page', 'sortBy']);
  });

  it('the edges of the ranges are accepted', async () => {
    for (const query of ['page=1', 'limit=1', 'limit=100', 'page=9007199254740991', 'sortBy=id&order=asc']) {
      const reply = await call(api, 'GET', `/providers?${query}`);
      expect(reply.status, query).toBe(200);
    }
  });

  it('unknown query parameters are ignored', async () => {
    const plain = await call(api, 'GET', '/providers');
    expect(plain.status).toBe(200);
    const reply = await call(api, 'GET', '/providers?foo=bar&sort=name&offset=3&page_size=2&x=');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual(plain.body);
    const mixed = await call(api, 'GET', '/providers?limit=2&utm_source=test&sortBy=id&order=asc');
    expect(mixed.status).toBe(200);
    expect(mixed.body).toMatchObject({ page: 1, limit: 2, total: 5, totalPages: 3 });
  });
});

describe('GET /me/following query parameters', () => {
  it.each(BAD_PAGES.slice(0, 7))('page=%j → 400 naming page', async (page) => {
    expectInvalid(await call(api, 'GET', `/me/following?page=${encodeURIComponent(page)}`, { token }), 'page');
  });
  it.each(BAD_LIMITS.slice(0, 4))('limit=%j → 400 naming limit', async (limit) => {
    expectInvalid(await call(api, 'GET', `/me/following?limit=${encodeURIComponent(limit)}`, { token }), 'limit');
  });
  it('unknown query parameters are ignored', async () => {
    const reply = await call(api, 'GET', '/me/following?foo=bar', { token });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ items: [], page: 1, limit: 20, total: 0, totalPages: 0, nextCursor: null });
  });
});

describe('provider id in the path', () => {
  it.each(BAD_IDS)('id %j → 400 naming id on detail, stats, follow and unfollow', async (id) => {
    expectInvalid(await call(api, 'GET', `/providers/${id}`), 'id');
    expectInvalid(await call(api, 'GET', `/providers/${id}/stats`), 'id');
    expectInvalid(await call(api, 'POST', `/providers/${id}/follow`, { token }), 'id');
    expectInvalid(await call(api, 'DELETE', `/providers/${id}/follow`, { token }), 'id');
  });

  it('the largest id is valid syntax and simply unknown', async () => {
    expectError(await call(api, 'GET', '/providers/9007199254740991'), 404, 'PROVIDER_NOT_FOUND');
  });

  it('a bad id on a follow without a token is refused as unauthenticated first', async () => {
    const reply = await call(api, 'POST', '/providers/abc/follow');
    expect(reply.status).toBe(401);
  });
});

/**
 * Answers are checked against their schema before they leave (compiled check first, zod's
 * verdict when that one is not sure): a row the schema cannot describe is a 500, never a body
 * that breaks the contract. Year 10000 has no ISO 8601 form without an expanded year
 * (`+010000-…`), which the schema's timestamp refuses.
 */
describe('an answer its schema refuses is never sent', () => {
  it('a provider created in year 10000: 500 INTERNAL_ERROR on its detail and on a page holding it', async () => {
    const [first] = await api.db.db
      .selectFrom('providers')
      .select(['id', 'created_at'])
      .orderBy('id')
      .limit(1)
      .execute();
    const id = Number(first!.id);
    expect((await call(api, 'GET', `/providers/${id}`)).status).toBe(200);
    await api.db.db
      .updateTable('providers')
      .set({ created_at: new Date(Date.UTC(10000, 0, 1)) })
      .where('id', '=', id)
      .execute();
    try {
      const detail = expectError(await call(api, 'GET', `/providers/${id}`), 500, 'INTERNAL_ERROR');
      expect(JSON.stringify(detail)).not.toContain('+010000');
      const page = await call(api, 'GET', '/providers?limit=100&sortBy=id&order=asc');
      expectError(page, 500, 'INTERNAL_ERROR');
      // A page without it is answered as ever.
      expect((await call(api, 'GET', '/providers?limit=1&sortBy=id&order=desc')).status).toBe(200);
    } finally {
      await api.db.db.updateTable('providers').set({ created_at: first!.created_at }).where('id', '=', id).execute();
    }
    expect((await call(api, 'GET', `/providers/${id}`)).status).toBe(200);
  });
});
