/**
 * Each error code in the document: when it is answered, the body it is answered with, and its
 * headers. Every example is made by the code that makes the real answer (the error's own
 * constructor, or the check that refuses, mapped by toWireError), so no message is written
 * twice and none can drift from what the service says; openapi.errors.test.ts holds the
 * examples to the answers of a running server.
 */
import { STATUS_CODES } from 'node:http';
import {
  type DomainError,
  ERROR_CODES,
  ERROR_STATUS,
  type ErrorBody,
  type ErrorCode,
  PageQuerySchema,
  type Scope,
} from '@signal/core';
import * as examples from '@signal/core/examples';
import { createNonceCodec } from '@signal/core/nonce';
import { tokenExpired } from '@signal/core/token';
import { parseWallet } from '@signal/core/wallet';
import type { OpenAPIV3 } from 'openapi-types';
import type { ZodType } from 'zod';
import { addressLimitMessage, rateLimited } from '../procedures/rate-limit.js';
import { sessionNotFound } from '../procedures/routers/sessions.router.js';
import { lastWallet, walletAlreadyLinked } from '../procedures/routers/wallets.router.js';
import { userTokenRefused } from '../procedures/service-auth.js';
import { bearerText } from '../procedures/service-credential.js';
import { invalidNonce, invalidSignature } from '../procedures/sign-in.js';
import { signalClosed, signalNotFound } from '../procedures/statements/errors.js';
import { providerNotFound, serviceKeyRefused, sessionRevoked, walletNotFound } from '../procedures/trpc.js';
import { idempotencyConflict } from '../procedures/write-transaction.js';
import { MAX_BODY_BYTES, tooLarge } from '../wire/body.js';
import { noRoute, toWireError, validationError } from '../wire/errors.js';
import { MAX_HEADER_BYTES, MAX_URL_BYTES, parseRequestTarget } from '../wire/limits.js';

const ERROR_BODY_REF = '#/components/schemas/ErrorBody';

/** The body the service answers for `error` (thrown by `make`, or returned by it). */
function answered(make: () => unknown): ErrorBody {
  try {
    return toWireError(make()).body;
  } catch (error) {
    return toWireError(error).body;
  }
}

/** The answer to an EVM address whose EIP-55 checksum fails (the example wallet, one letter's case flipped). */
function badChecksum(): unknown {
  const flipped = examples.nonceRequest.wallet.replace(/[a-f]/, (c: string) => c.toUpperCase());
  return parseWallet(flipped);
}

/** The refusal of an expired nonce, from the nonce codec itself. */
function expiredNonce(): DomainError {
  const codec = createNonceCodec(new Uint8Array(32));
  const nonce = codec.issue({ wallet: examples.nonceRequest.wallet, expiresAt: 1 });
  const opened = codec.open(nonce, { wallet: examples.nonceRequest.wallet }, new Date(2));
  if (opened.ok) throw new Error('OpenAPI: an expired nonce opened');
  return invalidNonce(opened.message);
}

const pageLimitExample = (): ErrorBody => {
  const result = PageQuerySchema.safeParse({ limit: 101 });
  if (result.success) throw new Error('OpenAPI: limit 101 passed PageQuerySchema');
  return validationError(result.error).body;
};

/** A session id the signed-in user does not have. */
const UNKNOWN_SESSION = 'c81d4e2a-5f60-4b7e-9a13-2e4f6b8d0c15';

/** When each code is answered, and the body it is answered with. */
export const ERROR_DOCS: Record<ErrorCode, { when: string; example: ErrorBody }> = {
  VALIDATION_ERROR: {
    when:
      'a query, path or body field is invalid (`issues` lists them) or the body is not JSON; and on any operation, ' +
      `a request that cannot be read: a URL over ${MAX_URL_BYTES / 1024} KiB (\`issues\` path \`["url"]\`), ` +
      `headers over ${MAX_HEADER_BYTES / 1024} KiB, malformed HTTP, or one not received in time`,
    example: pageLimitExample(),
  },
  INVALID_WALLET: {
    when: 'the wallet is neither an EVM address nor a Solana public key, or fails its EIP-55 checksum',
    example: answered(badChecksum),
  },
  INVALID_NONCE: {
    when: 'the nonce is unknown, expired, already used, or was issued for another wallet',
    example: answered(expiredNonce),
  },
  INVALID_SIGNATURE: {
    when: 'the signature is malformed or not by this wallet (the nonce stays usable)',
    example: answered(() => invalidSignature('evm')),
  },
  UNAUTHORIZED: {
    when: 'the bearer token is missing, malformed, tampered with or signed by an unknown key',
    example: answered(() => bearerText({ headers: {} } as Parameters<typeof bearerText>[0])),
  },
  TOKEN_EXPIRED: {
    when: 'the bearer token has expired',
    example: answered(tokenExpired),
  },
  SESSION_REVOKED: {
    when: "the bearer token's session was signed out (POST /auth/logout, DELETE /me/sessions/{id}) on any server",
    example: answered(sessionRevoked),
  },
  SESSION_NOT_FOUND: {
    when: 'the signed-in user has no session with this id (unknown, or another user’s)',
    example: answered(() => sessionNotFound(UNKNOWN_SESSION)),
  },
  FORBIDDEN: {
    when:
      'the credential is valid but not allowed here: a service key without the route’s scope, a user’s token on ' +
      'a route that needs a service key, or a service key on a user route',
    example: answered(() => userTokenRefused('providers:write')),
  },
  WALLET_ALREADY_LINKED: {
    when: 'the wallet is linked to another user',
    example: answered(() => walletAlreadyLinked(examples.nonceRequest.wallet)),
  },
  LAST_WALLET: {
    when: 'the wallet is the user’s only one; link another before removing it',
    example: answered(() => lastWallet(examples.nonceRequest.wallet)),
  },
  IDEMPOTENCY_CONFLICT: {
    when: 'the Idempotency-Key was used before with another body or route, or its first request is still running',
    example: answered(idempotencyConflict),
  },
  WALLET_NOT_FOUND: {
    when: 'the token is valid but its user no longer exists',
    example: answered(walletNotFound),
  },
  PROVIDER_NOT_FOUND: {
    when: 'no provider has this id',
    example: answered(() => providerNotFound(examples.provider.id)),
  },
  NOT_FOUND: {
    when:
      'the URL names no route: a mistyped path, or a path parameter holding a `/` (routing comes before the ' +
      'operation, so any operation can get it; so does a method a path does not take)',
    example: answered(() => noRoute('GET', '/providers/5/statistics', [])),
  },
  SIGNAL_NOT_FOUND: {
    when: 'the provider has no signal with this id (an update naming it, or a read)',
    example: answered(() => signalNotFound(7, 'q3L0c8mZ2yV7kT1aR5nB9w')),
  },
  SIGNAL_CLOSED: {
    when: 'an update, close or cancel of a signal that is closed, cancelled or expired',
    example: answered(() => signalClosed('q3L0c8mZ2yV7kT1aR5nB9w', 'closed')),
  },
  PAYLOAD_TOO_LARGE: {
    when:
      `the request body is over ${MAX_BODY_BYTES / 1024} KiB (any method but GET: the host reads a body on each; ` +
      'POST /providers/{id}/performance takes up to 64 KiB)',
    example: answered(() => tooLarge(MAX_BODY_BYTES)),
  },
  RATE_LIMITED: {
    when:
      'a rate limit is used up: sign-in requests per client address (`AUTH_RATE_LIMIT_PER_MINUTE`), follows and ' +
      'unfollows per user (`FOLLOW_RATE_LIMIT_PER_MINUTE`), catalogue reads per client address ' +
      '(`READ_RATE_LIMIT_PER_MINUTE`), database time of name searches the index cannot narrow per client address ' +
      '(`SEARCH_DB_MS_PER_SECOND`), signed statements per signer (`SIGNAL_RATE_LIMIT_PER_MINUTE`); see Retry-After and RateLimit',
    example: answered(() => rateLimited(addressLimitMessage(60, 'auth.nonce'), 42, { name: 'auth.nonce', limit: 60 })),
  },
  INTERNAL_ERROR: {
    when: 'an unexpected failure (logged with its cause; the body carries no details)',
    example: answered(() => new Error('any failure the service did not expect')),
  },
  SERVICE_UNAVAILABLE: {
    when: 'the database is unreachable; the service recovers by itself',
    // A refused connection, as pg reports it.
    example: answered(() => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })),
  },
};

/** The headers that come with a code's answers. */
export const ERROR_HEADERS: Partial<Record<ErrorCode, Record<string, OpenAPIV3.HeaderObject>>> = {
  UNAUTHORIZED: {
    'WWW-Authenticate': {
      description: 'Bearer challenge (RFC 6750), on every 401 of an authenticated route',
      schema: { type: 'string', example: 'Bearer error="invalid_token"' },
    },
  },
  SESSION_REVOKED: {
    'WWW-Authenticate': {
      description: 'Bearer challenge (RFC 6750): the token is no longer valid',
      schema: { type: 'string', example: 'Bearer error="invalid_token", error_description="session revoked"' },
    },
  },
  RATE_LIMITED: {
    'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', example: 42 } },
    RateLimit: {
      description:
        'Which limit, what is left of it and seconds until its window ends (IETF draft-ietf-httpapi-ratelimit-headers)',
      schema: { type: 'string', example: '"follow";r=0;t=42' },
    },
    'RateLimit-Policy': {
      description: 'The limit: quota `q` per window of `w` seconds',
      schema: { type: 'string', example: '"follow";q=60;w=60' },
    },
  },
  SERVICE_UNAVAILABLE: {
    'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', example: 1 } },
  },
};

/**
 * What the host can answer to any request before (or beside) its operation: an unreadable
 * request (wire/limits.ts), no route for the URL (http/rest.ts), a bug.
 */
export const ANY_OPERATION: readonly ErrorCode[] = ['VALIDATION_ERROR', 'NOT_FOUND', 'INTERNAL_ERROR'];

/** The VALIDATION_ERROR of an unreadable request, as the host words it. */
export function urlTooLongExample(): ErrorBody {
  try {
    parseRequestTarget(`/${'x'.repeat(MAX_URL_BYTES)}`);
  } catch (error) {
    return toWireError(error).body;
  }
  throw new Error('OpenAPI: parseRequestTarget took a URL over MAX_URL_BYTES');
}

/** A user's token on a service key's route, or a service key on a user's route. */
export function forbiddenExample(scope: Scope | undefined): ErrorBody {
  return toWireError(scope ? userTokenRefused(scope) : serviceKeyRefused()).body;
}

/** Whether every request must carry a credential (an empty requirement in OpenAPI is "none"). */
const required = (operation: OpenAPIV3.OperationObject) =>
  operation.security?.every((requirement) => Object.keys(requirement).length > 0) === true;

/** Error codes an operation can answer: its own (meta.errors) plus those of every route of its kind. */
export function errorCodesOf(
  operation: OpenAPIV3.OperationObject,
  method: string,
  own: ErrorCode[],
  scoped: boolean,
): ErrorCode[] {
  const codes = new Set<ErrorCode>([...own, ...ANY_OPERATION]);
  // A service key's route: an unknown key is 401, a user's token or a missing scope 403, and
  // each key has its own rate limit (service-auth.ts).
  if (scoped) codes.add('UNAUTHORIZED').add('FORBIDDEN').add('RATE_LIMITED');
  // A route that takes a user's token: the token refused (trpc.ts's authenticate). Where a token
  // is required, a service key sent instead is 403; where either kind or none is taken
  // (signal-reader.ts), a valid token whose user is gone is 404 WALLET_NOT_FOUND.
  else if (operation.security) {
    codes.add('UNAUTHORIZED').add('TOKEN_EXPIRED').add('SESSION_REVOKED');
    codes.add(required(operation) ? 'FORBIDDEN' : 'WALLET_NOT_FOUND');
  }
  // The REST host reads a body on every method but GET (follow and unfollow take an empty one).
  if (method !== 'get') codes.add('PAYLOAD_TOO_LARGE');
  return ERROR_CODES.filter((code) => codes.has(code));
}

/**
 * A VALIDATION_ERROR example for one procedure, made by the service's own mapping from a real
 * zod failure of its input schema: a bad first field, else a missing one.
 */
export function validationExample(input: ZodType | undefined): ErrorBody | undefined {
  const shape = (input as { shape?: Record<string, unknown> } | undefined)?.shape;
  const first = shape ? Object.keys(shape)[0] : undefined;
  if (!input || !first) return undefined;
  for (const candidate of [{ [first]: 'x' }, {}]) {
    const result = input.safeParse(candidate);
    if (!result.success) return validationError(result.error).body;
  }
  return undefined;
}

export function errorResponses(codes: ErrorCode[], overrides: Partial<Record<ErrorCode, ErrorBody>> = {}) {
  const responses: OpenAPIV3.ResponsesObject = {};
  const statuses = [...new Set(codes.map((code) => ERROR_STATUS[code]))];
  for (const status of statuses) {
    const here = codes.filter((code) => ERROR_STATUS[code] === status);
    const headers = Object.assign({}, ...here.map((code) => ERROR_HEADERS[code] ?? {}));
    responses[status] = {
      description: `${STATUS_CODES[status]}: ${here.map((code) => `\`${code}\` when ${ERROR_DOCS[code].when}`).join('; ')}.`,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      content: {
        'application/json': {
          // The shared body, with `code` narrowed to the codes this operation answers with this status.
          schema: {
            allOf: [
              { $ref: ERROR_BODY_REF },
              { type: 'object', required: ['code'], properties: { code: { type: 'string', enum: here } } },
            ],
          },
          examples: Object.fromEntries(
            here.map((code) => [code, { summary: code, value: overrides[code] ?? ERROR_DOCS[code].example }]),
          ),
        },
      },
    };
  }
  return responses;
}
