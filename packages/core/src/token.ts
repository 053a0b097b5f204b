/**
 * Issue and verify access tokens (JWT) with an asymmetric key: EdDSA (Ed25519) or ES256.
 * Verification pins the algorithm, issuer and audience, resolves the key by `kid`, and
 * maps every failure to UNAUTHORIZED except a genuine, well-signed but expired token,
 * which is TOKEN_EXPIRED so that clients know to sign in again.
 */
import { createPrivateKey, createPublicKey, type KeyObject, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, errors, type JWK, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import { DomainError } from './errors.js';
import { type Chain, ChainSchema } from './schemas.js';

/** 30 days, the contract's token lifetime. */
export const TOKEN_TTL_SECONDS = 2_592_000;
/** Clock skew tolerated between servers for `exp` and a future `iat`. */
export const CLOCK_TOLERANCE_SECONDS = 30;

/** How many verified tokens a token service remembers (a token and its claims each). */
const VERIFIED_TOKEN_CACHE_SIZE = 10_000;

type Algorithm = 'EdDSA' | 'ES256';

interface VerificationKey {
  kid: string;
  alg: Algorithm;
  key: KeyObject;
  jwk: JWK;
}

export interface TokenClaims {
  userId: number;
  wallet: string;
  chain: Chain;
  jti: string;
  /** The session the token belongs to (claim `sid`); checked against the database per request. */
  sessionId: string;
  issuedAt: Date;
  expiresAt: Date;
}

export interface IssuedToken {
  token: string;
  expiresAt: Date;
}

export interface TokenServiceOptions {
  /** PKCS#8 PEM of an Ed25519 or P-256 private key. */
  privateKeyPem: string;
  /** SPKI PEMs of earlier signing keys whose tokens stay valid after a rotation. */
  previousPublicKeyPems?: string[];
  issuer: string;
  audience: string;
  ttlSeconds?: number;
  /** Injected clock, so tests can reach expiry without waiting 30 days. */
  now?: () => Date;
}

function algorithmOf(key: KeyObject): Algorithm {
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  throw new Error(`JWT signing key must be Ed25519 or EC P-256, got ${key.asymmetricKeyType ?? 'unknown'}`);
}

async function verificationKey(publicKey: KeyObject): Promise<VerificationKey> {
  const alg = algorithmOf(publicKey);
  const exported = publicKey.export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(exported);
  return { kid, alg, key: publicKey, jwk: { ...exported, kid, alg, use: 'sig' } };
}

/** Who a token is for and the session it belongs to; `issuedAt` defaults to the clock. */
export interface TokenSubject {
  userId: number;
  wallet: string;
  chain: Chain;
  sessionId: string;
  issuedAt?: Date;
}

export interface TokenService {
  /** Seconds from issue to expiry: a session started with a token ends with it. */
  readonly ttlSeconds: number;
  /** When a token issued at `issuedAt` expires (`exp` has whole seconds). */
  expiresAt(issuedAt: Date): Date;
  issue(subject: TokenSubject): Promise<IssuedToken>;
  verify(token: string): Promise<TokenClaims>;
  /**
   * The claims of a token this service verified before and that has not expired, from memory;
   * undefined otherwise (then `verify` decides). No signature check, no allocation.
   */
  verifiedClaims(token: string): TokenClaims | undefined;
  /** The JSON Web Key Set that verifies every token this service accepts. */
  jwks(): { keys: JWK[] };
}

export async function createTokenService(options: TokenServiceOptions): Promise<TokenService> {
  const now = options.now ?? (() => new Date());
  const ttl = options.ttlSeconds ?? TOKEN_TTL_SECONDS;
  const privateKey = createPrivateKey(options.privateKeyPem);
  const current = await verificationKey(createPublicKey(privateKey));
  const previous = await Promise.all(
    (options.previousPublicKeyPems ?? []).map((pem) => verificationKey(createPublicKey(pem))),
  );
  const keys = new Map<string, VerificationKey>();
  for (const key of [current, ...previous]) keys.set(key.kid, key);
  const algorithms = [...new Set([...keys.values()].map((key) => key.alg))];

  // Tokens that verified, so that a client's every request does not pay a signature check
  // (more CPU than the rest of a GET /me; BENCH.md). Keyed by the whole token text: a token
  // differing in any byte is verified afresh. A hit counts only before `exp`; from then on the
  // full check runs and answers TOKEN_EXPIRED. Bounded: the oldest entry makes room.
  // The map's key is the token's last 32 characters (the end of its signature), and the whole
  // text is compared on a hit: a header's string is new on every request, so keying by the
  // whole token made V8 hash ≈300 characters each time (≈6k instructions; callgrind, BENCH.md).
  // A token that shares a tail but differs elsewhere is verified afresh and replaces the entry.
  const verified = new Map<string, { token: string; claims: TokenClaims }>();
  const cacheKey = (token: string) => token.slice(-32);

  const unauthorized = (message: string) =>
    new DomainError('UNAUTHORIZED', message, {
      challenge: { error: 'invalid_token' },
    });

  const verifiedClaims = (token: string): TokenClaims | undefined => {
    const known = verified.get(cacheKey(token));
    return known && known.token === token && now().getTime() < known.claims.expiresAt.getTime()
      ? known.claims
      : undefined;
  };

  const expiresAtSeconds = (issuedAt: Date) => Math.floor(issuedAt.getTime() / 1000) + ttl;

  return {
    ttlSeconds: ttl,
    expiresAt: (issuedAt) => new Date(expiresAtSeconds(issuedAt) * 1000),

    async issue({ userId, wallet, chain, sessionId, issuedAt: at = now() }) {
      const issuedAt = Math.floor(at.getTime() / 1000);
      const expiresAt = expiresAtSeconds(at);
      const token = await new SignJWT({ wallet, chain, sid: sessionId })
        .setProtectedHeader({ alg: current.alg, kid: current.kid, typ: 'JWT' })
        .setSubject(String(userId))
        .setIssuer(options.issuer)
        .setAudience(options.audience)
        .setIssuedAt(issuedAt)
        .setExpirationTime(expiresAt)
        .setJti(randomUUID())
        .sign(privateKey);
      return { token, expiresAt: new Date(expiresAt * 1000) };
    },

    verifiedClaims,

    async verify(token) {
      const known = verifiedClaims(token);
      if (known) return known;
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(
          token,
          (header) => {
            const key = header.kid === undefined ? undefined : keys.get(header.kid);
            // The key decides the algorithm: a token may not pick a weaker one for itself.
            if (!key || key.alg !== header.alg) throw unauthorized('token is signed by an unknown key');
            return key.key;
          },
          {
            algorithms,
            issuer: options.issuer,
            audience: options.audience,
            currentDate: now(),
            clockTolerance: CLOCK_TOLERANCE_SECONDS,
            // Also rejects an `iat` in the future beyond the tolerance.
            maxTokenAge: ttl + CLOCK_TOLERANCE_SECONDS,
            requiredClaims: ['sub', 'iat', 'exp', 'jti'],
          },
        ));
      } catch (error) {
        if (error instanceof DomainError) throw error;
        if (error instanceof errors.JWTExpired) {
          throw tokenExpired();
        }
        throw unauthorized('token is invalid');
      }
      // `sub` is the user id as a string of plain decimal digits (RFC 7519: a string claim);
      // Number() alone would also take 42, ' 42', '0x2a' or '4.2e1' for user 42.
      const userId =
        typeof payload.sub === 'string' && /^[1-9][0-9]*$/.test(payload.sub) ? Number(payload.sub) : Number.NaN;
      const chain = ChainSchema.safeParse(payload.chain);
      if (
        !Number.isSafeInteger(userId) ||
        userId < 1 ||
        typeof payload.wallet !== 'string' ||
        !chain.success ||
        typeof payload.jti !== 'string'
      ) {
        throw unauthorized('token claims are malformed');
      }
      // Tokens issued before sessions existed name none: nothing could ever sign them out, so
      // they are refused, and the client signs in again (docs/api.md: sessions and sign-out).
      if (typeof payload.sid !== 'string' || payload.sid.length === 0) {
        throw unauthorized('token was issued before sessions and can no longer be used; sign in again');
      }
      const claims: TokenClaims = Object.freeze({
        userId,
        wallet: payload.wallet,
        chain: chain.data,
        jti: payload.jti,
        sessionId: payload.sid,
        issuedAt: new Date((payload.iat as number) * 1000),
        expiresAt: new Date((payload.exp as number) * 1000),
      });
      if (verified.size >= VERIFIED_TOKEN_CACHE_SIZE) verified.delete(verified.keys().next().value as string);
      verified.set(cacheKey(token), { token, claims });
      return claims;
    },

    jwks() {
      return { keys: [...keys.values()].map((key) => key.jwk) };
    },
  };
}

/** A genuine, well-signed token past its expiry: the one failure that is not UNAUTHORIZED. */
export function tokenExpired(): DomainError {
  return new DomainError('TOKEN_EXPIRED', 'token has expired; sign in again', {
    challenge: { error: 'invalid_token', description: 'token expired' },
  });
}
