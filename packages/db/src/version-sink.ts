/**
 * Where a read puts the version of the data it answered from (an ETag's source), and what a
 * cacheable answer's version is made of: its own module, as both the provider reads and the
 * catalogue's version use it (no import cycle between them).
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface VersionSink {
  version?: string;
}

/**
 * One cacheable request as its procedure's cache meta sees it once its input is parsed: the key of
 * its answer and where the answer's version comes from (apps/api/src/http/caching.ts reads it).
 */
export interface AnswerIdentity {
  /** The answer store's key: the procedure and the input it reads, parsed and defaulted. */
  key: string;
  /** Whose version the answer carries: this provider's; undefined for the catalogue's. */
  provider?: number;
  /** The answer's version from its source's (the chart's is per window); default the same. */
  version?: (source: string) => string;
  /**
   * Set when the answer also moves with the clock (the stats): its ETag is then a digest of its
   * bytes, and a kept answer is reused only until the moment this reads (epoch ms; null: none).
   */
  validUntil?: (db: Kysely<Database>, now: Date) => Promise<number | null>;
}
