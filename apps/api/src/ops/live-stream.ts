/**
 * What the live hub (live-hub.ts) and its follows (live-follows.ts) share: an open
 * `signals.live` stream as they hold it, a signal statement's entry as the hub reads it from the
 * log, and the hub's figures for /metrics.
 */
import type { ServerResponse } from 'node:http';
import type { LiveSubscription } from '../procedures/context.js';
import type { Metrics } from './metrics.js';

export interface LiveStream {
  res: ServerResponse;
  subscription: LiveSubscription;
  /** Providers it carries; undefined: every one (a key without providerIds). */
  providers: Set<number> | undefined;
  /** Only these (providerIds), for a user's follows that come later. */
  wanted: Set<number> | undefined;
  /** The last log index it was written or has had no need of. */
  after: number;
  /** While it catches up: the live events held for after it. */
  held: { index: number; bytes: Buffer }[] | undefined;
  heldBytes: number;
  /** The page of events its bound was last judged at (live-hub.ts). */
  judgedAt: number;
  ended: boolean;
  end: () => void;
}

/** A signal statement's entry, as the hub reads it from the log. */
export interface LiveEntry {
  logIndex: number;
  provider: number;
  signal: string;
  type: string;
}

/** The events' data (`{ type, signal }`) of entries, by log index; an entry left out makes no event. */
export type LiveEventReader = (entries: readonly LiveEntry[]) => Promise<Map<number, unknown>>;

/** Parses an entry; undefined for one that is not a signal statement. */
export function liveEntry(logIndex: number, bytes: Uint8Array): LiveEntry | undefined {
  let parsed: { provider?: unknown; signal?: unknown; type?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return undefined;
  }
  const { provider, signal, type } = parsed;
  if (typeof type !== 'string' || !type.startsWith('signal.')) return undefined;
  if (typeof provider !== 'number' || typeof signal !== 'string') return undefined;
  return { logIndex, provider, signal, type };
}

export interface LiveHubFigures {
  open: number;
  delivered: number;
  dropped: number;
}

/** The hub's figures for /metrics. */
export function liveMetrics(metrics: Metrics, hub: { figures(): LiveHubFigures }): void {
  metrics.gauge('signal_live_streams_open', 'signals.live streams open on this server', () => hub.figures().open);
  metrics.counter(
    'signal_live_events_delivered',
    'signals.live events written to streams by this server (one per stream per event), since it started',
    () => hub.figures().delivered,
  );
  metrics.counter(
    'signal_live_streams_dropped',
    'signals.live streams this server closed for a slow reader (LIVE_MAX_UNSENT_BYTES) or a failed catch-up, since it started',
    () => hub.figures().dropped,
  );
}

/** An event as the hub made it: its log index, its provider, its SSE bytes (made once). */
export interface LiveEvent {
  index: number;
  provider: number;
  bytes: Buffer;
}
