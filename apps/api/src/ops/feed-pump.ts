/**
 * The feed pump: one per process, the only code that numbers the feed (docs/events.md, "The
 * pump"). Every `intervalMs` it asks one statement without a lock (`feedState`) whether
 * committed events wait for a feed position and where the head is; when some wait it numbers
 * them (`sequenceEvents`, skipped while another server does it). When the head moves it wakes
 * what follows the feed in this process: the webhook fan-out and the bus relay (`onAdvance`,
 * `waitBeyond`) and the `events.stream` subscriptions, which it serves itself (`eventsAfter`).
 *
 * The streams: however many wait, the pump reads each new page once (`readFeedAfter`) and keeps
 * the last WINDOW_EVENTS events in memory; a waiting stream takes its next page from there and
 * costs the database nothing per burst. A stream further behind than the window (resuming from an
 * old id) reads its own pages until it is within it.
 *
 * Readers only read: `GET /events` shows what the pump numbered, so an event reaches the feed
 * within about one interval of its commit. No LISTEN/NOTIFY: a transaction-mode pooler drops it.
 */
import { feedState, type PositionedEvent, readFeedAfter, sequenceEvents } from '@signal/db';
import type { FeedTail, Services, TailPage } from '../procedures/context.js';

/** Events kept in memory for the streams: ten pages. */
const WINDOW_EVENTS = 1_000;
/** The window is kept filled while a stream waited within this (streams come back between pages). */
const STREAMS_GONE_MS = 30_000;
/** A page, as a stream reads it. */
export const FEED_PAGE = 100;

export interface FeedPump extends FeedTail {
  /** Calls `listener` each time the head moves (the webhook fan-out). */
  onAdvance(listener: () => void): void;
  /**
   * Resolves once the head is past `position`, after `maxWaitMs` at the latest, or at once when
   * `signal` aborts; false (at once) when the pump has stopped (the bus relay).
   */
  waitBeyond(position: string, options: { signal?: AbortSignal | undefined; maxWaitMs: number }): Promise<boolean>;
  /** Polls no more; wakes every waiter. */
  stop(): void;
}

interface Waiter {
  /** Settles the wait with what there is now for it; false when there is nothing yet. */
  settle(): boolean;
}

export function startFeedPump(services: Pick<Services, 'database' | 'log'>, options: { intervalMs: number }): FeedPump {
  const { db } = services.database;
  let head: bigint | undefined;
  /** The window: every event with a position in (windowFrom, windowEnd], in feed order. */
  let window: (PositionedEvent & { at: bigint })[] = [];
  let windowFrom = -1n;
  let windowEnd = -1n;
  /** Streams waiting for a page, and waiters for the head alone (the relay). */
  const streamWaiters = new Set<Waiter>();
  const headWaiters = new Set<Waiter>();
  let streamWaitedAt = Number.NEGATIVE_INFINITY;
  const listeners: (() => void)[] = [];
  let stopped = false;
  let failures = 0;
  let timer: NodeJS.Timeout | undefined;

  const settleWaiters = () => {
    for (const set of [streamWaiters, headWaiters]) for (const waiter of [...set]) waiter.settle();
  };

  /** Reads the pages between the window's end and the head, once for every waiting stream. */
  const fill = async (to: bigint) => {
    if (windowEnd < 0n || to - windowEnd > WINDOW_EVENTS) {
      // Nothing held, or too far behind to be worth reading: the window starts at the head, and
      // a stream behind it reads on by itself.
      window = [];
      windowFrom = windowEnd = to;
      return;
    }
    while (windowEnd < to) {
      const page = await readFeedAfter(db, windowEnd.toString(), FEED_PAGE);
      if (page.length === 0) break;
      for (const entry of page) window.push({ ...entry, at: BigInt(entry.position) });
      windowEnd = window.at(-1)!.at;
      settleWaiters();
    }
    if (window.length > WINDOW_EVENTS) {
      const dropped = window.splice(0, window.length - WINDOW_EVENTS);
      windowFrom = dropped.at(-1)!.at;
    }
  };

  const tick = async () => {
    let state = await feedState(db);
    if (state.unnumbered && (await sequenceEvents(db)) > 0) state = await feedState(db);
    const next = BigInt(state.head);
    const moved = head === undefined || next > head;
    head = next;
    // Streams follow the feed: read what they need now, once for all of them. None: the window
    // is dropped, and made again at the head when a stream comes.
    if (streamWaiters.size > 0 || performance.now() - streamWaitedAt < STREAMS_GONE_MS) await fill(next);
    else if (windowEnd !== next) windowEnd = -1n;
    settleWaiters();
    if (moved) for (const listener of listeners) listener();
    return state.unnumbered;
  };

  const run = async () => {
    timer = undefined;
    let again = false;
    try {
      again = await tick();
      if (failures > 0) services.log.info({ failures }, 'event feed pump: running again');
      failures = 0;
    } catch (error) {
      // The database away: the next tick tries again; a stream's wait ends at its maxWaitMs.
      failures += 1;
      if (failures === 1) services.log.warn({ err: error }, 'event feed pump failed');
    }
    if (!stopped) {
      // More numbered than a batch holds: the next batch at once.
      timer = setTimeout(run, again ? 0 : options.intervalMs);
      timer.unref();
    }
  };
  timer = setTimeout(run, 0);
  timer.unref();

  const wait = <T>(
    waiters: Set<Waiter>,
    settled: () => T | undefined,
    { signal, maxWaitMs }: { signal?: AbortSignal | undefined; maxWaitMs: number },
    timedOut: T,
    stoppedValue: T,
  ): Promise<T> => {
    if (stopped) return Promise.resolve(stoppedValue);
    const now = settled();
    if (now !== undefined || signal?.aborted) return Promise.resolve(now ?? timedOut);
    return new Promise<T>((resolve) => {
      const finish = (value: T) => {
        clearTimeout(deadline);
        signal?.removeEventListener('abort', onAbort);
        waiters.delete(waiter);
        resolve(value);
      };
      const onAbort = () => finish(timedOut);
      const waiter: Waiter = {
        settle() {
          const value = stopped ? stoppedValue : settled();
          if (value === undefined) return false;
          finish(value);
          return true;
        },
      };
      const deadline = setTimeout(() => finish(timedOut), maxWaitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      waiters.add(waiter);
    });
  };

  /** What the window holds after `after`: a page, 'behind' it, or undefined (nothing yet). */
  const pageAfter = (after: bigint): TailPage | undefined => {
    if (windowEnd < 0n) return undefined;
    if (after < windowFrom) return { behind: windowFrom.toString() };
    if (after >= windowEnd) return undefined;
    let low = 0;
    let high = window.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (window[middle]!.at <= after) low = middle + 1;
      else high = middle;
    }
    return window.slice(low, low + FEED_PAGE).map(({ position, event }) => ({ position, event }));
  };

  return {
    head: () => head?.toString(),
    eventsAfter(position, options) {
      const after = BigInt(position);
      streamWaitedAt = performance.now();
      return wait<TailPage | 'stopped'>(streamWaiters, () => pageAfter(after), options, [], 'stopped');
    },
    waitBeyond(position, options) {
      const after = BigInt(position);
      return wait(headWaiters, () => (head !== undefined && head > after ? true : undefined), options, true, false);
    },
    onAdvance(listener) {
      listeners.push(listener);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      settleWaiters();
    },
  };
}
