/**
 * HTTP caching of the public reads: every procedure whose meta has a `cache` policy
 * (procedures/cache-policy.ts; here a table by path from the composition root, no procedure
 * named) and `/openapi.json` answer with an ETag and a short public Cache-Control, and a request
 * whose If-None-Match matches gets 304 with no body. A request with an Authorization header is
 * never cached (`no-store`, no ETag): a user's own reads must show their own writes at once.
 *
 * A revalidation should cost less than the answer. An answer carries a version kept by the
 * database (migration 0007: the catalogue's rises with any change of any provider, a provider's
 * with any change of its row), so its 304 costs one small read and no page, mapping, validation
 * or JSON. An answer that also moves with the clock (the stats' 7- and 30-day figures, which no
 * stored version follows) is tagged by a digest of its bytes instead.
 *
 * Every tag of a cacheable read starts with WIRE_SHAPES_VERSION (core), bumped with any change of
 * those answers' shapes, so a release that changes one never revalidates an answer cached in the
 * old shape; `/openapi.json`'s tag is a digest of the document itself.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { WIRE_SHAPES_VERSION } from '@signal/core';
import type { AnswerIdentity, Database, VersionSink } from '@signal/db';
import type { Kysely } from 'kysely';
import type { Metrics } from '../ops/metrics.js';
import { sendJson } from '../wire/respond.js';
import {
  type AnswerCacheCounts,
  type AnswerStore,
  answerStore,
  type VersionReader,
  versionReader,
} from './answer-cache.js';

/** A cacheable procedure's policy, read from its meta and bound to the server's services by the composition root. */
export interface CachePolicy {
  /** The request's identity from its input (parsed once); undefined for an input its procedure refuses. */
  identify: (input: Record<string, unknown>) => AnswerIdentity | undefined;
  /** The tag's letter for this kind of version. */
  versionKind: string;
}

type ReadDb = <T>(query: (db: Kysely<Database>) => Promise<T>) => Promise<T>;
type Exchange = { req: IncomingMessage; res: ServerResponse };

/** What the host's caching is handed by the composition root (services.ts). */
export interface CachingDeps {
  config: { publicCacheMaxAge: number; answerCacheMb: number };
  now: () => Date;
  primary: ReadDb;
  /** Set with DATABASE_READ_URL: where public reads go. */
  replica?: { read: ReadDb };
  /** Per cacheable procedure, by its path. */
  policies: ReadonlyMap<string, CachePolicy>;
  /** The OpenAPI document's JSON text (its digest is its ETag). Called once, on first use. */
  documentText: () => string;
  /** Counts a read answered here for the per-address read limit, as the procedure would have. */
  countRead: (exchange: Exchange) => void;
}

/** `public, max-age=N, stale-while-revalidate=N`: a CDN serves at most 2N seconds old. */
export function publicCacheControl(maxAge: number): string {
  return maxAge > 0 ? `public, max-age=${maxAge}, stale-while-revalidate=${maxAge}` : 'public, no-cache';
}

const digest = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 22);

/** True when If-None-Match lists this tag (weak comparison, as RFC 9110 has for GET) or `*`. */
export function ifNoneMatch(req: IncomingMessage, etag: string): boolean {
  const header = req.headers['if-none-match'];
  if (header === undefined) return false;
  const bare = etag.startsWith('W/') ? etag.slice(2) : etag;
  for (const part of header.split(',')) {
    const tag = part.trim();
    if (tag === '*' || tag === bare || tag === `W/${bare}`) return true;
  }
  return false;
}

/** An answer's JSON (Content-Length set, so HEAD carries the GET's headers). */
function sendBytes(res: ServerResponse, body: Buffer | string, headers: Record<string, string>): void {
  res.statusCode = 200;
  for (const name in headers) res.setHeader(name, headers[name] as string);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

function notModified(res: ServerResponse, etag: string, cacheControl: string): void {
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', cacheControl);
  res.writeHead(304).end();
}

export interface RestCaching {
  /** True when this procedure's answer to this request may be cached. */
  applies(procedure: string, req: IncomingMessage): boolean;
  /**
   * Answers a cacheable request: 304 when If-None-Match still matches, a kept answer when the
   * answer store has one at the current version, else the answer of `run` with its ETag. `run`
   * gets the sink where the procedure leaves its data's version.
   */
  serve(
    procedure: string,
    req: IncomingMessage,
    res: ServerResponse,
    input: unknown,
    run: (cache: VersionSink) => Promise<unknown>,
  ): Promise<void>;
  /** GET /openapi.json, with its ETag. */
  openApi(req: IncomingMessage, res: ServerResponse): void;
  /** What the answer cache has done (undefined when ANSWER_CACHE_MB is 0). */
  answerCounts(): AnswerCacheCounts | undefined;
}

/** The tags' first part: the wire shapes' version (see the module's comment). */
const TAG_PREFIX = `s${WIRE_SHAPES_VERSION}`;

export function restCaching(deps: CachingDeps): RestCaching {
  const { policies } = deps;
  const cacheControl = publicCacheControl(deps.config.publicCacheMaxAge);
  let document: { text: string; etag: string } | undefined;
  const openApiDocument = () => {
    if (!document) {
      const text = deps.documentText();
      document = { text, etag: `W/"${digest(text)}"` };
    }
    return document;
  };
  const versionTag = (policy: CachePolicy, version: string) => `W/"${TAG_PREFIX}-${policy.versionKind}${version}"`;
  const digestTag = (text: string) => `W/"${TAG_PREFIX}-h${digest(text)}"`;

  const budgetBytes = deps.config.answerCacheMb * 1024 * 1024;
  const answers: AnswerStore | undefined = budgetBytes > 0 ? answerStore(budgetBytes) : undefined;
  // Versions are read where the answers are (the replica, when there is one, for a public read:
  // a revalidation must not move public reads back onto the primary); a request with a token
  // reads the primary, as its procedure does.
  const onPrimary = versionReader(deps.primary);
  const { replica } = deps;
  const onReplica = replica ? versionReader((query) => replica.read(query)) : onPrimary;
  const readerFor = (req: IncomingMessage): { versions: VersionReader; db: ReadDb } =>
    req.headers.authorization === undefined && replica
      ? { versions: onReplica, db: (query) => replica.read(query) }
      : { versions: onPrimary, db: deps.primary };

  /** The answer's current version without building it; undefined for an archived or unknown provider. */
  async function currentVersion(versions: VersionReader, identity: AnswerIdentity): Promise<string | undefined> {
    if (identity.provider === undefined) return versions.catalogue();
    const source = await versions.provider(identity.provider);
    return source === undefined || !identity.version ? source : identity.version(source);
  }

  return {
    applies(procedure, req) {
      // With the answer cache on, a request with a token is served from kept answers too (the
      // answers are the same for everyone), with no ETag and no-store as before.
      return policies.has(procedure) && (req.headers.authorization === undefined || answers !== undefined);
    },

    /**
     * The one serving path. The input is identified (the policy's identify) and the current
     * version read once, before anything is built, and only when they can spare the build: with
     * the answer store on (a kept answer at that version is served), or for an If-None-Match on
     * an answer tagged by its version (a match is a 304). Otherwise, or when neither applies, the
     * procedure builds the answer and its tag comes from the version its own statement read with
     * the rows (never a version read apart from them: with the replica, that one could be newer
     * than the rows, and its 304s would keep a stale answer).
     */
    async serve(procedure, req, res, input, run) {
      const policy = policies.get(procedure) as CachePolicy;
      const publicRead = req.headers.authorization === undefined;
      const revalidating = publicRead && req.headers['if-none-match'] !== undefined;
      // The identity is wanted only by a kept answer or a revalidation: a plain public read (the
      // common one) builds its answer and takes its tag from the rows, so its input is not parsed
      // here as well as by the procedure (≈15k instructions a list page, by callgrind's call graph).
      const identity = answers || revalidating ? policy.identify((input ?? {}) as Record<string, unknown>) : undefined;
      const tagged = identity?.validUntil === undefined;
      const { versions, db } = readerFor(req);
      const now = deps.now().getTime();
      const current =
        identity && (answers || (tagged && revalidating)) ? await currentVersion(versions, identity) : undefined;
      if (identity && current !== undefined) {
        const kept = answers?.get(identity.key);
        const fresh =
          kept !== undefined &&
          kept.version === current &&
          (kept.validUntil === null || (now < kept.validUntil && now >= kept.builtAt));
        const etag = fresh ? kept.etag : tagged ? versionTag(policy, current) : undefined;
        if (fresh || (publicRead && etag !== undefined && ifNoneMatch(req, etag))) {
          answers?.hit();
          // Counted as the procedure would have counted it.
          deps.countRead({ req, res });
          if (publicRead && ifNoneMatch(req, etag as string)) return notModified(res, etag as string, cacheControl);
          // Fresh here: a public 304 without a kept answer returned above, and a token never gets one.
          const body = (kept as { body: Buffer }).body;
          return sendBytes(res, body, publicRead ? { ETag: etag as string, 'Cache-Control': cacheControl } : {});
        }
      }
      if (identity) answers?.miss();
      const cache: VersionSink = {};
      // A time bound is read before the answer is built (the stats': see statsValidUntil in db).
      const until = answers && current !== undefined ? identity?.validUntil : undefined;
      const bound = until ? db((handle) => until(handle, new Date(now))) : undefined;
      const [data, validUntil] = await Promise.all([run(cache), bound]);
      const text = JSON.stringify(data);
      const etag = cache.version !== undefined ? versionTag(policy, cache.version) : digestTag(text);
      const version = cache.version ?? current;
      let body: Buffer | string = text;
      if (answers && identity && version !== undefined) {
        body = Buffer.from(text);
        answers.set(identity.key, { body, etag, version, validUntil: validUntil ?? null, builtAt: now });
      }
      if (!publicRead) return sendBytes(res, body, {});
      if (ifNoneMatch(req, etag)) return notModified(res, etag, cacheControl);
      sendBytes(res, body, { ETag: etag, 'Cache-Control': cacheControl });
    },

    answerCounts: () => answers?.counts(),

    openApi(req, res) {
      const { text, etag } = openApiDocument();
      if (req.headers.authorization !== undefined) return sendJson(res, 200, text, {}, true);
      if (ifNoneMatch(req, etag)) return notModified(res, etag, cacheControl);
      sendJson(res, 200, text, { ETag: etag, 'Cache-Control': cacheControl }, true);
    },
  };
}

/** The answer cache's figures in /metrics (when it is on). */
export function answerCacheMetrics(metrics: Metrics, caching: RestCaching): void {
  const counts = caching.answerCounts;
  if (!counts()) return;
  const figures: [kind: 'counter' | 'gauge', name: string, help: string, figure: keyof AnswerCacheCounts][] = [
    [
      'counter',
      'signal_answer_cache_hits_total',
      'Public reads answered without building the answer: a kept answer (or a 304) at the current version',
      'hits',
    ],
    [
      'counter',
      'signal_answer_cache_misses_total',
      'Public reads whose answer was built (none kept, or kept at an older version)',
      'misses',
    ],
    [
      'counter',
      'signal_answer_cache_evictions_total',
      'Kept answers dropped to stay within ANSWER_CACHE_MB',
      'evictions',
    ],
    ['gauge', 'signal_answer_cache_bytes', 'Bytes of kept answers (ANSWER_CACHE_MB is the budget)', 'bytes'],
    ['gauge', 'signal_answer_cache_entries', 'Kept answers', 'entries'],
  ];
  for (const [kind, name, help, figure] of figures) {
    metrics[kind](name, help, () => (counts() as AnswerCacheCounts)[figure]);
  }
}
