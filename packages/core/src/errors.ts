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
  SESSION_NOT_FOUND: 404,
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

/** A failure the client caused or may act on; carries its contract code. */
export class DomainError extends Error {
  override readonly name = 'DomainError';
  readonly code: ErrorCode;
  readonly issues: ErrorIssue[] | undefined;
  /** Extra response headers the code calls for (WWW-Authenticate, Retry-After). */
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { issues?: ErrorIssue[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.issues = options.issues;
    this.headers = options.headers;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export function isDomainError(value: unknown): value is DomainError {
  return value instanceof DomainError;
}
