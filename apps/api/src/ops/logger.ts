/**
 * The service's logger. Credentials never reach a log line (docs/security.md, "Logs"):
 * - pino's redaction blanks every Authorization (and Cookie) header wherever a logged object
 *   carries one (a request, an error with its request or its headers);
 * - a logged URL (`url`, the access log's field) has every value that looks like a credential
 *   blanked: a service key (`sgk_…`), a JWT, the ADMIN_KEY, and the value of any query parameter
 *   named like one (`token`, `key`, `access_token`, …), since clients do put keys in query strings.
 */
import { type DestinationStream, type Logger, pino } from 'pino';

const CENSOR = '[redacted]';

/** Where a credential can sit in a logged object. */
export const LOG_REDACT_PATHS = [
  'authorization',
  'headers.authorization',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
  '*.authorization',
  '*.headers.authorization',
  '*.headers.cookie',
  '*.*.headers.authorization',
  'err.*.headers.authorization',
];

/** Shapes of a credential anywhere in a URL: a service key, a JWT (three base64url parts, `eyJ` header). */
const CREDENTIAL_SHAPES = /sgk_[A-Za-z0-9_-]+|eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;
/** Query parameters whose value is a credential whatever it looks like. */
const CREDENTIAL_PARAMETER =
  /([?&](?:access_token|api_key|apikey|auth|authorization|jwt|key|password|secret|session|token)=)[^&#]*/gi;

/** `url` with every credential-looking value replaced by `[redacted]` (`secrets`: exact values too). */
export function redactUrl(url: string, secrets: readonly string[] = []): string {
  let text = url;
  for (const secret of secrets) {
    if (!secret) continue;
    // Raw and percent-encoded: either can be what the client sent.
    text = text.split(secret).join(CENSOR).split(encodeURIComponent(secret)).join(CENSOR);
  }
  return text.replace(CREDENTIAL_SHAPES, CENSOR).replace(CREDENTIAL_PARAMETER, `$1${CENSOR}`);
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, base: { service: 'signal-api' }, redact: { paths: LOG_REDACT_PATHS, censor: CENSOR } };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * The service's logger over `base` (its own, or one a test hands in): every `url` field it logs is
 * passed through redactUrl with the service's own secrets (the ADMIN_KEY).
 */
export function withUrlRedaction(base: Logger, secrets: readonly (string | undefined)[]): Logger {
  const known = secrets.filter((secret): secret is string => typeof secret === 'string' && secret.length > 0);
  return base.child(
    {},
    { serializers: { url: (url: unknown) => (typeof url === 'string' ? redactUrl(url, known) : url) } },
  );
}
