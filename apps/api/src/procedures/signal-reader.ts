/**
 * Who reads a signal (CONTRACT.md, Version 4, "Signals", "Precise readings"): the one exception
 * to "public reads answer a service key the same as no credential".
 * - no Authorization: the public (content once `revealAt` has passed);
 * - `ADMIN_KEY` or a live service key with `signals:read`: everything, before the reveal too;
 *   a live key without that scope: the public's view (its request counts for its rate limit);
 * - a user's token (live session): the content of the providers it follows now.
 * A credential that is no credential (malformed, unknown or revoked key, expired token, signed-out
 * session) is a 401 as on any authenticated route, not a silent public view: a follower whose
 * token lapsed learns it instead of seeing commitments only (docs/signals.md).
 */
import type { Context } from './context.js';
import { countServiceKeyRequest } from './rate-limit.js';
import {
  bearerToken,
  checkKeyClaim,
  claimServiceCredential,
  isKeyClaim,
  unknownServiceKey,
} from './service-credential.js';
import { authenticate } from './trpc.js';

export type SignalReaderClass = { kind: 'public' } | { kind: 'all' } | { kind: 'user'; userId: number };

export async function signalReader(ctx: Context): Promise<SignalReaderClass> {
  if (ctx.req.headers.authorization === undefined) return { kind: 'public' };
  const token = bearerToken(ctx.req);
  const claim = claimServiceCredential(ctx.services.config, token);
  if (claim === 'not-a-key') return { kind: 'user', userId: (await authenticate(ctx)).userId };
  if (claim === 'unknown') throw unknownServiceKey();
  const key = isKeyClaim(claim) ? await checkKeyClaim(ctx.services, claim) : claim;
  if (key === 'unknown') throw unknownServiceKey();
  countServiceKeyRequest(ctx, key.id);
  return key.scopes.includes('signals:read') ? { kind: 'all' } : { kind: 'public' };
}
