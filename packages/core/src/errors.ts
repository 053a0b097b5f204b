/**
 * The machine codes of the wire contract and the HTTP status each one answers with.
 * Both transports (REST and tRPC) map every failure through this table, so a code
 * never changes its status depending on how it was reached.
 */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  INVALID_WALLET: 400,
  INVALID_NONCE: 401,
  INVALID_SIGNATURE: 401,
  UNAUTHORIZED: 401,
  TOKEN_EXPIRED: 401,
  SESSION_REVOKED: 401,
  WALLET_NOT_FOUND: 404,
  PROVIDER_NOT_FOUND: 404,
  NOT_FOUND: 404,
  SIGNAL_NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  FORBIDDEN: 403,
  WALLET_ALREADY_LINKED: 409,
  LAST_WALLET: 409,
  IDEMPOTENCY_CONFLICT: 409,
  SIGNAL_CLOSED: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export interface ErrorIssue {
  path: (string | number)[];
  message: string;
}

/**
 * What a 401 of an authenticated route tells the client about its bearer token (RFC 6750 §3):
 * `invalid_request` for a malformed Authorization header, `invalid_token` for a token that is
 * not (or no longer) accepted; none when no token was sent.
 */
export interface BearerChallenge {
  error?: 'invalid_request' | 'invalid_token';
  description?: string;
}

/** Which rate limit refused a request and when its window ends (for the RateLimit fields). */
export interface RateLimitState {
  /** The limit's name, e.g. `follow` or `auth.nonce`. */
  policy: string;
  /** Requests allowed per window. */
  quota: number;
  windowSeconds: number;
  remaining: number;
  /** Whole seconds until the window ends. */
  resetSeconds: number;
}

export interface DomainErrorOptions {
  issues?: ErrorIssue[];
  /** A 401 of an authenticated route: answered with `WWW-Authenticate: Bearer …`. */
  challenge?: BearerChallenge;
  /** Seconds the client should wait before trying again (`Retry-After`). */
  retryAfterSeconds?: number;
  /** The limit behind a 429 (`RateLimit`, `RateLimit-Policy`). */
  rateLimit?: RateLimitState;
  cause?: unknown;
}

/**
 * A failure the client caused or may act on; carries its contract code and, as typed fields,
 * what the answer's headers say (the API's wire mapping turns them into headers, in one place).
 */
export class DomainError extends Error {
  override readonly name = 'DomainError';
  readonly code: ErrorCode;
  readonly issues: ErrorIssue[] | undefined;
  readonly challenge: BearerChallenge | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly rateLimit: RateLimitState | undefined;

  constructor(code: ErrorCode, message: string, options: DomainErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.issues = options.issues;
    this.challenge = options.challenge;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.rateLimit = options.rateLimit;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export function isDomainError(value: unknown): value is DomainError {
  return value instanceof DomainError;
}
