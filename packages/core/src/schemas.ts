/**
 * Zod schemas of every wire type, written once. The API's routers validate with them,
 * the OpenAPI document is generated from them, and the SDK infers its types from them.
 */
import { z } from 'zod';
import { ProviderFilterShape } from './catalogue-search.js';
import { integerParam } from './query-params.js';
import { boundedText, isoTimestamp, pageLimitParam } from './schema-shapes.js';

// Re-exported: other schema files take it from here.
export { integerParam };

import { SIGN_IN_FORMATS } from './sign-in-message.js';

const entityId = z.number().int().positive();

export const ChainSchema = z.enum(['evm', 'solana']).describe('Wallet family');
export type Chain = z.infer<typeof ChainSchema>;

// ── Auth ────────────────────────────────────────────────────────────────────

export const SignInFormatSchema = z
  .enum(SIGN_IN_FORMATS)
  .describe(
    'Message to sign: `plain` ("Sign this message to authenticate: <nonce>"), `siwe` (EIP-4361, EVM wallets) ' +
      'or `siws` (Sign-In With Solana, Solana wallets); both name the site and wallets show them as a sign-in request',
  );

export const NonceQuerySchema = z.object({
  wallet: z.string().describe('Wallet address: EVM `0x` + 40 hex digits, or Solana base58 (32 bytes)'),
  format: SignInFormatSchema.default('plain'),
  chainId: integerParam(
    'EIP-155 chain id named in a `siwe` message (default EVM_CHAIN_ID); siwe only',
    1,
    Number.MAX_SAFE_INTEGER,
  ).optional(),
  purpose: z
    .enum(['signin', 'link'])
    .default('signin')
    .describe(
      '`signin` (default) for POST /auth/verify; `link` (Bearer token required) for POST /me/wallets: the nonce is ' +
        'bound to the wallet and to the signed-in user, and signs nothing else in',
    ),
});
export type NonceQuery = z.infer<typeof NonceQuerySchema>;

export const NonceResponseSchema = z.object({
  nonce: z.string().describe('Single-use value, bound to the wallet'),
  message: z.string().describe('The exact text to sign'),
  wallet: z.string().describe('Canonical form of the wallet the nonce is bound to'),
  chain: ChainSchema,
  format: SignInFormatSchema,
  expiresAt: isoTimestamp,
});
export type NonceResponse = z.infer<typeof NonceResponseSchema>;

export const VerifyBodySchema = z.object({
  wallet: z.string().describe('The wallet the nonce was issued for'),
  signature: z
    .string()
    .describe(
      'EVM: personal_sign signature in hex (0x optional): 65 bytes, 64 (EIP-2098 compact), or a contract ' +
        "account's EIP-1271/EIP-6492 signature of any length within the body limit. Solana: 64-byte ed25519 " +
        'signature in base58, of the message or of the off-chain message envelope around it (Ledger)',
    ),
  nonce: z.string().describe('The nonce from GET /auth/nonce'),
});
export type VerifyBody = z.infer<typeof VerifyBodySchema>;

export const LinkedWalletSchema = z.object({
  wallet: z.string().describe('Canonical wallet address'),
  chain: ChainSchema,
  linkedAt: isoTimestamp.describe('When it was linked (the first sign-in, for the wallet that created the user)'),
  primary: z.boolean().describe("The user's primary wallet: the oldest linked one, named by User.wallet"),
  lastLoginAt: isoTimestamp.nullable().describe('Latest sign-in with this wallet; null: none since it was linked'),
});
export type LinkedWallet = z.infer<typeof LinkedWalletSchema>;

export const UserSchema = z.object({
  id: entityId.describe('User id'),
  wallet: z
    .string()
    .describe('Canonical address of the primary wallet (EIP-55 checksummed for EVM, as given for Solana)'),
  chain: ChainSchema,
  createdAt: isoTimestamp.describe('First sign-in, ISO 8601 UTC'),
  lastLoginAt: isoTimestamp.describe('Latest sign-in, ISO 8601 UTC'),
  followingCount: z.number().int().nonnegative().describe('Number of providers this user follows'),
  wallets: z
    .array(LinkedWalletSchema)
    .describe('Every wallet that signs this user in, oldest first; `wallet` and `chain` above are the primary one'),
});
export type User = z.infer<typeof UserSchema>;

export const TokenResponseSchema = z.object({
  token: z.string().describe('JWT to send as `Authorization: Bearer <token>`'),
  tokenType: z.literal('Bearer'),
  expiresAt: isoTimestamp.describe('When the token stops being accepted (30 days after issue), ISO 8601 UTC'),
  user: UserSchema,
  isNewUser: z.boolean().describe('True when this verification created the user'),
  sessionId: z
    .string()
    .describe('The session this sign-in started (the `current` one in GET /me/sessions); the token names it'),
});
export type TokenResponse = z.infer<typeof TokenResponseSchema>;

// ── Providers ───────────────────────────────────────────────────────────────

export const MAX_SAFE_ID = Number.MAX_SAFE_INTEGER;
export const MAX_PAGE_LIMIT = 100;
export const DEFAULT_PAGE_LIMIT = 20;
/**
 * Generous for any sort key this service has and the longest filter set a cursor carries (a
 * 100-character search); a longer cursor is refused before any work.
 */
export const MAX_CURSOR_LENGTH = 1024;

export const ProviderSchema = z.object({
  id: entityId.describe('Provider id'),
  name: z.string().describe('Display name'),
  description: z.string().nullable().describe('What the provider trades, or null'),
  avatarUrl: z.string().nullable().describe('Avatar image URL (may be relative to this service), or null'),
  followerCount: z.number().int().nonnegative().describe('Current number of followers'),
  createdAt: isoTimestamp,
  // The same figures as the provider's Stats (see performance.ts), so that a list row can show them.
  roi30dPct: z
    .number()
    .nullable()
    .describe('Return over the 30 days up to the last published point, percent; null when the series is younger'),
  maxDrawdownPct: z
    .number()
    .nonnegative()
    .describe('Largest fall from a peak of the published NAV series, percent (0 when it never fell)'),
  winRate: z.number().min(0).max(1).describe('Share of winning signals, 0..1 (0 with no signals)'),
  revealDelaySeconds: z
    .number()
    .int()
    .min(0)
    .max(2_592_000)
    .describe("How long the provider's signals are for followers only before everyone sees them, seconds (0: at once)"),
});
export type Provider = z.infer<typeof ProviderSchema>;

export const FollowedProviderSchema = ProviderSchema.extend({
  followedAt: isoTimestamp.describe('When the current user followed this provider'),
});
export type FollowedProvider = z.infer<typeof FollowedProviderSchema>;

/** A calendar day, `YYYY-MM-DD` (a real date: no 2025-02-30). */
export const isoDate = z.iso.date().describe('Calendar date, YYYY-MM-DD');

function roiPct(days: number) {
  return z
    .number()
    .nullable()
    .describe(
      `(NAV at asOf / NAV ${days} days before asOf − 1) × 100, percent, the earlier NAV being the latest point on or ` +
        'before that day; null when no point is that old',
    );
}

export const ProviderStatsSchema = z.object({
  providerId: entityId,
  followerCount: z.number().int().nonnegative().describe('Current number of followers'),
  followersGained7d: z.number().int().nonnegative().describe('Current follows created in the last 7 days'),
  followersGained30d: z.number().int().nonnegative().describe('Current follows created in the last 30 days'),
  totalSignals: z.number().int().nonnegative().describe('Signals published'),
  winRate: z.number().min(0).max(1).describe('Share of winning signals, 0..1'),
  avgReturnPct: z.number().describe('Mean return per signal, percent'),
  totalReturnPct: z.number().describe('Cumulative return, percent: roiAllPct when there is one, else 0'),
  maxDrawdownPct: z
    .number()
    .nonnegative()
    .describe('Largest fall from a peak of the NAV series, percent, as a positive magnitude (0 when it never fell)'),
  lastSignalAt: isoTimestamp.nullable().describe('Latest signal, ISO 8601 UTC, or null if none'),
  updatedAt: isoTimestamp.describe('When these figures were last published, ISO 8601 UTC (creation before that)'),
  roi7dPct: roiPct(7),
  roi30dPct: roiPct(30),
  roi90dPct: roiPct(90),
  roiAllPct: z.number().nullable().describe('(last NAV / first NAV − 1) × 100, percent; null with fewer than 2 points'),
  tradingDays: z.number().int().nonnegative().describe('Number of points of the published NAV series'),
  asOf: isoDate
    .nullable()
    .describe("Date of the series' last point, which every figure is computed from; null with none"),
});
export type ProviderStats = z.infer<typeof ProviderStatsSchema>;

export const PROVIDER_SORT_FIELDS = [
  'followerCount',
  'createdAt',
  'name',
  'id',
  // Performance figures (Version 3): nulls (a figure not published yet) last in both orders.
  'roi7d',
  'roi30d',
  'roi90d',
  'roiAll',
  'maxDrawdown',
  'winRate',
  'tradingDays',
] as const;
export const ProviderSortFieldSchema = z.enum(PROVIDER_SORT_FIELDS);
export type ProviderSortField = z.infer<typeof ProviderSortFieldSchema>;
export const SortOrderSchema = z.enum(['asc', 'desc']);
export type SortOrder = z.infer<typeof SortOrderSchema>;

// `.default()` alone, not `.optional().default()`: the same parse, but the OpenAPI document
// then shows a plain typed parameter with its default instead of an `anyOf` with `not: {}`.
export const PageQuerySchema = z.object({
  page: integerParam('Page number, from 1; past the last page the items are empty', 1, MAX_SAFE_ID).default(1),
  limit: pageLimitParam('Items', MAX_PAGE_LIMIT, DEFAULT_PAGE_LIMIT),
});
export type PageQuery = z.input<typeof PageQuerySchema>;

/**
 * A cursor from an earlier page's `nextCursor`, in place of `page`. Its format and MAC are
 * checked where the key is (the API); here only its size, so that a huge one costs nothing.
 */
export const cursorParam = boundedText(MAX_CURSOR_LENGTH).describe(
  "Opaque cursor from an earlier page's `nextCursor`, instead of `page`: the page after that one, at the same " +
    'cost at any depth. It carries its sort; `page` and `cursor` together are refused.',
);

/**
 * Paging by page number or by cursor. `page` has no default here (1 when neither is given) so
 * that a request naming both can be told apart and refused.
 */
export const CursorPageQuerySchema = z.object({
  page: integerParam(
    'Page number, from 1 (default); past the last page the items are empty',
    1,
    MAX_SAFE_ID,
  ).optional(),
  limit: pageLimitParam('Items', MAX_PAGE_LIMIT, DEFAULT_PAGE_LIMIT),
  cursor: cursorParam.optional(),
});
export type CursorPageQuery = z.input<typeof CursorPageQuerySchema>;

// sortBy and order have no default in the schema: a cursor alone continues in its own sort, so
// an absent sortBy must be told apart from one that names another sort (refused).
export const ProviderListQuerySchema = CursorPageQuerySchema.extend({
  sortBy: ProviderSortFieldSchema.describe(
    'Field to sort by: followerCount (default), createdAt, name (by code point), id, or a performance figure: ' +
      'roi7d, roi30d, roi90d, roiAll (the roi…Pct figures), maxDrawdown, winRate, tradingDays; a provider without ' +
      "the figure (null) comes last in both orders. With a cursor, the cursor's",
  ).optional(),
  order: SortOrderSchema.describe(
    "Sort direction, desc (default) or asc; ties are broken by id in the same direction. With a cursor, the cursor's",
  ).optional(),
  ...ProviderFilterShape,
});
export type ProviderListQuery = z.input<typeof ProviderListQuerySchema>;

export const ProviderIdParamsSchema = z.object({
  id: integerParam('Provider id, a positive integer', 1, MAX_SAFE_ID),
});
export type ProviderIdParams = z.input<typeof ProviderIdParamsSchema>;

/** The page envelope of every paged listing. */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    page: z.number().int().positive().nullable().describe('This page number; null for a page asked by cursor'),
    limit: z.number().int().positive().describe('Items per page'),
    total: z.number().int().nonnegative().describe('Items on all pages'),
    totalPages: z.number().int().nonnegative().describe('Number of pages at this limit'),
    nextCursor: z
      .string()
      .nullable()
      .describe('Cursor of the next page (pass it as `cursor`), or null on the last page'),
  });
}
export const ProviderPageSchema = pageSchema(ProviderSchema);
export type ProviderPage = z.infer<typeof ProviderPageSchema>;
export const FollowedProviderPageSchema = pageSchema(FollowedProviderSchema);
export type FollowedProviderPage = z.infer<typeof FollowedProviderPageSchema>;

/**
 * The answer of a follow (`following: true`) or an unfollow (`following: false`): a literal,
 * not a boolean, so a typed client (and a code generator reading the OpenAPI document) knows
 * which one it holds.
 */
function followResultSchema<const Following extends boolean>(following: Following, description: string) {
  return z.object({
    providerId: entityId,
    following: z.literal(following).describe(description),
    followerCount: z.number().int().nonnegative().describe("The provider's follower count after the change"),
  });
}
export const FollowResultSchema = followResultSchema(true, 'Always true: the signed-in user now follows the provider');
export type FollowResult = z.infer<typeof FollowResultSchema>;
export const UnfollowResultSchema = followResultSchema(
  false,
  'Always false: the signed-in user no longer follows the provider',
);
export type UnfollowResult = z.infer<typeof UnfollowResultSchema>;
