/**
 * The routes of internal services: `scopedProcedure(scope)` admits a request whose Bearer
 * credential is ADMIN_KEY or a live service key holding `scope` (CONTRACT.md, "Service keys"):
 * - no or malformed Authorization, an unknown, revoked or expired key → 401 UNAUTHORIZED with
 *   WWW-Authenticate: Bearer (service-credential.ts reads the key's row on every request, so a
 *   revocation holds from the next request on every server);
 * - a user's valid JWT, or a key without the scope → 403 FORBIDDEN;
 * - past SERVICE_KEY_RATE_LIMIT_PER_MINUTE for the key → 429 RATE_LIMITED (rate-limit.ts).
 * The procedure finds the key in ctx.serviceKey: `{ id, name, scopes }` (`id` 'admin' for ADMIN_KEY).
 * scopedReadProcedure leaves a service key's lookup to the read's own statement (ctx.keyInRead).
 */
import { DomainError, type Scope } from '@signal/core';
import type { Context } from './context.js';
import { countServiceKeyRequest } from './rate-limit.js';
import {
  bearerToken,
  checkKeyClaim,
  claimServiceCredential,
  isKeyClaim,
  type KeyClaim,
  keyUsed,
  resolveServiceCredential,
  type ServiceKeyIdentity,
  unknownServiceKey,
} from './service-credential.js';
import { publicProcedure } from './trpc.js';

export type { ServiceKeyIdentity } from './service-credential.js';

export function scopedProcedure(scope: Scope) {
  // The scope in the meta too: the OpenAPI document marks the route as taking a service key.
  return publicProcedure.meta({ scope }).use(async ({ ctx, next }) => {
    const token = bearerToken(ctx.req);
    const serviceKey = await admit(ctx, scope, token, await resolveServiceCredential(ctx.services, token));
    return next({ ctx: { ...ctx, serviceKey } });
  });
}

/** The catalogue's writes, providers' and their publishers' alike: admitted with a `providers:write` key. */
export const providerWriteProcedure = scopedProcedure('providers:write');

/**
 * A service key's check left to the read it admits: the read joins the key's row in its own
 * statement (one round trip, not two) and answers only if the key is live and holds the scope.
 */
export interface KeyInRead extends KeyClaim {
  scope: Scope;
  /** The time the key must not have expired at. */
  now: Date;
  /** The read found the key live with the scope: its request counts (per-key limit, lastUsedAt). */
  admitted(keyId: string): void;
  /**
   * The read answered nothing: the key's own lookup decides, as scopedProcedure does (401, 403,
   * 429); when it passes, what the read looked for is not there.
   */
  check(): Promise<void>;
}

/**
 * scopedProcedure for a read that checks a service key itself (`ctx.keyInRead`, a statement that
 * joins the key's row: listFollowersForKey): revocation and expiry still hold from the next
 * request on every server, since every request still reads the key's row, in the read's round
 * trip. ADMIN_KEY and refusals without the database are as scopedProcedure's (`ctx.keyInRead`
 * unset, `ctx.serviceKey` set).
 */
export function scopedReadProcedure(scope: Scope) {
  return publicProcedure.meta({ scope }).use(async ({ ctx, next }) => {
    const token = bearerToken(ctx.req);
    const claim = claimServiceCredential(ctx.services.config, token);
    if (!isKeyClaim(claim)) {
      const serviceKey: ServiceKeyIdentity | undefined = await admit(ctx, scope, token, claim);
      return next({ ctx: { ...ctx, serviceKey, keyInRead: undefined as KeyInRead | undefined } });
    }
    const now = ctx.services.now();
    let decided = false;
    const keyInRead: KeyInRead = {
      secretHash: claim.secretHash,
      scope,
      now,
      admitted(keyId) {
        decided = true;
        keyUsed(ctx.services, keyId, now);
        countServiceKeyRequest(ctx, keyId);
      },
      async check() {
        decided = true;
        await admit(ctx, scope, token, await checkKeyClaim(ctx.services, claim));
      },
    };
    const result = await next({ ctx: { ...ctx, serviceKey: undefined as ServiceKeyIdentity | undefined, keyInRead } });
    // Refused before its read (the input, the cursor): the key's answer comes first, as when
    // scopedProcedure checks it before anything else (401, 403 and 429 before a 400).
    if (!result.ok && !decided) await keyInRead.check();
    return result;
  });
}

/** The identity a scoped route admits, or its refusal: 401, 403 (a user's token, a missing scope), 429. */
async function admit(
  ctx: Context,
  scope: Scope,
  token: string,
  serviceKey: ServiceKeyIdentity | 'unknown' | 'not-a-key',
): Promise<ServiceKeyIdentity> {
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
  return serviceKey;
}

/** A user's token on a route that takes a service key with `scope`. */
export const userTokenRefused = (scope: Scope) =>
  new DomainError('FORBIDDEN', `This route takes a service key with the scope ${scope}, not a user's token`);
