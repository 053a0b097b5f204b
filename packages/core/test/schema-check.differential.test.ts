/**
 * Differential test: the compiled checks and parses behind the wire schemas' parseAsync against
 * zod's own parse, on valid answers and inputs and on every one-field mutation of them.
 * Wherever the compiled path says yes, zod must say yes and return an equal value; and
 * parseAsync as a whole must give zod's verdict on every case.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ASK_ZOD, compileCheck, compileParse } from '../src/schema-check.js';
import {
  FollowedProviderPageSchema,
  FollowResultSchema,
  LogoutResultSchema,
  NonceQuerySchema,
  NonceResponseSchema,
  PageQuerySchema,
  ProviderIdParamsSchema,
  ProviderListQuerySchema,
  ProviderPageSchema,
  ProviderSchema,
  ProviderStatsSchema,
  RevokedSessionSchema,
  SessionPageSchema,
  TokenResponseSchema,
  UnfollowResultSchema,
  UserSchema,
  VerifyBodySchema,
} from '../src/schemas.js';

const at = '2026-11-23T10:00:00.000Z';
const provider = {
  id: 5,
  name: 'Swift Edge Quant',
  description: null,
  avatarUrl: '/avatars/c3ccf305ec0f393f.svg',
  followerCount: 7,
  createdAt: at,
};
const user = {
  id: 1,
  wallet: '0x52908400098527886E0F7030069857D2E4169EE7',
  chain: 'evm',
  createdAt: at,
  lastLoginAt: at,
  followingCount: 2,
};

const valid: [string, z.ZodTypeAny, Record<string, unknown>][] = [
  ['Provider', ProviderSchema, provider],
  [
    'ProviderPage',
    ProviderPageSchema,
    { items: [provider, { ...provider, id: 6 }], page: 1, limit: 2, total: 9, totalPages: 5, nextCursor: 'a.b' },
  ],
  [
    'empty ProviderPage',
    ProviderPageSchema,
    { items: [], page: 9, limit: 2, total: 9, totalPages: 5, nextCursor: null },
  ],
  [
    'ProviderPage by cursor',
    ProviderPageSchema,
    { items: [provider], page: null, limit: 2, total: 9, totalPages: 5, nextCursor: null },
  ],
  [
    'FollowedProviderPage',
    FollowedProviderPageSchema,
    { items: [{ ...provider, followedAt: at }], page: 1, limit: 20, total: 1, totalPages: 1, nextCursor: null },
  ],
  [
    'ProviderStats',
    ProviderStatsSchema,
    {
      providerId: 5,
      followerCount: 7,
      followersGained7d: 0,
      followersGained30d: 2,
      totalSignals: 2099,
      winRate: 0.7465,
      avgReturnPct: -0.38,
      totalReturnPct: -79.76,
      maxDrawdownPct: 41.94,
      lastSignalAt: null,
      updatedAt: at,
    },
  ],
  ['FollowResult', FollowResultSchema, { providerId: 5, following: true, followerCount: 8 }],
  ['UnfollowResult', UnfollowResultSchema, { providerId: 5, following: false, followerCount: 7 }],
  ['User', UserSchema, user],
  [
    'TokenResponse',
    TokenResponseSchema,
    { token: 'a.b.c', tokenType: 'Bearer', expiresAt: at, user, isNewUser: false, sessionId: 's-1' },
  ],
  [
    'SessionPage',
    SessionPageSchema,
    {
      items: [
        {
          id: 's-1',
          createdAt: at,
          lastUsedAt: at,
          expiresAt: at,
          userAgent: 'Mozilla/5.0',
          ip: '203.0.113.7',
          current: true,
        },
        { id: 's-2', createdAt: at, lastUsedAt: at, expiresAt: at, userAgent: null, ip: null, current: false },
      ],
      page: 1,
      limit: 20,
      total: 2,
      totalPages: 1,
      nextCursor: null,
    },
  ],
  ['RevokedSession', RevokedSessionSchema, { id: 's-1', revoked: true }],
  ['LogoutResult', LogoutResultSchema, { revoked: 2 }],
  [
    'NonceResponse',
    NonceResponseSchema,
    {
      nonce: 'n'.repeat(32),
      message: `Sign this message to authenticate: ${'n'.repeat(32)}`,
      wallet: user.wallet,
      chain: 'solana',
      format: 'plain',
      expiresAt: at,
    },
  ],
];

/** Values that break one rule or another, tried in every field. */
const WRONG: unknown[] = [
  undefined,
  null,
  '',
  'x',
  0,
  -1,
  1.5,
  1.5e300,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  2 ** 53,
  true,
  [],
  {},
  '2026-02-30T00:00:00Z',
  '2026-11-23T10:00:00+01:00',
  '2026-11-23 10:00:00Z',
  '2026-11-23T10:00:00Z',
  'evm',
  'Bearer',
  // Inputs: REST spells numbers as strings, which only plain decimal digits may be.
  '0',
  '1',
  '01',
  '100',
  '101',
  '1e1',
  '0x10',
  ' 1',
  '1.0',
  '-1',
  '9007199254740991',
  '9007199254740992',
  'asc',
  'DESC',
  'name',
  'followerCount',
  'constructor',
  Object.create(null),
  new Date(0),
];

function mutations(value: unknown): unknown[] {
  if (Array.isArray(value)) {
    const sparse = [...value];
    sparse.length += 1;
    return [sparse, ...value.flatMap((item, i) => mutations(item).map((m) => value.map((v, j) => (j === i ? m : v))))];
  }
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const out: unknown[] = [
      { ...record, extra: 1 },
      { ...record, extra: undefined },
    ];
    for (const [key, field] of Object.entries(record)) {
      const { [key]: _, ...without } = record;
      out.push(without);
      for (const wrong of WRONG) out.push({ ...record, [key]: wrong });
      for (const inner of mutations(field)) out.push({ ...record, [key]: inner });
    }
    return out;
  }
  return [];
}

describe.each(valid)('%s', (_name, schema, value) => {
  const check = compileCheck(schema);

  it('compiles (the fast path is really taken)', () => {
    expect(check).not.toBeNull();
    expect(check?.(value)).toBe(true);
  });

  it('agrees with zod on the valid answer and every mutation of it', async () => {
    const cases = [value, ...mutations(value)];
    expect(cases.length).toBeGreaterThan(20);
    for (const candidate of cases) {
      const reference = schema.safeParse(candidate);
      if (check?.(candidate)) {
        expect(reference.success, JSON.stringify(candidate)).toBe(true);
        expect(reference.data).toEqual(candidate);
      }
      const quick = await schema.safeParseAsync(candidate);
      expect(quick.success, JSON.stringify(candidate)).toBe(reference.success);
      if (quick.success) expect(quick.data).toEqual(reference.data);
      else expect(quick.error?.issues).toEqual(reference.error?.issues);
    }
  });
});

/** Inputs as REST builds them (strings, absent keys) and as tRPC clients send them (numbers). */
const inputs: [string, z.ZodTypeAny, Record<string, unknown>][] = [
  ['ProviderListQuery, empty', ProviderListQuerySchema, {}],
  ['ProviderListQuery, REST', ProviderListQuerySchema, { page: '3', limit: '50', sortBy: 'name', order: 'asc' }],
  ['ProviderListQuery, tRPC', ProviderListQuerySchema, { page: 3, limit: 100, sortBy: 'createdAt', order: 'desc' }],
  ['PageQuery', PageQuerySchema, { page: '2' }],
  ['ProviderIdParams, REST', ProviderIdParamsSchema, { id: '42' }],
  ['ProviderIdParams, tRPC', ProviderIdParamsSchema, { id: 42 }],
  ['NonceQuery', NonceQuerySchema, { wallet: user.wallet }],
  ['NonceQuery (siwe, chainId)', NonceQuerySchema, { wallet: user.wallet, format: 'siwe', chainId: '8453' }],
  ['VerifyBody', VerifyBodySchema, { wallet: user.wallet, signature: '0x12', nonce: 'n'.repeat(32) }],
];

describe.each(inputs)('input %s', (_name, schema, value) => {
  const parse = compileParse(schema);

  it('compiles (the fast path is really taken)', () => {
    expect(parse).not.toBeNull();
    expect(parse?.(value)).toEqual(schema.parse(value));
  });

  it('agrees with zod on the valid input and every mutation of it', async () => {
    // Every field of the shape, present in the valid input or not, takes every wrong value.
    const shape = Object.keys((schema as z.AnyZodObject).shape);
    const cases = [
      value,
      Object.assign(Object.create(null), value),
      ...mutations(value),
      ...shape.flatMap((key) => WRONG.map((wrong) => ({ ...value, [key]: wrong }))),
    ];
    expect(cases.length).toBeGreaterThan(20);
    let fast = 0;
    for (const candidate of cases) {
      const reference = schema.safeParse(candidate);
      const parsed = parse?.(candidate);
      if (parsed !== ASK_ZOD) {
        fast += 1;
        expect(reference.success, String(JSON.stringify(candidate))).toBe(true);
        expect(parsed).toEqual(reference.data);
      }
      const quick = await schema.safeParseAsync(candidate);
      expect(quick.success, String(JSON.stringify(candidate))).toBe(reference.success);
      if (quick.success) expect(quick.data).toEqual(reference.data);
      else expect(quick.error?.issues).toEqual(reference.error?.issues);
    }
    expect(fast).toBeGreaterThan(1);
  });
});

describe('schemas at the edges of the compiler', () => {
  it('an empty object compiles: {} passes, any key goes to zod', () => {
    const check = compileCheck(z.object({}));
    expect(check?.({})).toBe(true);
    expect(check?.({ a: 1 })).toBe(false);
    expect(check?.([])).toBe(false);
  });

  it('passthrough objects and a shape key "__proto__" stay with zod', () => {
    expect(compileCheck(z.object({ a: z.string() }).passthrough())).toBeNull();
    expect(compileParse(z.object({ a: z.string() }).passthrough())).toBeNull();
    expect(compileCheck(z.object(Object.fromEntries([['__proto__', z.string()]])))).toBeNull();
  });

  it('a strict object agrees with zod on extra keys', async () => {
    const schema = z.object({ a: z.string().default('x') }).strict();
    for (const value of [{}, { a: 'y' }, { a: 'y', b: 1 }, { b: 1 }]) {
      const parse = compileParse(schema);
      const parsed = parse?.(value);
      const reference = schema.safeParse(value);
      if (parsed !== ASK_ZOD) expect(parsed).toEqual(reference.data);
      else expect(reference.success && Object.keys(value).every((key) => key === 'a')).toBe(false);
    }
  });
});
