import { ERROR_STATUS } from '@signal/core';
import type { ContractCode, ErrorIssue } from './wire.types.js';

/** Every code a {@link SignalApiError} can carry: the contract's, plus one for "no answer from the API". */
export type SignalErrorCode = ContractCode | 'NETWORK_ERROR';

/**
 * The one error the client throws for a failed call. `code` is the contract's code (or
 * `NETWORK_ERROR` when the API could not be reached or answered with something that is not
 * the API's), `status` the HTTP status (0 when no response arrived), `issues` the field
 * problems of a `VALIDATION_ERROR` (empty otherwise).
 *
 * Errors thrown by a wallet (the user declined to sign, say) are not wrapped: they reach the
 * caller as the wallet library threw them.
 */
export class SignalApiError extends Error {
  override readonly name = 'SignalApiError';
  readonly code: SignalErrorCode;
  readonly status: number;
  readonly issues: ErrorIssue[];
  /** Seconds to wait before retrying (`Retry-After`), on `RATE_LIMITED` and `SERVICE_UNAVAILABLE`. */
  readonly retryAfter: number | undefined;
  /**
   * Which limit a `RATE_LIMITED` hit, from the `RateLimit-Policy` field: `auth.nonce`,
   * `auth.verify`, `follow` or `read`.
   */
  readonly rateLimit: string | undefined;

  constructor(
    code: SignalErrorCode,
    message: string,
    options: { status?: number; issues?: ErrorIssue[]; cause?: unknown; retryAfter?: number; rateLimit?: string } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status ?? (code === 'NETWORK_ERROR' ? 0 : ERROR_STATUS[code]);
    this.issues = options.issues ?? [];
    this.retryAfter = options.retryAfter;
    this.rateLimit = options.rateLimit;
  }
}

export function isSignalApiError(value: unknown): value is SignalApiError {
  return value instanceof SignalApiError;
}

function isContractCode(value: unknown): value is ContractCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_STATUS, value);
}

/** The parts of a TRPCClientError we read, typed loosely so any failure can be passed in. */
interface TransportFailure {
  message?: string;
  data?: { code?: unknown; httpStatus?: unknown; issues?: unknown } | null;
  meta?: { response?: { status?: number; headers?: { get(name: string): string | null } } };
  cause?: unknown;
}

/**
 * Turns whatever a call threw into a SignalApiError. The API puts the contract's code in
 * `error.data.code` over tRPC; a failure without one never got an answer from the API (refused
 * connection, DNS, CORS, a proxy's HTML page), and becomes NETWORK_ERROR.
 */
export function toSignalApiError(error: unknown, baseUrl: string): SignalApiError {
  if (error instanceof SignalApiError) return error;
  const failure = (typeof error === 'object' && error !== null ? error : {}) as TransportFailure;
  const data = failure.data;
  if (data && isContractCode(data.code)) {
    return new SignalApiError(data.code, failure.message || data.code, {
      status: typeof data.httpStatus === 'number' ? data.httpStatus : ERROR_STATUS[data.code],
      issues: Array.isArray(data.issues) ? (data.issues as ErrorIssue[]) : [],
      cause: error,
      ...retryHints(failure.meta?.response?.headers),
    });
  }
  // A non-JSON answer's response rides on the cause (transport.ts).
  const status = (failure.meta ?? (failure.cause as TransportFailure['meta']))?.response?.status;
  const reason = describeCause(failure.cause ?? error);
  const message =
    typeof status === 'number'
      ? `Unexpected answer from ${baseUrl} (HTTP ${status}): ${reason}`
      : `Could not reach the API at ${baseUrl}: ${reason}`;
  return new SignalApiError('NETWORK_ERROR', message, { status: status ?? 0, cause: error });
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  // Node's fetch says "fetch failed" and keeps the system error (ECONNREFUSED, …) in its cause.
  const inner = cause.cause instanceof Error ? ` (${cause.cause.message})` : '';
  return `${cause.message}${inner}`;
}

/** Retry-After (delay seconds) and the name in RateLimit-Policy (`"follow";q=60;w=60`). */
function retryHints(headers: { get(name: string): string | null } | undefined) {
  const retryAfter = headers?.get('retry-after');
  const policy = /^"([^"]+)"/.exec(headers?.get('ratelimit-policy') ?? '')?.[1];
  return {
    ...(retryAfter && /^\d+$/.test(retryAfter) ? { retryAfter: Number(retryAfter) } : {}),
    ...(policy ? { rateLimit: policy } : {}),
  };
}
