/**
 * One poller of the feed's head per process, for everything here that waits for new events
 * (the `events.stream` subscriptions, the bus relay): every `intervalMs` while anyone waits, it
 * numbers what has committed (`sequenceEvents`, skipped while another server does it) and reads
 * the last position given; waiters whose position it passed wake up. So a hundred open streams
 * cost the database one small poll per interval, not a hundred, and nothing polls when nobody
 * waits. No LISTEN/NOTIFY: a transaction-mode pooler drops it (docs/events.md).
 */
import { feedHead, sequenceEvents } from '@signal/db';
import type { Services } from './context.js';

export interface FeedWatcher {
  /**
   * Resolves once the feed's head is past `position`, after `maxWaitMs` at the latest, or at
   * once when `signal` aborts; false (at once) when the watcher has stopped.
   */
  waitBeyond(position: string, options: { signal?: AbortSignal | undefined; maxWaitMs: number }): Promise<boolean>;
  /** Wakes every waiter and polls no more. */
  stop(): void;
}

interface Waiter {
  after: bigint;
  wake: () => void;
}

export function createFeedWatcher(
  services: Pick<Services, 'database' | 'log'>,
  options: { intervalMs: number },
): FeedWatcher {
  const waiters = new Set<Waiter>();
  let head = -1n;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const schedule = () => {
    if (stopped || timer || waiters.size === 0) return;
    timer = setTimeout(poll, options.intervalMs);
  };
  const poll = async () => {
    try {
      await sequenceEvents(services.database.db);
      head = BigInt(await feedHead(services.database.db));
      for (const waiter of waiters) if (head > waiter.after) waiter.wake();
    } catch (error) {
      // The database away: the waiters wake at their maxWaitMs and try their own reads.
      services.log.warn({ err: error }, 'event feed poll failed');
    } finally {
      timer = undefined;
      schedule();
    }
  };

  return {
    waitBeyond(position, { signal, maxWaitMs }) {
      const after = BigInt(position);
      if (stopped) return Promise.resolve(false);
      if (signal?.aborted || head > after) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const waiter: Waiter = {
          after,
          wake: () => {
            clearTimeout(deadline);
            signal?.removeEventListener('abort', waiter.wake);
            waiters.delete(waiter);
            resolve(!stopped);
          },
        };
        const deadline = setTimeout(waiter.wake, maxWaitMs);
        signal?.addEventListener('abort', waiter.wake, { once: true });
        waiters.add(waiter);
        schedule();
      });
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      for (const waiter of [...waiters]) waiter.wake();
    },
  };
}
