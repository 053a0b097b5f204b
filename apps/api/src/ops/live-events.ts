/**
 * The events' data of the live hub (live-hub.ts): `{ type, signal }` for each signal statement's
 * entry, the Signal as a reader who may see its content reads it.
 */
import type { Services } from '../procedures/context.js';
import type { LiveEventReader } from './live-hub.js';

export function liveEventReader(_services: Pick<Services, 'database'>): LiveEventReader {
  return async () => new Map();
}
