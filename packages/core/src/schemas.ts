/**
 * Zod schemas of every wire type, written once. The API's routers validate with them,
 * the OpenAPI document is generated from them, and the SDK infers its types from them.
 */
import { z } from 'zod';
import { ERROR_CODES } from './errors.js';

const DECIMAL_DIGITS = /^[0-9]+$/;

/**
 * An integer that REST sends as plain decimal digits in a query or path, and tRPC sends as a
 * JSON number. Digits become a number before validation; anything else (`1e1`, `0x10`, `1.5`,
 * empty) is left as a string and fails as "expected number". A preprocess rather than
 * `z.coerce` because coercion would accept exactly the spellings the contract rejects.
 * The cast only narrows the static input type to `number` for typed clients.
 */
function integerParam(description: string, min: number, max: number) {
  return z
    .preprocess(
      (value) => (typeof value === 'string' && DECIMAL_DIGITS.test(value) ? Number(value) : value),
      z
        .number({ invalid_type_error: 'must be an integer in plain decimal digits' })
        .int('must be an integer')
        .min(min, `must be at least ${min}`)
        .max(max, `must be at most ${max}`),
    )
    .describe(description) as unknown as z.ZodEffects<z.ZodNumber, number, number>;
}

const isoTimestamp = z.string().datetime().describe('ISO 8601 timestamp, UTC');
const entityId = z.number().int().positive();

export const ChainSchema = z.enum(['evm', 'solana']).describe('Wallet family');
export type Chain = z.infer<typeof ChainSchema>;

// ── Auth ────────────────────────────────────────────────────────────────────

export const NonceQuerySchema = z.object({
  wallet: z.string().describe('Wallet address: EVM `0x` + 40 hex digits, or Solana base58 (32 bytes)'),
});
export type NonceQuery = z.infer<typeof NonceQuerySchema>;

export const NonceResponseSchema = z.object({
  nonce: z.string().describe('Single-use value, bound to the wallet'),
  message: z.string().describe('The exact text to sign'),
  wallet: z.string().describe('Canonical form of the wallet the nonce is bound to'),
  chain: ChainSchema,
  expiresAt: isoTimestamp,
});
export type NonceResponse = z.infer<typeof NonceResponseSchema>;

export const VerifyBodySchema = z.object({
  wallet: z.string().describe('The wallet the nonce was issued for'),
  signature: z
    .string()
    .describe('EVM: 65-byte personal_sign signature in hex (0x optional). Solana: 64-byte ed25519 signature in base58'),
  nonce: z.string().describe('The nonce from GET /auth/nonce'),
});
export type VerifyBody = z.infer<typeof VerifyBodySchema>;

export const UserSchema = z.object({
  id: entityId,
  wallet: z.string().describe('Canonical wallet address'),
  chain: ChainSchema,
  createdAt: isoTimestamp,
  lastLoginAt: isoTimestamp,
  followingCount: z.number().int().nonnegative(),
});
export type User = z.infer<typeof UserSchema>;

export const TokenResponseSchema = z.object({
  token: z.string().describe('JWT to send as `Authorization: Bearer <token>`'),
  tokenType: z.literal('Bearer'),
  expiresAt: isoTimestamp,
  user: UserSchema,
  isNewUser: z.boolean().describe('True when this verification created the user'),
});
export type TokenResponse = z.infer<typeof TokenResponseSchema>;

// ── Providers ───────────────────────────────────────────────────────────────

export const MAX_SAFE_ID = Number.MAX_SAFE_INTEGER;
export const MAX_PAGE_LIMIT = 100;
export const DEFAULT_PAGE_LIMIT = 20;

export const ProviderSchema = z.object({
  id: entityId,
  name: z.string(),
  description: z.string().nullable(),
  avatarUrl: z.string().nullable(),
  followerCount: z.number().int().nonnegative(),
  createdAt: isoTimestamp,
});
export type Provider = z.infer<typeof ProviderSchema>;

export const FollowedProviderSchema = ProviderSchema.extend({
  followedAt: isoTimestamp.describe('When the current user followed this provider'),
});
export type FollowedProvider = z.infer<typeof FollowedProviderSchema>;

export const ProviderStatsSchema = z.object({
  providerId: entityId,
  followerCount: z.number().int().nonnegative(),
  followersGained7d: z.number().int().nonnegative(),
  followersGained30d: z.number().int().nonnegative(),
  totalSignals: z.number().int().nonnegative(),
  winRate: z.number().min(0).max(1),
  avgReturnPct: z.number(),
  totalReturnPct: z.number(),
  maxDrawdownPct: z.number(),
  lastSignalAt: isoTimestamp.nullable(),
  updatedAt: isoTimestamp,
});
export type ProviderStats = z.infer<typeof ProviderStatsSchema>;

export const PROVIDER_SORT_FIELDS = ['followerCount', 'createdAt', 'name', 'id'] as const;
export const ProviderSortFieldSchema = z.enum(PROVIDER_SORT_FIELDS);
export type ProviderSortField = z.infer<typeof ProviderSortFieldSchema>;
export const SortOrderSchema = z.enum(['asc', 'desc']);
export type SortOrder = z.infer<typeof SortOrderSchema>;

export const PageQuerySchema = z.object({
  page: integerParam('Page number, from 1', 1, MAX_SAFE_ID).optional().default(1),
  limit: integerParam(`Items per page, 1..${MAX_PAGE_LIMIT}`, 1, MAX_PAGE_LIMIT).optional().default(DEFAULT_PAGE_LIMIT),
});
export type PageQuery = z.input<typeof PageQuerySchema>;

export const ProviderListQuerySchema = PageQuerySchema.extend({
  sortBy: ProviderSortFieldSchema.optional().default('followerCount').describe('Field to sort by'),
  order: SortOrderSchema.optional().default('desc').describe('Sort direction; ties are broken by id'),
});
export type ProviderListQuery = z.input<typeof ProviderListQuerySchema>;

export const ProviderIdParamsSchema = z.object({
  id: integerParam('Provider id, a positive integer', 1, MAX_SAFE_ID),
});
export type ProviderIdParams = z.input<typeof ProviderIdParamsSchema>;

export function pageSchema<T extends z.ZodTypeAny>(item: T) {
  return z.object({
    items: z.array(item),
    page: z.number().int().positive(),
    limit: z.number().int().positive(),
    total: z.number().int().nonnegative(),
    totalPages: z.number().int().nonnegative(),
  });
}
export const ProviderPageSchema = pageSchema(ProviderSchema);
export type ProviderPage = z.infer<typeof ProviderPageSchema>;
export const FollowedProviderPageSchema = pageSchema(FollowedProviderSchema);
export type FollowedProviderPage = z.infer<typeof FollowedProviderPageSchema>;

export const FollowResultSchema = z.object({
  providerId: entityId,
  following: z.boolean(),
  followerCount: z.number().int().nonnegative(),
});
export type FollowResult = z.infer<typeof FollowResultSchema>;

// ── Errors and service endpoints ────────────────────────────────────────────

export const ErrorCodeSchema = z.enum(ERROR_CODES as [string, ...string[]]);

export const ErrorBodySchema = z.object({
  code: ErrorCodeSchema,
  message: z.string().min(1),
  issues: z.array(z.object({ path: z.array(z.union([z.string(), z.number()])), message: z.string() })).optional(),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;
