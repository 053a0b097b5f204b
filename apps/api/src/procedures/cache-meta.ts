/**
 * The cache policy a cacheable procedure carries in its meta (`cache`, trpc.ts's Meta), in a
 * module of its own: trpc.ts needs the type, and cache-policy.ts, which builds the policies,
 * needs the procedures (rate-limit.ts), so the type there made an import cycle.
 */
import type { AnswerIdentity } from '@signal/db';
import type { Services } from './context.js';

/** A cacheable procedure's policy, as its meta carries it: everything http/caching.ts knows of it. */
export interface CacheMeta {
  /**
   * The request's identity (its answer's key and version source), from its input parsed here
   * once; undefined for an input the procedure refuses: it answers that with its 400, never a 304.
   */
  identify: (input: Record<string, unknown>, services: Services) => AnswerIdentity | undefined;
  /** A letter per kind of version, so tags of different procedures never match; default `p`. */
  versionKind?: string;
}
