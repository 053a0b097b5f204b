/**
 * The events' data of the live hub (live-hub.ts): `{ type, signal }` for each signal statement's
 * entry, the Signal as that statement left it (the statements up to it) as a reader who may see
 * its content reads it (every live reader may: docs/signals.md, "Live"), in one query for a page
 * of entries (@signal/db's `readSignals` by log indexes). Entries of archived providers' signals
 * are left out, as in the reads.
 */
import { readSignals } from '@signal/db';
import type { Services } from '../procedures/context.js';
import type { LiveEventReader } from './live-hub.js';

export function liveEventReader(services: Pick<Services, 'database' | 'now'>): LiveEventReader {
  return async (entries) => {
    const signals = await readSignals(
      services.database.db,
      { logIndexes: entries.map((entry) => entry.logIndex) },
      { full: true, now: services.now() },
    );
    const events = new Map<number, unknown>();
    for (const entry of entries) {
      const signal = signals.get(entry.logIndex);
      if (signal) events.set(entry.logIndex, { type: entry.type, signal });
    }
    return events;
  };
}
