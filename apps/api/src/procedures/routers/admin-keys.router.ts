/**
 * Service keys, managed by operators (`keys:manage`; ADMIN_KEY holds it): create (the secret is
 * in that answer only), list (revoked ones included), revoke. CONTRACT.md, "Service keys".
 */
import { randomBytes } from 'node:crypto';
import {
  CreatedServiceKeySchema,
  CreateServiceKeyBodySchema,
  DomainError,
  PageQuerySchema,
  RevokedServiceKeySchema,
  ServiceKeyIdParamsSchema,
  ServiceKeyPageSchema,
} from '@signal/core';
import * as examples from '@signal/core/examples';
import { insertServiceKey, listServiceKeys, revokeServiceKey } from '@signal/db';
import { scopedProcedure } from '../service-auth.js';
import {
  ADMIN_IDENTITY,
  generateServiceKey,
  type ServiceKeyIdentity,
  unknownServiceKey,
} from '../service-credential.js';
import { router } from '../trpc.js';

const manageProcedure = scopedProcedure('keys:manage');

/** The keys a caller lists and revokes: all for ADMIN_KEY, else those within its own scopes. */
const visibleScopes = (caller: ServiceKeyIdentity) => (caller.id === ADMIN_IDENTITY.id ? undefined : caller.scopes);

export const adminKeysRouter = router({
  create: manageProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/admin/keys',
        tags: ['admin'],
        summary: 'Create a service key',
        description:
          'Creates a key for an internal service. `key`, the secret, is in this answer only (only its SHA-256 is ' +
          'stored): keep it, send it as `Authorization: Bearer <key>`. `start` (its first characters) recognises it ' +
          'later. `expiresAt` in the past → 400. A `keys:manage` key may grant only scopes it holds itself ' +
          '(403 `FORBIDDEN`); ADMIN_KEY holds all. A key made by a key expires no later than its maker (an omitted ' +
          'or later `expiresAt` becomes the maker’s) and is revoked with it, and with its maker’s maker; ' +
          '`createdBy` names the maker (`admin` for ADMIN_KEY).',
        protect: true,
        successStatus: 201,
        example: { request: examples.createServiceKeyRequest, response: examples.createdServiceKey },
      },
      errors: ['FORBIDDEN'],
    })
    .input(CreateServiceKeyBodySchema)
    .output(CreatedServiceKeySchema)
    .mutation(async ({ input, ctx }) => {
      const now = ctx.services.now();
      const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
      if (expiresAt && expiresAt <= now) {
        throw new DomainError('VALIDATION_ERROR', 'Invalid request: expiresAt: must be in the future', {
          issues: [{ path: ['expiresAt'], message: 'must be in the future' }],
        });
      }
      const scopes = [...new Set(input.scopes)];
      const beyond = scopes.filter((scope) => !ctx.serviceKey.scopes.includes(scope));
      if (beyond.length > 0) {
        throw new DomainError('FORBIDDEN', `This key cannot grant scopes it does not hold: ${beyond.join(', ')}`);
      }
      const { key, secretHash, start } = generateServiceKey();
      const created = await insertServiceKey(ctx.services.database.db, {
        id: `key_${randomBytes(12).toString('base64url')}`,
        name: input.name,
        scopes,
        secretHash,
        start,
        createdAt: now,
        expiresAt,
        createdBy: ctx.serviceKey.id === ADMIN_IDENTITY.id ? null : ctx.serviceKey.id,
      });
      // The maker was revoked or expired since this request's credential check.
      if (!created) throw unknownServiceKey();
      return { ...created, key };
    }),

  list: manageProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/admin/keys',
        tags: ['admin'],
        summary: 'List service keys',
        description:
          'A page of the service keys, newest first, revoked ones included (with `revokedAt`; they are kept). ' +
          'ADMIN_KEY sees every key; a `keys:manage` key sees only keys whose scopes it holds all of. ' +
          'The secret is never shown again. `lastUsedAt` may lag by up to 60 s.',
        protect: true,
        example: { request: { page: 1, limit: 20 }, response: examples.serviceKeyPage },
      },
    })
    .input(PageQuerySchema)
    .output(ServiceKeyPageSchema)
    .query(({ input, ctx }) =>
      listServiceKeys(ctx.services.database.db, { ...input, within: visibleScopes(ctx.serviceKey) }),
    ),

  revoke: manageProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/admin/keys/{id}',
        tags: ['admin'],
        summary: 'Revoke a service key',
        description:
          'From the next request on, on every server, the key answers 401, and so does every key it made (and ' +
          'those made by them). Repeating it gives the same answer. Unknown id, or a key with a scope the caller ' +
          'does not hold (which it cannot list either) → 404 `NOT_FOUND`.',
        protect: true,
        example: { request: { id: examples.serviceKey.id }, response: { id: examples.serviceKey.id, revoked: true } },
      },
    })
    .input(ServiceKeyIdParamsSchema)
    .output(RevokedServiceKeySchema)
    .mutation(async ({ input, ctx }) => {
      const revoked = await revokeServiceKey(ctx.services.database.db, {
        id: input.id,
        now: ctx.services.now(),
        within: visibleScopes(ctx.serviceKey),
      });
      if (!revoked) throw new DomainError('NOT_FOUND', `No service key ${input.id}`);
      return { id: input.id, revoked: true as const };
    }),
});
