/**
 * The service's logger. Credentials never reach a log line: pino's redaction blanks every
 * Authorization (and Cookie) header wherever a logged object carries one (a request, an error
 * with its request or its headers), so a service key or a token is never written out.
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

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, base: { service: 'signal-api' }, redact: { paths: LOG_REDACT_PATHS, censor: CENSOR } };
  return destination ? pino(options, destination) : pino(options);
}
