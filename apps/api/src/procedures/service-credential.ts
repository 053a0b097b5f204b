/**
 * Who a Bearer credential is, when it is not a user's token: `ADMIN_KEY` (every scope) or a
 * service key (`sgk_…`, looked up by the SHA-256 of its secret). Shared by the scoped routes
 * (service-auth.ts), which need one, and the user routes (trpc.ts), which refuse one.
 *
 * Revocation and expiry hold from the next request on every server: each request with a key
 * reads the key's row (one indexed read by its digest), or, on a read that takes the check into
 * its own statement (the followers page, service-auth.ts's scopedReadProcedure), joins it there.
 * The lookup is by digest, so its timing says nothing about the secret; the digest read is
 * compared again in constant time. last_used_at is gathered in memory (ops/service-key-usage.ts).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import {
  DomainError,
  SCOPES,
  type Scope,
  SERVICE_KEY_PATTERN,
  SERVICE_KEY_PREFIX,
  SERVICE_KEY_START_LENGTH,
} from '@signal/core';
import { findServiceKeyByHash } from '@signal/db';
import type { Config } from '../config/config.js';
import type { Services } from './context.js';

/** A service credential, as procedures see it in ctx.serviceKey. */
export interface ServiceKeyIdentity {
  /** The key's id; `admin` for ADMIN_KEY. */
  id: string;
  name: string;
  scopes: readonly Scope[];
}

export const ADMIN_IDENTITY: ServiceKeyIdentity = Object.freeze({
  id: 'admin',
  name: 'ADMIN_KEY',
  scopes: Object.freeze([...SCOPES]),
});

/** The token68 characters RFC 6750 allows in a Bearer credential ("=" padding included). */
const TOKEN68 = /^[A-Za-z0-9_.~+/=-]+$/;
const SPACE = 0x20;

/**
 * The Bearer credential of a request; 401 when there is none or the header is malformed:
 * "Bearer" in any case, one or more spaces, the token, optional trailing spaces. Read by hand
 * rather than by one case-insensitive regex with a capture (callgrind, BENCH.md "Where the
 * per-request gaps went"). The token's characters are checked by `assertToken68`, which a
 * caller may skip for a token it already verified (see trpc.ts's authenticate).
 */
export function bearerText(req: IncomingMessage): string {
  const header = req.headers.authorization;
  if (!header) {
    throw new DomainError('UNAUTHORIZED', 'Authorization header with a Bearer token is required', {
      challenge: {},
    });
  }
  let start = 6;
  while (header.charCodeAt(start) === SPACE) start++;
  let end = header.length;
  while (end > start && header.charCodeAt(end - 1) === SPACE) end--;
  if (start === 6 || header.slice(0, 6).toLowerCase() !== 'bearer') throw malformedHeader();
  return header.slice(start, end);
}

/** The token68 characters, or 401 as a malformed header. */
export function assertToken68(token: string): string {
  if (!TOKEN68.test(token)) throw malformedHeader();
  return token;
}

/** The Bearer credential of a request, its characters checked (bearerText + assertToken68). */
export const bearerToken = (req: IncomingMessage): string => assertToken68(bearerText(req));

const malformedHeader = () =>
  new DomainError('UNAUTHORIZED', 'Authorization header must be "Bearer <token>"', {
    challenge: { error: 'invalid_request' },
  });

export const unknownServiceKey = () =>
  new DomainError('UNAUTHORIZED', 'This service key is unknown, revoked or expired', {
    challenge: { error: 'invalid_token', description: 'unknown, revoked or expired key' },
  });

const digest = (text: string) => createHash('sha256').update(text).digest();

/** The stored form of a key's secret: base64url of its SHA-256. */
export function hashServiceKey(key: string): string {
  return digest(key).toString('base64url');
}

/** A new key: the secret (shown once), its digest (stored) and its first characters. */
export function generateServiceKey(): { key: string; secretHash: string; start: string } {
  const key = `${SERVICE_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { key, secretHash: hashServiceKey(key), start: key.slice(0, SERVICE_KEY_START_LENGTH) };
}

const adminDigests = new WeakMap<Config, Buffer | null>();

/**
 * Constant-time: both sides are hashed first, so neither length nor content leaks by timing.
 * Takes the token's digest, which a service key's lookup then reuses (one SHA-256 a request).
 */
function isAdminKey(config: Config, tokenDigest: Buffer): boolean {
  let admin = adminDigests.get(config);
  if (admin === undefined) {
    admin = config.adminKey ? digest(config.adminKey) : null;
    adminDigests.set(config, admin);
  }
  return admin !== null && timingSafeEqual(admin, tokenDigest);
}

/** A key-shaped credential of the right pattern, not yet looked up: its secret's digest. */
export interface KeyClaim {
  secretHash: string;
}

/**
 * What a Bearer credential claims to be, without the database: ADMIN_KEY's identity, a service
 * key to look up (its digest), `unknown` for a key-shaped token of the wrong pattern, or
 * `not-a-key` (a user's token). One SHA-256 serves the admin compare and the key's digest.
 */
export function claimServiceCredential(
  config: Config,
  token: string,
): ServiceKeyIdentity | KeyClaim | 'unknown' | 'not-a-key' {
  const tokenDigest = digest(token);
  if (isAdminKey(config, tokenDigest)) return ADMIN_IDENTITY;
  if (!token.startsWith(SERVICE_KEY_PREFIX)) return 'not-a-key';
  if (!SERVICE_KEY_PATTERN.test(token)) return 'unknown';
  return { secretHash: tokenDigest.toString('base64url') };
}

/** The live key of a claim (its row read now), or `unknown` (never existed, revoked, expired). */
export async function checkKeyClaim(
  services: Pick<Services, 'database' | 'now' | 'log' | 'keyUsage'>,
  { secretHash }: KeyClaim,
): Promise<ServiceKeyIdentity | 'unknown'> {
  const record = await findServiceKeyByHash(services.database.db, secretHash);
  if (!record || !timingSafeEqual(Buffer.from(record.secretHash), Buffer.from(secretHash))) return 'unknown';
  const now = services.now();
  if (record.revokedAt !== null || (record.expiresAt !== null && record.expiresAt <= now)) return 'unknown';
  keyUsed(services, record.id, now);
  return { id: record.id, name: record.name, scopes: record.scopes };
}

/** A live key was presented: its lastUsedAt moves (gathered in memory by ops/service-key-usage.ts). */
export function keyUsed(services: Pick<Services, 'keyUsage'>, keyId: string, at: Date): void {
  services.keyUsage.used(keyId, at);
}

/**
 * ADMIN_KEY's or a live key's identity; `unknown` for a key-shaped credential that is not a
 * live key (never existed, revoked, expired); `not-a-key` for anything else (a user's token).
 */
export async function resolveServiceCredential(
  services: Pick<Services, 'config' | 'database' | 'now' | 'log' | 'keyUsage'>,
  token: string,
): Promise<ServiceKeyIdentity | 'unknown' | 'not-a-key'> {
  const claim = claimServiceCredential(services.config, token);
  return isKeyClaim(claim) ? checkKeyClaim(services, claim) : claim;
}

export const isKeyClaim = (claim: ServiceKeyIdentity | KeyClaim | string): claim is KeyClaim =>
  typeof claim === 'object' && 'secretHash' in claim;
