/**
 * The live hub: one per process, what serves every `signals.live` stream (docs/signals.md,
 * "Live"; issue 41). Its work per new signal statement is the same for 1 stream or 10,000:
 *
 * - Woken by the log sequencer (log-sequencer.ts `onAdvance`) when the served checkpoint grows,
 *   whichever server sequenced the entries: the sequencer's poll of the log's state row (one
 *   small query per process every 100 ms) is the database wake-up; with EVENT_BUS_URL the bus
 *   wakes it too (live-bus.ts).
 * - It reads the new entries once (`readLogEntries`, in pages), keeps the signal statements
 *   (`{"provider","signal","type":"signal.…"}`: publisher and key entries make no event), reads
 *   their signals once (`readEvents`: one round trip a page) and makes each event's bytes once:
 *   every stream may see the content (a follower, a `signals:read` key), so one view serves all.
 * - It writes those bytes to each stream that carries the provider (an index by provider, and
 *   the keys that take every provider): no work for a stream that does not.
 *
 * Bounds: a stream whose unsent bytes (past what the kernel holds) are past LIVE_MAX_UNSENT_BYTES
 * when a page of events is due is closed (its client resumes with its last id); a resuming stream
 * is written its catch-up page by page as its client drains. Follows, sign-outs and key rechecks
 * are live-follows.ts's.
 */
import { readLogEntries } from '@signal/db';
import type { Logger } from 'pino';
import type { LiveHub, Services } from '../procedures/context.js';
import { SSE_PING, sseConnected, sseError, sseEvent } from '../wire/direct-stream.js';
import { type LiveFollows, startLiveFollows } from './live-follows.js';
import type { LiveEntry, LiveEvent, LiveEventReader, LiveHubFigures, LiveStream } from './live-stream.js';
import { liveEntry } from './live-stream.js';
import { serialPasses } from './serial-passes.js';

/** Entries read at once, by the hub and by a catch-up. */
const PAGE = 256;
/** tRPC's ping and its client's reconnect (procedures/trpc.ts's `sse` settings). */
const PING_MS = 15_000;
const CLIENT = { reconnectAfterInactivityMs: 40_000 };
/** After a failed read, the hub tries again after this (or at the next wake-up). */
const RETRY_MS = 1_000;

export { type LiveEntry, type LiveEventReader, liveMetrics } from './live-stream.js';

export interface StartedLiveHub extends LiveHub {
  figures(): LiveHubFigures;
  /** The log's size as the hub last heard it (what the bus compares an event's index with). */
  size(): number;
  /** Ends every stream (the server's stop: clients resume elsewhere) and stops the follows. */
  stop(): Promise<void>;
}

export function startLiveHub(
  services: Pick<Services, 'database' | 'logSequencer' | 'feed' | 'config' | 'log'>,
  readEvents: LiveEventReader,
): StartedLiveHub {
  const { db } = services.database;
  const log: Logger = services.log;
  const bound = services.config.liveMaxUnsentBytes;
  const streams = new Set<LiveStream>();
  const byProvider = new Map<number, Set<LiveStream>>();
  const everyProvider = new Set<LiveStream>();
  let delivered = 0;
  /** Pages fanned out so far: a stream's bound is judged once per page (`judgedAt`). */
  let pages = 0;
  let dropped = 0;
  /** The first log index not yet written out; what the sequencer serves is `target`. */
  let position = services.logSequencer.checkpoint()?.size ?? 0;
  let target = position;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  const index = (stream: LiveStream, provider: number) => {
    const set = byProvider.get(provider);
    if (set) set.add(stream);
    else byProvider.set(provider, new Set([stream]));
  };
  const unindex = (stream: LiveStream, provider: number) => {
    const set = byProvider.get(provider);
    set?.delete(stream);
    if (set?.size === 0) byProvider.delete(provider);
  };

  const drop = (stream: LiveStream, why: string) => {
    if (stream.ended) return;
    dropped += 1;
    log.debug({ why, after: stream.after }, 'signals.live: a stream closed');
    stream.res.destroy();
    stream.end();
  };

  /** Writes an event to a stream that is live (not catching up), or closes it past the bound. */
  const write = (stream: LiveStream, eventIndex: number, bytes: Buffer) => {
    if (stream.ended || eventIndex <= stream.after) return;
    // Judged once per page of events, before its first write, so that what one page brings
    // (one event larger than the bound, a burst) never cuts a reader that takes what it is sent:
    // the server holds at most the bound and one page's events for a reader.
    const judge = stream.judgedAt !== pages;
    stream.judgedAt = pages;
    if (stream.held) {
      if (judge && stream.heldBytes > bound) return drop(stream, 'held past LIVE_MAX_UNSENT_BYTES while catching up');
      stream.held.push({ index: eventIndex, bytes });
      stream.heldBytes += bytes.length;
      return;
    }
    if (judge && stream.res.writableLength > bound) return drop(stream, 'unsent past LIVE_MAX_UNSENT_BYTES');
    stream.res.write(bytes);
    stream.after = eventIndex;
    delivered += 1;
  };

  const follows: LiveFollows = startLiveFollows(services, {
    followed(stream, provider) {
      if (stream.ended || !stream.providers || (stream.wanted && !stream.wanted.has(provider))) return;
      stream.providers.add(provider);
      index(stream, provider);
    },
    unfollowed(stream, provider) {
      if (stream.ended || !stream.providers) return;
      stream.providers.delete(provider);
      unindex(stream, provider);
    },
    signedOut(stream, error) {
      if (stream.ended) return;
      stream.res.end(sseError(error));
      stream.end();
    },
  });

  /** Reads the entries [from, to) once and makes each signal statement's bytes. */
  const readPage = async (from: number, to: number): Promise<{ read: number; events: LiveEvent[] }> => {
    const bytes = await readLogEntries(db, from, Math.min(PAGE, to - from));
    const entries: LiveEntry[] = [];
    bytes.forEach((entry, i) => {
      const parsed = liveEntry(from + i, entry);
      if (parsed) entries.push(parsed);
    });
    const data = entries.length > 0 ? await readEvents(entries) : new Map<number, unknown>();
    const events: LiveEvent[] = [];
    for (const entry of entries) {
      const value = data.get(entry.logIndex);
      if (value === undefined) continue;
      events.push({
        index: entry.logIndex,
        provider: entry.provider,
        bytes: sseEvent(String(entry.logIndex), JSON.stringify(value)),
      });
    }
    return { read: bytes.length, events };
  };

  const fanOut = (events: readonly LiveEvent[]) => {
    pages += 1;
    for (const event of events) {
      for (const stream of byProvider.get(event.provider) ?? []) write(stream, event.index, event.bytes);
      for (const stream of everyProvider) write(stream, event.index, event.bytes);
    }
  };

  const pass = async () => {
    while (position < target && !stopped) {
      if (streams.size === 0) {
        // Nobody to write to: nothing is read, and a stream that comes starts from here.
        position = target;
        return;
      }
      const from = position;
      const { read, events } = await readPage(from, target);
      if (read === 0) return;
      fanOut(events);
      position = from + read;
    }
  };

  const passes = serialPasses(
    pass,
    (error) => {
      log.warn({ err: error }, 'signals.live: reading the log failed; trying again');
      clearTimeout(retry);
      retry = setTimeout(run, RETRY_MS);
      retry.unref();
    },
    () => stopped,
  );
  const run = () => void passes.run();

  services.logSequencer.onAdvance((size) => {
    if (size <= target) return;
    target = size;
    // Synchronously, so that a stream admitted after this starts past what nobody was there for.
    if (streams.size === 0 && !passes.running()) position = target;
    else run();
  });

  /** Writes [after + 1, upTo) of `stream`'s providers, page by page, waiting for its client. */
  const catchUp = async (stream: LiveStream, upTo: number) => {
    let from = stream.after + 1;
    while (from < upTo && !stream.ended) {
      const { read, events } = await readPage(from, upTo);
      if (read === 0) break;
      for (const event of events) {
        if (stream.providers && !stream.providers.has(event.provider)) continue;
        stream.res.write(event.bytes);
        delivered += 1;
      }
      from += read;
      stream.after = from - 1;
      if (stream.res.writableLength > bound / 2 && !stream.ended) {
        await new Promise<void>((resolve) => {
          stream.res.once('drain', resolve);
          stream.res.once('close', resolve);
        });
      }
    }
    const held = stream.held ?? [];
    stream.held = undefined;
    stream.heldBytes = 0;
    // What was held is written as one page (its bytes were bounded while held).
    stream.judgedAt = pages;
    for (const { index: eventIndex, bytes } of held) write(stream, eventIndex, bytes);
  };

  const ping = setInterval(() => {
    for (const stream of streams) if (!stream.ended) stream.res.write(SSE_PING);
  }, PING_MS);
  ping.unref();

  return {
    serve(res, subscription) {
      return new Promise<void>((resolve) => {
        if (stopped) {
          res.destroy();
          resolve();
          return;
        }
        const { providerIds, follows: followed } = subscription;
        const wanted = providerIds ? new Set(providerIds) : undefined;
        let providers: Set<number> | undefined;
        if (subscription.reader.kind === 'user') {
          providers = new Set((followed ?? []).filter((id) => !wanted || wanted.has(id)));
        } else if (wanted) providers = new Set(wanted);
        const stream: LiveStream = {
          res,
          subscription,
          providers,
          wanted,
          after: subscription.after,
          // Behind what the hub wrote out: held until the catch-up has written what is before it.
          held: subscription.after + 1 < position ? [] : undefined,
          heldBytes: 0,
          judgedAt: -1,
          ended: false,
          end: () => {
            if (stream.ended) return;
            stream.ended = true;
            streams.delete(stream);
            everyProvider.delete(stream);
            for (const provider of stream.providers ?? []) unindex(stream, provider);
            follows.forget(stream);
            resolve();
          },
        };
        // All of it in this tick: every event the hub writes from now on finds the stream.
        streams.add(stream);
        if (providers) for (const provider of providers) index(stream, provider);
        else everyProvider.add(stream);
        follows.watch(stream);
        res.on('close', stream.end);
        res.write(sseConnected(CLIENT));
        if (stream.held) {
          const upTo = position;
          catchUp(stream, upTo).catch((error: unknown) => {
            log.warn({ err: error }, 'signals.live: a catch-up failed; its client resumes');
            drop(stream, 'catch-up failed');
          });
        }
        if (position < target) run();
      });
    },
    figures: () => ({ open: streams.size, delivered, dropped }),
    size: () => target,
    async stop() {
      stopped = true;
      clearInterval(ping);
      clearTimeout(retry);
      for (const stream of [...streams]) {
        stream.res.destroy();
        stream.end();
      }
      await follows.stop();
      await passes.running();
    },
  };
}
