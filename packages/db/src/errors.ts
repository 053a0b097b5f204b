/**
 * Whether an error means "the database cannot be reached right now" (answered 503 and
 * retried by clients) rather than a bug (500). Covers socket failures, pool timeouts and
 * PostgreSQL's shutdown and connection-class SQLSTATEs.
 */
const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

export function isDatabaseUnavailable(error: unknown): boolean {
  for (let cause = error, depth = 0; cause && depth < 5; depth++) {
    if (typeof cause !== 'object') return false;
    const { code, message } = cause as { code?: unknown; message?: unknown };
    if (typeof code === 'string') {
      if (UNAVAILABLE_SOCKET_CODES.has(code)) return true;
      // 08xxx connection exceptions; 57P01-57P03 admin shutdown, crash shutdown, cannot connect now;
      // 57014 query_canceled covers statement_timeout.
      if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '57014') {
        return true;
      }
      if (isSchemaMissingCode(code)) return true;
    }
    if (
      typeof message === 'string' &&
      /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended/i.test(
        message,
      )
    ) {
      return true;
    }
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * 42P01 undefined_table, 3F000 invalid_schema_name: the service's tables are gone from under it
 * (dropped, or a database restored or recreated without them). Not a fault of the request, and
 * over once migrations run again: the database is unavailable, like an unreachable one.
 */
export function isSchemaMissingCode(code: string): boolean {
  return code === '42P01' || code === '3F000';
}

/** PostgreSQL's foreign_key_violation: the referenced row (a provider, a user) is gone. */
export function isForeignKeyViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23503';
}

/** PostgreSQL's unique_violation, on the named constraint when one is given. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint: name } = error as { code?: unknown; constraint?: unknown };
  return code === '23505' && (constraint === undefined || name === constraint);
}
