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
const CREDENTIAL_NAMES = 'access_token|api_key|apikey|auth|authorization|jwt|key|password|secret|session|token';
/** Query parameter names whose value is a credential whatever it looks like. */
const CREDENTIAL_PARAMETER = new RegExp(`^(?:${CREDENTIAL_NAMES})$`, 'i');
/** Such a parameter anywhere in a text: a URL inside a value too (`?next=/login?token=…`). */
const CREDENTIAL_PARAMETER_IN_TEXT = new RegExp(`([?&](?:${CREDENTIAL_NAMES})=)[^&#]*`, 'gi');

/**
 * A piece of a URL as the server reads it: percent-decoded, again while that changes it (a value
 * encoded twice), bytes that are no UTF-8 decoded one by one. Matching the decoded text is what
 * catches `sgk%5F…`, `%2E` between a JWT's parts or an encoded ADMIN_KEY (a black-box audit found
 * all three logged as sent, when only the raw forms were matched).
 */
function decodePiece(piece: string): string {
  let text = piece;
  for (let round = 0; round < 3 && text.includes('%'); round++) {
    let next: string;
    try {
      next = decodeURIComponent(text);
    } catch {
      next = text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    }
    if (next === text) break;
    text = next;
  }
  return text;
}

/** A piece with its credentials blanked: as sent when it holds none, else decoded, blanked and encoded again. */
function redactPiece(piece: string, secrets: readonly string[]): string {
  const text = decodePiece(piece);
  let redacted = text.replace(CREDENTIAL_SHAPES, CENSOR).replace(CREDENTIAL_PARAMETER_IN_TEXT, `$1${CENSOR}`);
  for (const secret of secrets) if (secret) redacted = redacted.split(secret).join(CENSOR);
  if (redacted === text) return piece;
  return encodeURIComponent(redacted).split(encodeURIComponent(CENSOR)).join(CENSOR);
}

/**
 * `url` with every credential-looking value replaced by `[redacted]` (`secrets`: exact values
 * too), judged on each path segment, query name and value as decoded; the rest as sent.
 */
export function redactUrl(url: string, secrets: readonly string[] = []): string {
  const split = url.indexOf('?');
  const path = (split < 0 ? url : url.slice(0, split))
    .split('/')
    .map((segment) => redactPiece(segment, secrets))
    .join('/');
  const query = (split < 0 ? '' : url.slice(split + 1))
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return redactPiece(pair, secrets);
      const name = pair.slice(0, eq);
      const value = CREDENTIAL_PARAMETER.test(decodePiece(name)) ? CENSOR : redactPiece(pair.slice(eq + 1), secrets);
      return `${redactPiece(name, secrets)}=${value}`;
    })
    .join('&');
  let text = split < 0 ? path : `${path}?${query}`;
  // And the whole URL, as sent: a secret holding `/`, `=` or `&` spans pieces. (A credential-named
  // parameter after a second `?` is inside a value: its piece caught it.)
  for (const secret of secrets) {
    if (secret) text = text.split(secret).join(CENSOR).split(encodeURIComponent(secret)).join(CENSOR);
  }
  // A secret that only the whole URL decoded shows (spanning pieces, escaped): none of it is logged.
  const decoded = decodePiece(text);
  return secrets.some((secret) => secret && decoded.includes(secret)) ? CENSOR : text;
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
