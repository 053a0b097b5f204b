/** One open `signals.live` stream as the live hub (live-hub.ts) and its follows (live-follows.ts) hold it. */
import type { ServerResponse } from 'node:http';
import type { LiveSubscription } from '../procedures/context.js';

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
