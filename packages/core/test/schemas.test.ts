import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PAGE_LIMIT,
  MAX_PAGE_LIMIT,
  PageQuerySchema,
  ProviderIdParamsSchema,
  ProviderListQuerySchema,
} from '../src/schemas.js';

/** Spellings of an integer that the contract rejects: only plain decimal digits are integers. */
const NOT_PLAIN_DIGITS = ['1e1', '0x10', '1.5', '', '-1', ' 1', '1 ', '+1', '1_000', '١', '1.0', 'NaN', 'Infinity'];

describe('PageQuerySchema', () => {
  it('defaults page to 1 and limit to 20', () => {
    expect(DEFAULT_PAGE_LIMIT).toBe(20);
    expect(PageQuerySchema.parse({})).toEqual({ page: 1, limit: 20 });
  });

  it('turns strings of plain digits into numbers', () => {
    expect(PageQuerySchema.parse({ page: '3', limit: '50' })).toEqual({ page: 3, limit: 50 });
    expect(PageQuerySchema.parse({ page: '1', limit: '1' })).toEqual({ page: 1, limit: 1 });
    expect(PageQuerySchema.parse({ page: '9007199254740991', limit: '100' })).toEqual({
      page: 9007199254740991,
      limit: 100,
    });
  });

  it('accepts numbers (tRPC sends JSON numbers)', () => {
    expect(PageQuerySchema.parse({ page: 2, limit: 100 })).toEqual({ page: 2, limit: 100 });
    expect(PageQuerySchema.parse({ page: 1, limit: 1 })).toEqual({ page: 1, limit: 1 });
  });

  it.each(NOT_PLAIN_DIGITS)('rejects %j for page and for limit', (value) => {
    expect(PageQuerySchema.safeParse({ page: value }).success).toBe(false);
    expect(PageQuerySchema.safeParse({ limit: value }).success).toBe(false);
  });

  it("rejects '0' and 0 for page and limit", () => {
    for (const value of ['0', 0]) {
      expect(PageQuerySchema.safeParse({ page: value }).success).toBe(false);
      expect(PageQuerySchema.safeParse({ limit: value }).success).toBe(false);
    }
  });

  it(`rejects a limit above ${MAX_PAGE_LIMIT}`, () => {
    expect(MAX_PAGE_LIMIT).toBe(100);
    expect(PageQuerySchema.safeParse({ limit: '101' }).success).toBe(false);
    expect(PageQuerySchema.safeParse({ limit: 101 }).success).toBe(false);
    expect(PageQuerySchema.safeParse({ limit: '100' }).success).toBe(true);
  });

  it('rejects non-integral and non-finite numbers, and other types', () => {
    for (const value of [1.5, -1, Number.NaN, Number.POSITIVE_INFINITY, true, null, [], {}, ['1']]) {
      expect(PageQuerySchema.safeParse({ page: value }).success, JSON.stringify(value)).toBe(false);
      expect(PageQuerySchema.safeParse({ limit: value }).success, JSON.stringify(value)).toBe(false);
    }
  });

  it('rejects a page past 2^53 - 1 and digit strings too long for a number', () => {
    expect(PageQuerySchema.safeParse({ page: '9007199254740992' }).success).toBe(false);
    expect(PageQuerySchema.safeParse({ page: '9'.repeat(400) }).success).toBe(false);
  });

  it('reports the failing field in the issue path', () => {
    const result = PageQuerySchema.safeParse({ page: '1e1' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['page']);
  });
});

describe('ProviderListQuerySchema', () => {
  it('defaults limit 20 and leaves page, sortBy and order unset (a cursor brings its own sort)', () => {
    expect(ProviderListQuerySchema.parse({})).toEqual({ limit: 20 });
  });

  it('takes a cursor of 1..1024 characters (room for a sealed filter set)', () => {
    expect(ProviderListQuerySchema.parse({ cursor: 'a.b' })).toEqual({ limit: 20, cursor: 'a.b' });
    for (const cursor of ['', 'x'.repeat(1025)]) {
      expect(ProviderListQuerySchema.safeParse({ cursor }).error?.issues[0]?.path).toEqual(['cursor']);
    }
  });

  it('turns digits into numbers and keeps valid sort options', () => {
    expect(ProviderListQuerySchema.parse({ page: '2', limit: '10', sortBy: 'name', order: 'asc' })).toEqual({
      page: 2,
      limit: 10,
      sortBy: 'name',
      order: 'asc',
    });
    for (const sortBy of ['followerCount', 'createdAt', 'name', 'id']) {
      expect(ProviderListQuerySchema.parse({ sortBy }).sortBy).toBe(sortBy);
    }
  });

  it.each(NOT_PLAIN_DIGITS)('rejects %j for page and for limit', (value) => {
    expect(ProviderListQuerySchema.safeParse({ page: value }).success).toBe(false);
    expect(ProviderListQuerySchema.safeParse({ limit: value }).success).toBe(false);
  });

  it("rejects '0' and '101' where they are out of range", () => {
    expect(ProviderListQuerySchema.safeParse({ page: '0' }).success).toBe(false);
    expect(ProviderListQuerySchema.safeParse({ limit: '0' }).success).toBe(false);
    expect(ProviderListQuerySchema.safeParse({ limit: '101' }).success).toBe(false);
  });

  it('rejects unknown sort fields and orders', () => {
    for (const sortBy of ['followers', 'FOLLOWERCOUNT', '', 'name ', 'description']) {
      expect(ProviderListQuerySchema.safeParse({ sortBy }).success, sortBy).toBe(false);
    }
    for (const order of ['up', 'ASC', 'DESC', '', 'descending']) {
      expect(ProviderListQuerySchema.safeParse({ order }).success, order).toBe(false);
    }
  });

  it('ignores unknown query parameters', () => {
    expect(ProviderListQuerySchema.parse({ foo: 'bar', page: '1' })).toEqual({ page: 1, limit: 20 });
  });
});

describe('ProviderIdParamsSchema', () => {
  it('turns digits into a number', () => {
    expect(ProviderIdParamsSchema.parse({ id: '1' })).toEqual({ id: 1 });
    expect(ProviderIdParamsSchema.parse({ id: '123' })).toEqual({ id: 123 });
    expect(ProviderIdParamsSchema.parse({ id: 5 })).toEqual({ id: 5 });
  });

  it("accepts '9007199254740991' (2^53 - 1) and rejects '9007199254740992'", () => {
    expect(ProviderIdParamsSchema.parse({ id: '9007199254740991' })).toEqual({ id: Number.MAX_SAFE_INTEGER });
    expect(ProviderIdParamsSchema.safeParse({ id: '9007199254740992' }).success).toBe(false);
    // Rounds to 2^53 as a double: still rejected, not mistaken for a smaller id.
    expect(ProviderIdParamsSchema.safeParse({ id: '9007199254740993' }).success).toBe(false);
    expect(ProviderIdParamsSchema.safeParse({ id: 9007199254740992 }).success).toBe(false);
    expect(ProviderIdParamsSchema.safeParse({ id: '1'.repeat(30) }).success).toBe(false);
  });

  it.each([...NOT_PLAIN_DIGITS, '0', 'abc'])('rejects %j', (id) => {
    expect(ProviderIdParamsSchema.safeParse({ id }).success).toBe(false);
  });

  it('rejects a missing id, zero, negative and fractional numbers', () => {
    for (const value of [{}, { id: 0 }, { id: -1 }, { id: 1.5 }, { id: null }]) {
      expect(ProviderIdParamsSchema.safeParse(value).success, JSON.stringify(value)).toBe(false);
    }
  });
});
