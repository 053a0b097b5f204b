/**
 * The one place a failure becomes a response: REST and tRPC both map errors here, so the
 * contract's code, status, message and headers never depend on the transport.
 */
import {
  type BearerChallenge,
  DomainError,
  ERROR_STATUS,
  type ErrorBody,
  type ErrorCode,
  type ErrorIssue,
  type RateLimitState,
} from '@signal/core';
import { isDatabaseUnavailable } from '@signal/db';
import type { TRPCError } from '@trpc/server';
import type { ZodError } from 'zod';
import { MAX_BODY_BYTES, tooLarge } from './body.js';

export interface WireError {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
  /** True for failures the service caused: they are logged with their stack. */
  unexpected: boolean;
}

function wire(code: ErrorCode, message: string, extra: Partial<WireError> & { issues?: ErrorIssue[] } = {}): WireError {
  const body: ErrorBody = { code, message };
  if (extra.issues && extra.issues.length > 0) body.issues = extra.issues;
  return { status: ERROR_STATUS[code], body, headers: extra.headers ?? {}, unexpected: extra.unexpected ?? false };
}

/**
 * `@trpc/server` ships a CommonJS and an ESM build, each with its own TRPCError class (a CommonJS
 * package would load the former): `instanceof` would miss one of them, so the
 * name decides.
 */
function isTrpcError(value: unknown): value is TRPCError {
  return value instanceof Error && value.name === 'TRPCError' && typeof (value as TRPCError).code === 'string';
}

function isZodError(value: unknown): value is ZodError {
  return value instanceof Error && value.name === 'ZodError' && Array.isArray((value as ZodError).issues);
}

/** Zod issues as the contract's `issues`, and a one-line summary for the message. */
export function validationError(error: ZodError, what = 'request'): WireError {
  const issues = error.issues.map((issue) => ({
    // zod 4 paths may hold symbols (keys of a record); the wire takes strings and numbers.
    path: issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key)),
    message: issue.message,
  }));
  const summary = issues
    .slice(0, 3)
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
  return wire('VALIDATION_ERROR', `Invalid ${what}: ${summary}`, { issues });
}

/** RFC 6750 §3: `Bearer`, then the error and its description as quoted parameters. */
function bearerChallenge({ error, description }: BearerChallenge): string {
  const parameters = [
    ...(error ? [`error="${error}"`] : []),
    ...(description ? [`error_description="${description}"`] : []),
  ];
  return parameters.length > 0 ? `Bearer ${parameters.join(', ')}` : 'Bearer';
}

/**
 * The IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy:
 * "follow";q=60;w=60` and `RateLimit: "follow";r=0;t=42` (quota, window, remaining, seconds
 * until the window ends). Also sent on answers within the limit (rate-limit.ts).
 */
export function rateLimitFields(state: RateLimitState): Record<string, string> {
  return {
    'RateLimit-Policy': `"${state.policy}";q=${state.quota};w=${state.windowSeconds}`,
    RateLimit: `"${state.policy}";r=${Math.max(0, state.remaining)};t=${state.resetSeconds}`,
  };
}

/** The headers a domain error's fields call for: the one place they are written. */
function domainErrorHeaders(error: DomainError): Record<string, string> {
  const headers: Record<string, string> = {};
  if (error.challenge) headers['WWW-Authenticate'] = bearerChallenge(error.challenge);
  if (error.retryAfterSeconds !== undefined) headers['Retry-After'] = String(error.retryAfterSeconds);
  if (error.rateLimit) Object.assign(headers, rateLimitFields(error.rateLimit));
  return headers;
}

export function toWireError(error: unknown): WireError {
  const cause = isTrpcError(error) ? (error.cause ?? error) : error;
  if (cause instanceof DomainError) {
    return wire(cause.code, cause.message, { issues: cause.issues ?? [], headers: domainErrorHeaders(cause) });
  }
  if (isTrpcError(error)) {
    switch (error.code) {
      case 'BAD_REQUEST':
        if (isZodError(error.cause)) return validationError(error.cause);
        return wire('VALIDATION_ERROR', error.message || 'Invalid request');
      case 'PARSE_ERROR':
        return wire('VALIDATION_ERROR', 'Request body is not valid JSON');
      case 'NOT_FOUND':
        return wire('NOT_FOUND', 'No such endpoint');
      case 'METHOD_NOT_SUPPORTED':
        return wire('NOT_FOUND', 'This path does not take that method');
      case 'PAYLOAD_TOO_LARGE':
        return toWireError(tooLarge(MAX_BODY_BYTES));
      default:
        break;
    }
  }
  if (isDatabaseUnavailable(cause)) {
    return wire('SERVICE_UNAVAILABLE', 'The database is unavailable; retry shortly', {
      headers: { 'Retry-After': '1' },
      unexpected: false,
    });
  }
  // Anything else is a bug: the client gets no stack and no SQL, the log gets both.
  return wire('INTERNAL_ERROR', 'Internal server error', { unexpected: true });
}

/** The cause worth logging for an unexpected error (the original, not tRPC's wrapper). */
export function rootCause(error: unknown): unknown {
  return isTrpcError(error) && error.cause ? error.cause : error;
}

/** 404 for a path no route serves, naming the methods it does take when there are any. */
export function noRoute(method: string, pathname: string, methods: readonly string[]): DomainError {
  if (methods.length === 0) return new DomainError('NOT_FOUND', `No such endpoint: ${method} ${pathname}`);
  return new DomainError('NOT_FOUND', `${method} is not served on ${pathname}; it takes ${methods.join(', ')}`);
}
