import { DomainError, type ErrorCode, type Scope } from '@signal/core';
import type { TokenClaims } from '@signal/core/token';
import { touchAndCheckSession } from '@signal/db';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { toWireError } from '../wire/errors.js';
import { trpcErrorShape } from '../wire/trpc-errors.js';
import type { CacheMeta } from './cache-meta.js';
import type { Context } from './context.js';
import { assertToken68, bearerText, resolveServiceCredential, unknownServiceKey } from './service-credential.js';

/**
 * Procedure metadata: trpc-to-openapi's `openapi` block with an `example` of the request and
 * the answer (openapi.ts puts them in the document), plus `errors`, the contract codes the
 * procedure itself throws. The OpenAPI document lists them with the codes every route of its
 * kind can answer (validation, auth, body size, rate limit, 500, 503; see openapi.ts).
 */
export type Meta = OpenApiMeta<{
  errors?: ErrorCode[];
  /** Set by scopedProcedure: the route takes a service key with this scope (openapi.ts reads it). */
  scope?: Scope;
  /**
   * The procedure honours an `Idempotency-Key` header (CONTRACT.md, Version 3: POST /providers,
   * POST /providers/{id}/performance, POST /me/wallets): writeTransaction reads the header only
   * here, and openapi.ts declares it as a header parameter only here, so the two cannot differ.
   */
  idempotent?: true;
  /**
   * Set on a public read whose answer depends on who reads it (signal-reader.ts): a credential
   * is optional, and one sent is checked. The document offers no credential, a user's token or a
   * service key, and lists the 401s of a refused one.
   */
  credential?: 'optional';
  /** Set on a public read whose answer may be cached (ETag, answer cache): see cache-policy.ts. */
  cache?: CacheMeta;
  /** The largest request body this procedure takes, in bytes, when not MAX_BODY_BYTES (wire/body.ts). */
  maxBodyBytes?: number;
  openapi?: {
    example?: { request?: Record<string, unknown>; response?: unknown };
    /** The REST status of a success when it is not 200 (201 for a POST that creates). */
    successStatus?: 201;
  };
  /**
   * The statuses the route answers besides its success and its errors, each with what it means
   * (openapi/document.ts declares them): a 200 beside a 201, with the success's body. A cacheable
   * read's 304 comes with its `cache` policy.
   */
  alsoAnswers?: { status: 200; description?: string }[];
}>;

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    // tRPC clients read the contract's code in error.data.code; no stack ever leaves.
    // Its JSON-RPC code follows the status (a 404 reads as NOT_FOUND, not as an internal error).
    errorFormatter: ({ shape, error }) => trpcErrorShape(toWireError(error), shape.data.path),
    // events.stream (server-sent events): a ping every 15 s keeps proxies from closing a quiet
    // stream, and tells tRPC's client to reconnect (with its last event id) after 40 s of silence.
    sse: { ping: { enabled: true, intervalMs: 15_000 }, client: { reconnectAfterInactivityMs: 40_000 } },
  });

export const router = t.router;
export const publicProcedure = t.procedure;
/** A reusable procedure middleware (e.g. write-transaction.ts's writeTransaction). */
export const middleware = t.middleware;
/** One namespace from several routers' procedures (e.g. the public and the operator's providers.*). */
export const mergeRouters = t.mergeRouters;

/**
 * The base of the sign-in procedures: counts every auth.verify outcome for the metrics. First
 * in the chain, so rate-limited and malformed attempts are counted with their codes too.
 */
export const signInProcedure = t.procedure.use(async ({ ctx, path, next }) => {
  const metrics = ctx.services.metrics;
  if (!metrics || path !== 'auth.verify') return next();
  const result = await next();
  metrics.signIn(result.ok ? 'success' : toWireError(result.error).body.code);
  return result;
});

export const providerNotFound = (id: number) => new DomainError('PROVIDER_NOT_FOUND', `provider ${id} does not exist`);

export const walletNotFound = () =>
  new DomainError('WALLET_NOT_FOUND', 'the user of this token no longer exists; sign in again');

/**
 * The claims of the request's bearer token, once its session is found live: the token's
 * signature is checked in memory (and remembered), its session in the database on every
 * request, so a sign-out on any server refuses the token everywhere from the next request on.
 * A service key (ADMIN_KEY included) is a valid credential but not a user's: 403. Also called
 * by public procedures that need a user for one of their options (auth.nonce's `purpose=link`).
 */
export async function authenticate(ctx: Context): Promise<TokenClaims> {
  const { tokens, database, now } = ctx.services;
  const token = bearerText(ctx.req);
  // A token this server verified before is a user's token: its characters, the service-key
  // checks (ADMIN_KEY's constant-time digest compare, 16k instructions a request) and the
  // signature were all passed then. Only a token not in memory goes through them.
  let auth = tokens.verifiedClaims(token);
  if (!auth) {
    const credential = await resolveServiceCredential(ctx.services, assertToken68(token));
    if (credential === 'unknown') throw unknownServiceKey();
    if (credential !== 'not-a-key') {
      throw serviceKeyRefused();
    }
    auth = await tokens.verify(token);
  }
  const state = await touchAndCheckSession(database.db, {
    sessionId: auth.sessionId,
    userId: auth.userId,
    now: now(),
  });
  if (state === 'revoked') {
    throw sessionRevoked();
  }
  if (state === 'user-not-found') throw walletNotFound();
  return auth;
}

/**
 * Requires a valid bearer token of a live session (see authenticate); the claims go in ctx.auth.
 * `next` merges what it is given into the context (tRPC's rule, kept by run-procedure.ts), so
 * only the new field is passed: one copy of the context per request instead of two.
 */
export const requireUser = t.middleware(async ({ ctx, next }) => next({ ctx: { auth: await authenticate(ctx) } }));

export const authedProcedure = t.procedure.use(requireUser);

/** The token's session was signed out (on any server). */
export function sessionRevoked(): DomainError {
  return new DomainError('SESSION_REVOKED', 'this session was signed out; sign in again', {
    challenge: { error: 'invalid_token', description: 'session revoked' },
  });
}

/** A service key (or ADMIN_KEY) on a user's route. */
export const serviceKeyRefused = () =>
  new DomainError('FORBIDDEN', "A service key cannot call a user's route; sign in with a wallet");
