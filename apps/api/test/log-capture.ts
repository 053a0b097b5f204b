/** A server's own log lines at trace level, kept as text for a test to search (service keys, redaction). */
import { Writable } from 'node:stream';
import { createLogger } from '../src/ops/logger.js';

/** Every line the server writes, as text. */
export function logCapture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger('trace', stream), text: () => lines.join('') };
}
