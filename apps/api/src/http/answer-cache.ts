/**
 * Built answers of the public reads, kept so that a read whose data did not change is not built
 * again (ANSWER_CACHE_MB; 0 turns it off). Used by http/caching.ts.
 *
 * An answer (its JSON bytes and ETag) is kept under the version of the data it was built from,
 * the same version the 304 path checks: the catalogue's for a list page, the provider's for its
 * detail and chart, the provider's plus a time bound for its stats (whose 7- and 30-day
 * follower figures move with the clock: see statsValidUntil in the db package). Every request
 * reads the current version from the database before anything is served, so a write committed
 * on any server is seen by the next read on every server; nothing is served on a timer, and an
 * archived provider (no public version) is never answered from a kept answer.
 *
 * The version reads of requests that arrive together go to the database as one statement
 * (versionReader): each request waits for a statement that starts after it arrived, so the
 * answer is as current as a read of its own, at a fraction of a round trip each.
 *
 * Memory is bounded by a byte budget: the least recently used answers give way first.
 */
import { type CurrentVersions, currentVersions, type Database } from '@signal/db';
import type { Kysely } from 'kysely';

export interface KeptAnswer {
  /** The answer's JSON, encoded once. */
  body: Buffer;
  etag: string;
  /** The version of the data it was built from (catalogue or provider). */
  version: string;
  /** Epoch ms until which the answer stays exact at that version (stats); null: no time bound. */
  validUntil: number | null;
  /** Epoch ms when it was built: a clock that went back before it does not reuse it (stats). */
  builtAt: number;
  /** Bytes charged against the budget. */
  size: number;
}

/** What the store has done, for /metrics. */
export interface AnswerCacheCounts {
  hits: number;
  misses: number;
  evictions: number;
  bytes: number;
  entries: number;
  budgetBytes: number;
}

export interface AnswerStore {
  /** The answer kept under `key`, marked as just used. */
  get(key: string): KeptAnswer | undefined;
  /** Keeps an answer (replacing any under `key`), then evicts the least recently used until within budget. */
  set(key: string, answer: Omit<KeptAnswer, 'size'>): void;
  hit(): void;
  miss(): void;
  counts(): AnswerCacheCounts;
}

/** Map, string and object overhead charged per entry on top of its key and bytes (measured order of magnitude). */
const ENTRY_OVERHEAD_BYTES = 240;

/** A least-recently-used store within `budgetBytes` (a Map keeps insertion order: first = oldest). */
export function answerStore(budgetBytes: number): AnswerStore {
  const entries = new Map<string, KeptAnswer>();
  let bytes = 0;
  let hits = 0;
  let misses = 0;
  let evictions = 0;
  const drop = (key: string, entry: KeptAnswer) => {
    entries.delete(key);
    bytes -= entry.size;
  };
  return {
    get(key) {
      const entry = entries.get(key);
      if (entry) {
        // Most recently used last.
        entries.delete(key);
        entries.set(key, entry);
      }
      return entry;
    },
    set(key, answer) {
      const size =
        answer.body.length + 2 * (key.length + answer.etag.length + answer.version.length) + ENTRY_OVERHEAD_BYTES;
      const old = entries.get(key);
      if (old) drop(key, old);
      // An answer larger than a quarter of the budget would evict most of the others for itself.
      if (size > budgetBytes / 4) return;
      entries.set(key, { ...answer, size });
      bytes += size;
      for (const [oldest, entry] of entries) {
        if (bytes <= budgetBytes) break;
        drop(oldest, entry);
        evictions += 1;
      }
    },
    hit() {
      hits += 1;
    },
    miss() {
      misses += 1;
    },
    counts: () => ({ hits, misses, evictions, bytes, entries: entries.size, budgetBytes }),
  };
}

/** Reads current versions, one statement for the requests that arrive together. */
export interface VersionReader {
  /** The catalogue's current version. */
  catalogue(): Promise<string>;
  /** A public provider's current version; undefined when it is archived or does not exist. */
  provider(id: number): Promise<string | undefined>;
}

/**
 * Statements of version reads in flight at once. One would make a request that arrives while
 * it runs wait for it and then for the next; two let the next start at once, still gathering
 * everything that arrived meanwhile.
 */
const MAX_IN_FLIGHT = 2;

interface Batch {
  ids: Set<number>;
  catalogue: boolean;
  waiters: ((versions: CurrentVersions) => void)[];
  failed: ((error: unknown) => void)[];
}

/**
 * Gathers the version reads asked for until the next turn of the event loop (everything parsed
 * from the sockets in this one), then reads them in one statement through `read` (the primary,
 * or the read replica with its fall-back). A read never joins a statement already sent: it
 * waits for one that starts after it was asked.
 */
export function versionReader(read: <T>(query: (db: Kysely<Database>) => Promise<T>) => Promise<T>): VersionReader {
  let next: Batch | undefined;
  let scheduled = false;
  let inFlight = 0;

  const send = () => {
    scheduled = false;
    const batch = next;
    if (!batch || inFlight >= MAX_IN_FLIGHT) return;
    next = undefined;
    inFlight += 1;
    read((db) => currentVersions(db, [...batch.ids], batch.catalogue))
      .then(
        (versions) => {
          for (const waiter of batch.waiters) waiter(versions);
        },
        (error: unknown) => {
          for (const fail of batch.failed) fail(error);
        },
      )
      .finally(() => {
        inFlight -= 1;
        if (next && !scheduled) send();
      });
  };

  const ask = (id: number | undefined): Promise<CurrentVersions> => {
    if (!next) next = { ids: new Set(), catalogue: false, waiters: [], failed: [] };
    const batch = next;
    if (id === undefined) batch.catalogue = true;
    else batch.ids.add(id);
    if (!scheduled && inFlight < MAX_IN_FLIGHT) {
      scheduled = true;
      setImmediate(send);
    }
    return new Promise((resolve, reject) => {
      batch.waiters.push(resolve);
      batch.failed.push(reject);
    });
  };

  return {
    catalogue: async () => (await ask(undefined)).catalogue ?? '0',
    provider: async (id) => (await ask(id)).providers.get(id),
  };
}
