/**
 * Signals for the process: the first SIGTERM or SIGINT starts a graceful stop (exit 0 when it
 * is done, 1 if it fails); a second one during it exits at once with 128 + the signal's number
 * (130 for SIGINT, 143 for SIGTERM), for an operator who will not wait for slow requests.
 */
import { constants } from 'node:os';
import type { Logger } from 'pino';

export function stopOnSignals(stop: () => Promise<void>, log: Logger): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, `${signal} received again: exiting without waiting for in-flight requests`);
      process.exit(128 + constants.signals[signal]);
    }
    stopping = true;
    log.warn({ signal }, `${signal} received: finishing in-flight requests (send it again to exit at once)`);
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, 'graceful stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
