/**
 * The routes of internal services: `scopedProcedure(scope)` admits a request whose Bearer
 * credential is ADMIN_KEY or a live service key holding `scope` (CONTRACT.md, "Service keys"):
 * - no or malformed Authorization, an unknown, revoked or expired key → 401 UNAUTHORIZED with
 *   WWW-Authenticate: Bearer (service-credential.ts reads the key's row on every request, so a
 *   revocation holds from the next request on every server);
 * - a user's valid JWT, or a key without the scope → 403 FORBIDDEN;
 * - past SERVICE_KEY_RATE_LIMIT_PER_MINUTE for the key → 429 RATE_LIMITED (rate-limit.ts).
 * The procedure finds the key in ctx.serviceKey: `{ id, name, scopes }` (`id` 'admin' for ADMIN_KEY).
 */
import { DomainError, type Scope } from '@signal/core';
import { countServiceKeyRequest } from './rate-limit.js';
import { bearerToken, resolveServiceCredential, unknownServiceKey } from './service-credential.js';
import { publicProcedure } from './trpc.js';

export type { ServiceKeyIdentity } from './service-credential.js';

export function scopedProcedure(scope: Scope) {
  // The scope in the meta too: the OpenAPI document marks the route as taking a service key.
  return publicProcedure.meta({ scope }).use(async ({ ctx, next }) => {
    const token = bearerToken(ctx.req);
    const serviceKey = await resolveServiceCredential(ctx.services, token);
    if (serviceKey === 'unknown') throw unknownServiceKey();
    if (serviceKey === 'not-a-key') {
      // A user's token is a valid credential that is not allowed here; anything else is none
      // (an expired or foreign token too: this route's only 401 is UNAUTHORIZED).
      const isUserToken = await ctx.services.tokens.verify(token).then(
        () => true,
        () => false,
      );
      if (!isUserToken) {
        throw new DomainError('UNAUTHORIZED', `This route takes a service key with the scope ${scope}`, {
          challenge: { error: 'invalid_token', description: 'not a service key' },
        });
      }
      throw userTokenRefused(scope);
    }
    countServiceKeyRequest(ctx, serviceKey.id);
    if (!serviceKey.scopes.includes(scope)) {
      throw new DomainError('FORBIDDEN', `This service key lacks the scope ${scope}`);
    }
    return next({ ctx: { ...ctx, serviceKey } });
  });
}

/** A user's token on a route that takes a service key with `scope`. */
export const userTokenRefused = (scope: Scope) =>
  new DomainError('FORBIDDEN', `This route takes a service key with the scope ${scope}, not a user's token`);
