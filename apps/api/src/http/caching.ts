/**
 * HTTP caching of the public reads: `GET /providers`, `/providers/{id}`, `/providers/{id}/stats`
 * and `/openapi.json` answer with an ETag and a short public Cache-Control, and a request whose
 * If-None-Match matches gets 304 with no body. A request with an Authorization header is never
 * cached (`no-store`, no ETag): a user's own reads must show their own writes at once.
 *
 * A revalidation should cost less than the answer. The list and the detail carry a version kept
 * by the database (migration 0007: the catalogue's version rises with any change of any
 * provider, a provider's with any change of its row), so their 304 costs one small read and no
 * page, mapping, validation or JSON. The stats are hashed instead: their 7- and 30-day figures
 * move with the clock, which no stored version follows.
 *
 * Every ETag starts with a digest of the OpenAPI document, so a release that changes a wire
 * shape never revalidates an answer cached in the old shape.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Database, performanceVersion, statsValidUntil, type VersionSink } from '@signal/db';
import type { Kysely } from 'kysely';
import type { Metrics } from '../ops/metrics.js';
import { sendJson } from '../wire/respond.js';
import {
  type AnswerCacheCounts,
  type AnswerStore,
  answerStore,
  type KeptAnswer,
  type VersionReader,
  versionReader,
} from './answer-cache.js';

type VersionRead = (db: Kysely<Database>) => Promise<string | undefined>;

/**
 * A cacheable procedure's policy, read from its meta and bound to the server's services by the
 * composition root (procedures/cache-policy.ts): how to read the current version of an answer
 * without building it (null when the answer is hashed), the answer cache's key, the tag's letter.
 */
export interface CachePolicy {
  revalidate: ((input: Record<string, unknown>) => VersionRead | undefined) | null;
  identify: (input: Record<string, unknown>) => { key: string; provider?: number } | undefined;
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
  /** The OpenAPI document's JSON text; its digest starts every ETag. Called once, on first use. */
  documentText: () => string;
  /** A version read where the procedure would read its answer (the replica for a public read). */
  readCatalogue: <T>(exchange: Exchange, read: (db: Kysely<Database>) => Promise<T>) => Promise<T>;
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

/** A kept answer's bytes (Content-Length set, so HEAD carries the GET's headers). */
function sendBytes(res: ServerResponse, body: Buffer, headers: Record<string, string>): void {
  res.statusCode = 200;
  for (const name in headers) res.setHeader(name, headers[name] as string);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', body.length);
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
   * Answers a cacheable request: 304 when If-None-Match still matches, else the answer of
   * `run` with its ETag. `run` gets the sink where the procedure leaves its data's version.
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

export function restCaching(deps: CachingDeps): RestCaching {
  const { policies } = deps;
  const cacheControl = publicCacheControl(deps.config.publicCacheMaxAge);
  let document: { text: string; etag: string; prefix: string } | undefined;
  const openApiDocument = () => {
    if (!document) {
      const text = deps.documentText();
      const hash = digest(text);
      document = { text, etag: `W/"${hash}"`, prefix: hash.slice(0, 8) };
    }
    return document;
  };
  const versionTag = (procedure: string, version: string) =>
    `W/"${openApiDocument().prefix}-${policies.get(procedure)?.versionKind ?? 'p'}${version}"`;

  const budgetBytes = deps.config.answerCacheMb * 1024 * 1024;
  const answers: AnswerStore | undefined = budgetBytes > 0 ? answerStore(budgetBytes) : undefined;
  // Public reads go where their answers are read (the replica, when there is one); a request
  // with a token reads the primary, as its procedure does.
  const onPrimary = versionReader(deps.primary);
  const { replica } = deps;
  const onReplica = replica ? versionReader((query) => replica.read(query)) : onPrimary;
  const readerFor = (req: IncomingMessage): { versions: VersionReader; db: ReadDb } =>
    req.headers.authorization === undefined && replica
      ? { versions: onReplica, db: (query) => replica.read(query) }
      : { versions: onPrimary, db: deps.primary };

  /**
   * A cacheable read with the answer cache on: the current version first (every request), then
   * the kept answer when it was built at that version (and, for stats, is still within its time
   * bound), else the procedure, whose answer is kept. A public request gets its ETag and 304s as
   * without the cache; one with a token the bytes alone (no-store).
   */
  async function serveKept(
    store: AnswerStore,
    identity: { key: string; provider?: number },
    procedure: string,
    req: IncomingMessage,
    res: ServerResponse,
    run: (cache: VersionSink) => Promise<unknown>,
  ): Promise<void> {
    const publicRead = req.headers.authorization === undefined;
    const { versions, db } = readerFor(req);
    const now = deps.now().getTime();
    let current: string | undefined;
    if (identity.provider === undefined) current = await versions.catalogue();
    else {
      current = await versions.provider(identity.provider);
      if (current !== undefined && procedure === 'providers.performance') {
        current = performanceVersion(current, identity.key.slice(identity.key.indexOf('.') + 1) as never);
      }
    }
    if (current !== undefined) {
      const kept = store.get(identity.key);
      const tagged = procedure !== 'providers.stats';
      const fresh =
        kept !== undefined &&
        kept.version === current &&
        (kept.validUntil === null || (now < kept.validUntil && now >= kept.builtAt));
      if (fresh || (publicRead && tagged && ifNoneMatch(req, versionTag(procedure, current)))) {
        store.hit();
        // Counted as the procedure would have counted it.
        deps.countRead({ req, res });
        if (!publicRead) return sendBytes(res, (kept as KeptAnswer).body, {});
        const etag = fresh ? (kept as KeptAnswer).etag : versionTag(procedure, current);
        if (ifNoneMatch(req, etag)) return notModified(res, etag, cacheControl);
        return sendBytes(res, (kept as KeptAnswer).body, { ETag: etag, 'Cache-Control': cacheControl });
      }
    }
    store.miss();
    const cache: VersionSink = {};
    // Stats: the bound of their time window, read before the answer is built (see statsValidUntil).
    const bound =
      procedure === 'providers.stats' && current !== undefined
        ? db((handle) => statsValidUntil(handle, identity.provider as number, new Date(now)))
        : undefined;
    const [data, validUntil] = await Promise.all([run(cache), bound]);
    const text = JSON.stringify(data);
    const body = Buffer.from(text);
    const etag =
      cache.version !== undefined
        ? versionTag(procedure, cache.version)
        : `W/"${openApiDocument().prefix}-h${digest(text)}"`;
    const version = cache.version ?? current;
    if (version !== undefined) {
      store.set(identity.key, { body, etag, version, validUntil: validUntil ?? null, builtAt: now });
    }
    if (!publicRead) return sendBytes(res, body, {});
    if (ifNoneMatch(req, etag)) return notModified(res, etag, cacheControl);
    sendBytes(res, body, { ETag: etag, 'Cache-Control': cacheControl });
  }

  return {
    applies(procedure, req) {
      // With the answer cache on, a request with a token is served from kept answers too (the
      // answers are the same for everyone), with no ETag and no-store as before.
      return policies.has(procedure) && (req.headers.authorization === undefined || answers !== undefined);
    },

    async serve(procedure, req, res, input, run) {
      const identity = answers && policies.get(procedure)?.identify((input ?? {}) as Record<string, unknown>);
      if (answers && identity) return serveKept(answers, identity, procedure, req, res, run);
      const read =
        req.headers['if-none-match'] !== undefined
          ? policies.get(procedure)?.revalidate?.((input ?? {}) as Record<string, unknown>)
          : undefined;
      if (read) {
        // Where the answer itself would be read (the replica, when there is one): a
        // revalidation must not move public reads back onto the primary.
        const version = await deps.readCatalogue({ req, res }, read);
        if (version !== undefined) {
          const etag = versionTag(procedure, version);
          if (ifNoneMatch(req, etag)) {
            // A 304 is a catalogue read like any other for the per-address limit (otherwise
            // the procedure, which runs below, counts it).
            deps.countRead({ req, res });
            return notModified(res, etag, cacheControl);
          }
        }
      }
      const cache: VersionSink = {};
      const text = JSON.stringify(await run(cache));
      const etag =
        cache.version !== undefined
          ? versionTag(procedure, cache.version)
          : `W/"${openApiDocument().prefix}-h${digest(text)}"`;
      if (ifNoneMatch(req, etag)) return notModified(res, etag, cacheControl);
      sendJson(res, 200, text, { ETag: etag, 'Cache-Control': cacheControl }, true);
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
