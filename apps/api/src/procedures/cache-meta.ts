/**
 * The cache policy a cacheable procedure carries in its meta (`cache`, trpc.ts's Meta), in a
 * module of its own: trpc.ts needs the type, and cache-policy.ts, which builds the policies,
 * needs the procedures (rate-limit.ts), so the type there made an import cycle.
 */
import type { Database } from '@signal/db';
import type { Kysely } from 'kysely';
import type { Services } from './context.js';

export type VersionRead = (db: Kysely<Database>) => Promise<string | undefined>;

/** A cacheable procedure's policy, as its meta carries it. */
export interface CacheMeta {
  /**
   * How to read the current version of the answer to `input` without building it; undefined when
   * this input cannot be revalidated so (an invalid one: the procedure answers it, with its 400).
   * Null when the answer is hashed instead (then a revalidation runs the procedure).
   */
  revalidate: ((input: Record<string, unknown>, services: Services) => VersionRead | undefined) | null;
  /**
   * The request's identity for the answer cache (http/answer-cache.ts): the key of its answer (the
   * procedure and the input it reads once parsed and defaulted, so `?page=1&limit=20`,
   * `?limit=20&page=1` and `?` share one) and whose version it is kept under (a provider's, else
   * the catalogue's). Undefined for an input the procedure refuses: it answers that with its 400.
   */
  identify: (input: Record<string, unknown>, services: Services) => { key: string; provider?: number } | undefined;
  /** A letter per kind of version, so tags of different procedures never match; default `p`. */
  versionKind?: string;
  /**
   * The OpenAPI document leaves out its caching headers. Only the performance chart: its ETag came
   * after the document was published, and declaring it now would change the document's digest,
   * which starts every ETag (http/caching.ts), so every cached answer would revalidate in full.
   */
  undocumented?: true;
}
