/**
 * Wire schemas of the service-key routes (`/admin/keys`) and of the followers listing that
 * internal services read with a key (CONTRACT.md, "Service keys" and "Followers of a provider").
 */
import { z } from 'zod';
import { boundedText, endedSchema, isoTimestamp, serviceLimitParam, withSecretShownOnce } from './schema-shapes.js';
import { ChainSchema, cursorParam, integerParam, pageSchema } from './schemas.js';
import { ScopeSchema } from './service-vocabulary.js';

/**
 * Every key starts with this, so secret scanners (and the service, telling a key from a JWT
 * without work) recognise one: `sgk_` and 32 random bytes in base64url (256 bits).
 */
export const SERVICE_KEY_PREFIX = 'sgk_';
export const SERVICE_KEY_PATTERN = /^sgk_[A-Za-z0-9_-]{43}$/;
/** How many leading characters of a key `start` keeps: the prefix and 8 of the random part. */
export const SERVICE_KEY_START_LENGTH = 12;

export const MAX_SERVICE_KEY_NAME_LENGTH = 100;
export const MAX_SERVICE_KEY_ID_LENGTH = 64;

export const ServiceKeySchema = z.object({
  id: z.string().describe('Key id (for DELETE /admin/keys/{id}); not the secret'),
  name: z.string().describe('What the key is for, as its creator named it'),
  scopes: z.array(ScopeSchema).describe('What the key may do'),
  createdAt: isoTimestamp,
  expiresAt: isoTimestamp.nullable().describe('When the key stops being accepted, or null: never'),
  lastUsedAt: isoTimestamp
    .nullable()
    .describe('Latest request with the key (may lag by up to 60 s), or null: never used'),
  revokedAt: isoTimestamp.nullable().describe('When the key was revoked, or null'),
  start: z.string().describe("The key's first characters, to recognise it (the secret is not kept)"),
  createdBy: z
    .string()
    .describe(
      'Who made the key: the id of the `keys:manage` key that made it (it expires no later than that key and is ' +
        'revoked with it), or `admin` (ADMIN_KEY, and keys made before makers were recorded)',
    ),
});
export type ServiceKey = z.infer<typeof ServiceKeySchema>;

export const CreatedServiceKeySchema = withSecretShownOnce(
  ServiceKeySchema,
  'key',
  'The secret',
  'send it as `Authorization: Bearer <key>`. Store it now',
);
export type CreatedServiceKey = z.infer<typeof CreatedServiceKeySchema>;

export const CreateServiceKeyBodySchema = z.object({
  name: boundedText(MAX_SERVICE_KEY_NAME_LENGTH).describe('What the key is for, 1..100 characters'),
  scopes: z
    .array(ScopeSchema)
    .min(1, 'must name at least one scope')
    .max(16, 'must name at most 16 scopes')
    .describe('What the key may do; a `keys:manage` key may grant only scopes it holds'),
  expiresAt: isoTimestamp
    .nullable()
    .optional()
    .describe(
      'When the key stops being accepted (in the future), or null/absent: never. A key made by a `keys:manage` key ' +
        'expires no later than its maker: an absent or later time becomes the maker’s',
    ),
});
export type CreateServiceKeyBody = z.input<typeof CreateServiceKeyBodySchema>;

export const ServiceKeyPageSchema = pageSchema(ServiceKeySchema);
export type ServiceKeyPage = z.infer<typeof ServiceKeyPageSchema>;

export const ServiceKeyIdParamsSchema = z.object({
  id: boundedText(MAX_SERVICE_KEY_ID_LENGTH).describe('Key id, from POST or GET /admin/keys'),
});
export type ServiceKeyIdParams = z.input<typeof ServiceKeyIdParamsSchema>;

export const RevokedServiceKeySchema = endedSchema('revoked', 'The key revoked');
export type RevokedServiceKey = z.infer<typeof RevokedServiceKeySchema>;

// ── Followers of a provider (fan-out) ──────────────────────────────────────

export const FollowersQuerySchema = z.object({
  id: integerParam('Provider id, a positive integer', 1, Number.MAX_SAFE_INTEGER),
  limit: serviceLimitParam('Followers'),
  cursor: cursorParam.optional(),
});
export type FollowersQuery = z.input<typeof FollowersQuerySchema>;

export const FollowerSchema = z.object({
  userId: z.number().int().positive().describe('User id (the order of the listing)'),
  wallet: z.string().describe("The user's wallet, in its canonical form"),
  chain: ChainSchema,
  followedAt: isoTimestamp.describe('When the user followed the provider'),
});
export type Follower = z.infer<typeof FollowerSchema>;

export const FollowerPageSchema = z.object({
  items: z.array(FollowerSchema),
  nextCursor: z
    .string()
    .nullable()
    .describe(
      'Cursor of the next page (pass it as `cursor`), or null at the end; a full last page may carry one that ' +
        'leads to an empty page',
    ),
  total: z.number().int().nonnegative().describe("The provider's current number of followers"),
});
export type FollowerPage = z.infer<typeof FollowerPageSchema>;
