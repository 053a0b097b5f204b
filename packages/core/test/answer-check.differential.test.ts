/**
 * Differential test: the compiled answer checks against zod's own parse, on a valid value of
 * every answer schema the API has and on every one-field mutation of it. Wherever the compiled
 * check says yes, zod must say yes and return a value that serialises to the same JSON, byte
 * for byte (what the client receives); where it says no, the API asks zod, so no verdict of
 * the check's own ever reaches a client.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileAnswerCheck } from '../src/answer-check.js';
import { PerformanceSchema, ProviderArchivedSchema, ProviderWriteSchema } from '../src/catalogue-schemas.js';
import { EventPageSchema, EventSchema } from '../src/event-schemas.js';
import * as examples from '../src/examples.js';
import {
  ConsistencyProofSchema,
  InclusionProofSchema,
  PublisherListSchema,
  PublisherRemovedSchema,
  PublisherSchema,
} from '../src/log.schemas.js';
import * as logExamples from '../src/log-examples.js';
import {
  FollowedProviderPageSchema,
  FollowResultSchema,
  LinkedWalletSchema,
  NonceResponseSchema,
  ProviderPageSchema,
  ProviderSchema,
  ProviderStatsSchema,
  TokenResponseSchema,
  UnfollowResultSchema,
  UserSchema,
} from '../src/schemas.js';
import {
  CreatedServiceKeySchema,
  FollowerPageSchema,
  ServiceKeyPageSchema,
  ServiceKeySchema,
} from '../src/service-key.schemas.js';
import { LogoutResultSchema, RevokedSessionSchema, SessionPageSchema, SessionSchema } from '../src/session.schemas.js';
import { SignalListSchema, SignalSchema, SignalStatementAnswerSchema } from '../src/signal.schemas.js';
import * as signalExamples from '../src/signal-examples.js';
import { LinkedWalletListSchema } from '../src/wallets.schemas.js';
import {
  CreatedWebhookEndpointSchema,
  DeliveryPageSchema,
  WebhookEndpointSchema,
  WebhookListSchema,
} from '../src/webhook.schemas.js';
import * as webhookExamples from '../src/webhook-examples.js';

const at = '2026-11-23T10:00:00.000Z';
const provider = {
  id: 5,
  name: 'Swift Edge Quant',
  description: null,
  avatarUrl: '/avatars/c3ccf305ec0f393f.svg',
  followerCount: 7,
  createdAt: at,
  roi30dPct: -6.82,
  maxDrawdownPct: 0,
  winRate: 0.5,
  revealDelaySeconds: 0,
};
const user = {
  id: 1,
  wallet: '0x52908400098527886E0F7030069857D2E4169EE7',
  chain: 'evm',
  createdAt: at,
  lastLoginAt: at,
  followingCount: 2,
  wallets: [
    {
      wallet: '0x52908400098527886E0F7030069857D2E4169EE7',
      chain: 'evm',
      linkedAt: at,
      primary: true,
      lastLoginAt: at,
    },
    {
      wallet: '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV',
      chain: 'solana',
      linkedAt: at,
      primary: false,
      lastLoginAt: null,
    },
  ],
};

const answers: [string, z.ZodType, Record<string, unknown>][] = [
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
    // The documented example (below) as a series of one point leaves it: every ROI null, no signal yet.
    'ProviderStats of one point',
    ProviderStatsSchema,
    {
      ...examples.providerStats,
      lastSignalAt: null,
      roi7dPct: null,
      roi30dPct: null,
      roi90dPct: null,
      roiAllPct: null,
      tradingDays: 1,
      asOf: '2026-11-22',
    },
  ],
  ['ProviderWrite', ProviderWriteSchema, { ...provider, roi30dPct: null, archived: true }],
  ['ProviderArchived', ProviderArchivedSchema, { id: 5, archived: true }],
  [
    'Performance',
    PerformanceSchema,
    {
      providerId: 5,
      window: '90d',
      asOf: '2028-02-29',
      points: [
        { date: '2028-02-28', roiPct: 0, drawdownPct: 0 },
        { date: '2028-02-29', roiPct: -1.25, drawdownPct: 1.25 },
      ],
    },
  ],
  ['empty Performance', PerformanceSchema, { providerId: 5, window: 'all', asOf: null, points: [] }],
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
    // A discriminated union: each item checked as the object its `type` names.
    'EventPage',
    EventPageSchema,
    {
      items: [
        { id: 'evt_1', type: 'follow.created', occurredAt: at, data: { userId: 1, providerId: 5, followerCount: 8 } },
        { id: 'evt_2', type: 'user.created', occurredAt: at, data: { chain: 'evm', userId: 1, wallet: user.wallet } },
        { id: 'evt_3', type: 'session.revoked', occurredAt: at, data: { userId: 1, sessionId: 's-1' } },
      ],
      nextCursor: 'a.b',
    },
  ],
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

  // Every answer the OpenAPI document shows as an example: what a reader of /docs sees must take
  // the fast path too (and its JSON be zod's). Not the JWKS: its keys are loose objects, zod's.
  ['documented NonceResponse', NonceResponseSchema, examples.nonceResponse],
  ['documented TokenResponse', TokenResponseSchema, examples.tokenResponse],
  ['documented User', UserSchema, examples.user],
  ['documented LinkedWallet', LinkedWalletSchema, examples.linkedWallet],
  ['documented LinkedWalletList', LinkedWalletListSchema, examples.walletList],
  ['documented Session', SessionSchema, examples.session],
  ['documented SessionPage', SessionPageSchema, examples.sessionPage],
  ['documented Provider', ProviderSchema, examples.provider],
  ['documented ProviderPage', ProviderPageSchema, examples.providerPage],
  ['documented ProviderStats', ProviderStatsSchema, examples.providerStats],
  ['documented FollowResult', FollowResultSchema, examples.followResult],
  ['documented UnfollowResult', UnfollowResultSchema, examples.unfollowResult],
  ['documented FollowedProviderPage', FollowedProviderPageSchema, examples.followingPage],
  ['documented ServiceKey', ServiceKeySchema, examples.serviceKey],
  ['documented CreatedServiceKey', CreatedServiceKeySchema, examples.createdServiceKey],
  ['documented ServiceKeyPage', ServiceKeyPageSchema, examples.serviceKeyPage],
  ['documented FollowerPage', FollowerPageSchema, examples.followerPage],
  ['documented Event', EventSchema, examples.event],
  ['documented EventPage', EventPageSchema, examples.eventPage],
  ['documented ProviderWrite', ProviderWriteSchema, examples.providerWrite],
  ['documented Performance', PerformanceSchema, examples.performance],
  ['documented WebhookEndpoint', WebhookEndpointSchema, webhookExamples.webhookEndpoint],
  ['documented CreatedWebhookEndpoint', CreatedWebhookEndpointSchema, webhookExamples.createdWebhookEndpoint],
  ['documented WebhookList', WebhookListSchema, webhookExamples.webhookList],
  ['documented DeliveryPage', DeliveryPageSchema, webhookExamples.deliveryPage],
  ['documented Publisher', PublisherSchema, logExamples.publisher],
  ['documented PublisherList', PublisherListSchema, logExamples.publisherList],
  ['documented PublisherRemoved', PublisherRemovedSchema, logExamples.publisherRemoved],
  ['documented InclusionProof', InclusionProofSchema, logExamples.inclusionProof],
  ['documented ConsistencyProof', ConsistencyProofSchema, logExamples.consistencyProof],
  ['documented Signal', SignalSchema, signalExamples.signal],
  ['documented unrevealed Signal', SignalSchema, signalExamples.unrevealedSignal],
  ['documented SignalStatementAnswer', SignalStatementAnswerSchema, signalExamples.signalAnswer],
  ['documented SignalList', SignalListSchema, signalExamples.signalList],
];

/** Values that break one rule or another, tried in every field. */
const WRONG: unknown[] = [
  undefined,
  null,
  '',
  'x',
  0,
  -0,
  -1,
  1.5,
  1.5e300,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  2 ** 53,
  -(2 ** 53),
  true,
  false,
  [],
  {},
  '2026-02-30T00:00:00Z',
  '2026-02-29',
  '2028-02-29',
  '2026-11-23',
  '2026-11-23\n',
  '2026-1-23',
  '2026-02-29T00:00:00.000Z',
  '2028-02-29T00:00:00.000Z',
  '2026-11-23T10:00:00+01:00',
  '2026-11-23 10:00:00Z',
  '2026-11-23T10:00:00Z',
  '2026-11-23T10:00:00.000Z\n',
  '+010000-01-01T00:00:00.000Z',
  'evm',
  'solana',
  'Bearer',
  'plain',
  'constructor',
  '__proto__',
  Object.create(null),
  new Date(0),
  new (class Point {
    x = 1;
  })(),
];

/** Every value that differs from `value` in one place: a field removed, added, reordered or changed. */
function mutations(value: unknown): unknown[] {
  if (Array.isArray(value)) {
    const sparse = [...value];
    sparse.length += 1;
    return [
      sparse,
      [...value, ...value.slice(0, 1)],
      ...value.flatMap((item, i) => mutations(item).map((m) => value.map((v, j) => (j === i ? m : v)))),
    ];
  }
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    const out: unknown[] = [
      { ...record, extra: 1 },
      { ...record, extra: undefined },
      Object.assign(Object.create(null), record),
      // The same fields in reverse order: zod's answer has the shape's order.
      Object.fromEntries(keys.reverse().map((key) => [key, record[key]])),
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

describe.each(answers)('%s', (_name, schema, value) => {
  const check = compileAnswerCheck(schema);

  it('compiles, and passes the valid answer (the fast path is really taken)', () => {
    expect(check).not.toBeNull();
    expect(check?.(value)).toBe(true);
  });

  it('says yes only where zod does, and zod then writes the same JSON', () => {
    const cases = [value, ...mutations(value)];
    expect(cases.length).toBeGreaterThan(30);
    let passed = 0;
    for (const candidate of cases) {
      if (!check?.(candidate)) continue;
      passed += 1;
      const reference = schema.safeParse(candidate);
      expect(reference.success, String(JSON.stringify(candidate))).toBe(true);
      expect(JSON.stringify(candidate)).toBe(JSON.stringify(reference.data));
    }
    expect(passed).toBeGreaterThanOrEqual(1);
  });
});

describe('schemas at the edges of the compiler', () => {
  it('an empty object compiles: {} passes, any key goes to zod', () => {
    const check = compileAnswerCheck(z.object({}));
    expect(check?.({})).toBe(true);
    expect(check?.({ a: 1 })).toBe(false);
    expect(check?.([])).toBe(false);
  });

  it('loose objects, transforms, unions, refinements and defaults stay with zod', () => {
    expect(compileAnswerCheck(z.object({ a: z.string() }).loose())).toBeNull();
    expect(compileAnswerCheck(z.object({ a: z.string().transform((s) => s.length) }))).toBeNull();
    expect(compileAnswerCheck(z.union([z.string(), z.number()]))).toBeNull();
    expect(compileAnswerCheck(z.string().refine((s) => s !== 'x'))).toBeNull();
    expect(compileAnswerCheck(z.number().default(1))).toBeNull();
    expect(compileAnswerCheck(z.email())).toBeNull();
    expect(compileAnswerCheck(z.coerce.number())).toBeNull();
    expect(compileAnswerCheck(z.object(Object.fromEntries([['__proto__', z.string()]])))).toBeNull();
  });

  it('a strict object passes its own keys and leaves any other to zod', () => {
    const check = compileAnswerCheck(z.object({ a: z.string() }).strict());
    expect(check?.({ a: 'y' })).toBe(true);
    expect(check?.({ a: 'y', b: 1 })).toBe(false);
  });

  it('string lengths: within a maximum in code units, zod agrees; a minimum above 1 is left to zod', () => {
    const max = compileAnswerCheck(z.string().max(2));
    // Two astral characters: four code units, two code points, which zod accepts.
    expect(max?.('😀😀')).toBe(false);
    expect(z.string().max(2).safeParse('😀😀').success).toBe(true);
    expect(max?.('ab')).toBe(true);
    expect(compileAnswerCheck(z.string().min(2))).toBeNull();
    const nonEmpty = compileAnswerCheck(z.string().min(1));
    expect(nonEmpty?.('')).toBe(false);
    expect(nonEmpty?.('😀')).toBe(true);
  });

  it('optional fields: absent or undefined, the JSON is what zod writes', () => {
    const schema = z.object({ a: z.string().optional(), b: z.number() });
    const check = compileAnswerCheck(schema);
    for (const value of [{ b: 1 }, { a: undefined, b: 1 }, { a: 'x', b: 1 }]) {
      expect(check?.(value)).toBe(true);
      expect(JSON.stringify(value)).toBe(JSON.stringify(schema.parse(value)));
    }
    expect(check?.({ b: 1, a: 'x' })).toBe(false);
  });

  it('a field zod reads but JSON would not write (not enumerable) goes to zod', () => {
    const schema = z.object({ a: z.string().optional(), b: z.number() });
    const check = compileAnswerCheck(schema);
    const hidden = Object.defineProperty({}, 'b', { value: 1, enumerable: false });
    expect(schema.safeParse(hidden).data).toEqual({ b: 1 });
    expect(JSON.stringify(hidden)).toBe('{}');
    expect(check?.(hidden)).toBe(false);
    const hiddenOptional = Object.defineProperty({ b: 1 }, 'a', { value: 'x', enumerable: false });
    expect(check?.(hiddenOptional)).toBe(false);
  });
});
