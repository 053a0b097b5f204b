/**
 * HTTP caching of the public reads and HEAD on every GET route: ETag and a public
 * Cache-Control without a token, `no-store` and no ETag with one; If-None-Match → 304 with no
 * body (checked on the socket); tags that change exactly when the answer's data does (a follow
 * changes its provider's tag, the list's and the stats', and not another provider's); HEAD
 * answering with the GET's headers and no body, on REST, tRPC and the service endpoints.
 * PostgreSQL in full, the main checks once more on PGlite.
 */
import { describe, expect, it } from 'vitest';
import { call, evmWallet, startApi, type TestApi, useApiWithUser } from '../harness.js';
import { rawHttp } from '../raw-http.js';

/** The operator's master key, for the GET routes that take a service key. */
const ADMIN_KEY = 'caching-test-admin-key-0123456789abcdef';

const PUBLIC = /^public, max-age=5, stale-while-revalidate=5$/;
/** The cacheable reads: every route with a `cache` policy in its meta (the chart too, documented since issue 37) and the document. */
const CACHEABLE = [
  '/providers?limit=3',
  '/providers/2',
  '/providers/2/stats',
  '/providers/2/performance?window=30d',
  '/openapi.json',
];

/** The raw answer to a GET with If-None-Match: status, headers and the exact bytes after them. */
function revalidate(api: TestApi, path: string, etag: string, method = 'GET') {
  return rawHttp(
    api.url,
    `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nIf-None-Match: ${etag}\r\nConnection: close\r\n\r\n`,
  );
}

async function etagOf(api: TestApi, path: string): Promise<string> {
  const reply = await call(api, 'GET', path);
  expect(reply.status, path).toBe(200);
  const etag = reply.headers.get('etag');
  expect(etag, path).toMatch(/^W\/"[A-Za-z0-9_.-]+"$/);
  return etag as string;
}

async function checkCacheableReads(api: TestApi, token: string) {
  for (const path of CACHEABLE) {
    const reply = await call(api, 'GET', path);
    expect(reply.status, path).toBe(200);
    expect(reply.headers.get('cache-control'), path).toMatch(PUBLIC);
    const etag = reply.headers.get('etag') as string;
    expect(etag, path).toMatch(/^W\/"[A-Za-z0-9_.-]+"$/);
    // Unchanged data, unchanged tag.
    expect(await etagOf(api, path), path).toBe(etag);

    const notModified = await revalidate(api, path, etag);
    expect(notModified.status, path).toBe(304);
    expect(notModified.text, path).toBe('');
    expect(notModified.headers.etag, path).toBe(etag);
    expect(notModified.headers['cache-control'], path).toMatch(PUBLIC);
    expect(notModified.headers['content-length'], path).toBeUndefined();
    // Weak comparison, lists and `*`, as RFC 9110 has for If-None-Match.
    for (const header of [etag.slice(2), `"other", ${etag}`, '*']) {
      expect((await revalidate(api, path, header)).status, `${path} ${header}`).toBe(304);
    }
    const stale = await revalidate(api, path, 'W/"stale"');
    expect(stale.status, path).toBe(200);
    expect(JSON.parse(stale.text)).toEqual(reply.body);

    // With a token: never cached, never revalidated.
    const authed = await call(api, 'GET', path, { token, headers: { 'if-none-match': etag } });
    expect(authed.status, path).toBe(200);
    expect(authed.headers.get('cache-control'), path).toBe('no-store');
    expect(authed.headers.get('etag'), path).toBeNull();
    expect(authed.body).toEqual(reply.body);
  }
}

/** A follow changes the tags of its provider, its stats and the list, and no other provider's. */
async function checkTagsFollowData(api: TestApi, token: string) {
  const paths = {
    list: '/providers?limit=3&sortBy=id&order=asc',
    other: '/providers/2',
    detail: '/providers/3',
    stats: '/providers/3/stats',
  };
  const before = Object.fromEntries(
    await Promise.all(Object.entries(paths).map(async ([k, p]) => [k, await etagOf(api, p)] as const)),
  );
  expect((await call(api, 'POST', '/providers/3/follow', { token })).status).toBe(200);
  const after = Object.fromEntries(
    await Promise.all(Object.entries(paths).map(async ([k, p]) => [k, await etagOf(api, p)] as const)),
  );
  expect(after.list).not.toBe(before.list);
  expect(after.detail).not.toBe(before.detail);
  expect(after.stats).not.toBe(before.stats);
  expect(after.other).toBe(before.other);
  // The old tag now gets the new answer; the new one a 304.
  const fresh = await revalidate(api, paths.detail, before.detail as string);
  expect(fresh.status).toBe(200);
  expect(JSON.parse(fresh.text).followerCount).toBe((await call(api, 'GET', paths.detail)).body.followerCount);
  expect((await revalidate(api, paths.detail, after.detail as string)).status).toBe(304);
  expect((await revalidate(api, paths.list, before.list as string)).status).toBe(200);
  // An idempotent repeat changes nothing, so no tag moves.
  expect((await call(api, 'POST', '/providers/3/follow', { token })).status).toBe(200);
  expect(await etagOf(api, paths.detail)).toBe(after.detail);
  expect(await etagOf(api, paths.list)).toBe(after.list);
  expect((await call(api, 'DELETE', '/providers/3/follow', { token })).status).toBe(200);
  expect(await etagOf(api, paths.detail)).not.toBe(after.detail);
}

/**
 * Validation before revalidation (RFC 9110 §13.2.1: preconditions are ignored when the answer
 * would not be a 2xx): every invalid read is a 400 whatever If-None-Match says, including a tag
 * the valid request would match (the catalogue's tag does not depend on the query) and `*`.
 */
async function checkInvalidNeverRevalidated(api: TestApi) {
  const listTag = await etagOf(api, '/providers?limit=3');
  const detailTag = await etagOf(api, '/providers/2');
  const cursor = (await call(api, 'GET', '/providers?limit=3&sortBy=id')).body.nextCursor as string;
  const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
  const invalid: [string, string][] = [
    ['/providers?limit=abc', listTag],
    ['/providers?limit=0', listTag],
    ['/providers?limit=101', listTag],
    ['/providers?page=0', listTag],
    ['/providers?page=-1', listTag],
    ['/providers?sortBy=bogus', listTag],
    ['/providers?order=sideways', listTag],
    [`/providers?cursor=${tampered}`, listTag],
    [`/providers?cursor=${cursor}&page=2`, listTag],
    [`/providers?cursor=${cursor}&sortBy=name`, listTag],
    ['/providers/0', detailTag],
    ['/providers/abc', detailTag],
    ['/providers/0/stats', '*'],
  ];
  for (const [path, tag] of invalid) {
    for (const header of [tag, '*']) {
      const reply = await revalidate(api, path, header);
      expect(reply.status, `${path} with If-None-Match: ${header}`).toBe(400);
      expect(JSON.parse(reply.text).code, path).toBe('VALIDATION_ERROR');
      expect(reply.headers.etag, path).toBeUndefined();
    }
  }
  // The valid request still revalidates.
  expect((await revalidate(api, '/providers?limit=3', listTag)).status).toBe(304);
  expect((await revalidate(api, `/providers?cursor=${cursor}`, '*')).status).toBe(304);
}

/** Headers that differ between any two answers, whatever the method. */
// RateLimit's remaining count falls by one with every request (the per-key limit of service-key routes).
const PER_ANSWER = new Set(['date', 'x-request-id', 'connection', 'keep-alive', 'ratelimit']);

function comparable(headers: Record<string, string>) {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !PER_ANSWER.has(name)));
}

/** Every GET route answers HEAD with the same status and headers and no body. */
async function checkHead(api: TestApi, token: string) {
  const openapi = (await call(api, 'GET', '/openapi.json')).body as {
    paths: Record<string, Record<string, { security?: unknown[] }>>;
  };
  const paths: { path: string; token?: string }[] = [];
  for (const [template, operations] of Object.entries(openapi.paths)) {
    const get = operations.get;
    if (!get) continue;
    const path = template.replace('{id}', '2').replace('/auth/nonce', `/auth/nonce?wallet=${evmWallet().address}`);
    paths.push({ path, ...(get.security ? { token } : {}) });
  }
  // Everything else GET serves: the document itself, the docs page and an asset, an avatar, a
  // tRPC query, and the demo app's page with one of its files.
  const index = await call(api, 'GET', '/');
  const asset = /src="(\/assets\/[^"]+\.js)"/.exec(String(index.body))?.[1];
  expect(asset).toBeDefined();
  paths.push(
    { path: '/openapi.json' },
    { path: '/docs' },
    { path: '/docs/swagger-ui.css' },
    { path: '/avatars/abc123.svg' },
    { path: `/trpc/providers.get?input=${encodeURIComponent('{"id":2}')}` },
    { path: '/' },
    { path: asset as string },
    { path: '/providers?limit=2' },
    { path: '/me/following', token },
  );
  expect(paths.map((p) => p.path)).toEqual(
    expect.arrayContaining(['/health', '/ready', '/.well-known/jwks.json', '/me', '/providers/2/stats']),
  );
  for (const { path, token: userToken } of paths) {
    const request = (method: string, bearer = userToken) =>
      rawHttp(
        api.url,
        `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${bearer ? `Authorization: Bearer ${bearer}\r\n` : ''}Connection: close\r\n\r\n`,
      );
    // A route that refuses a user's token with 403 takes a service key: the operator's ADMIN_KEY.
    const credential = userToken && (await request('GET')).status === 403 ? ADMIN_KEY : userToken;
    const get = await request('GET', credential);
    const head = await request('HEAD', credential);
    // Webhook endpoints have `wh_…` ids, so `/webhooks/2` is an unknown endpoint, and the log's
    // proofs walked without their query (`index`, `size`; `from`, `to`) are a 400: those answers
    // must still answer HEAD with the same status and headers.
    // A path that keeps a template (`{signalId}`: no such signal, SIGNAL_NOT_FOUND; the log's
    // `{L}/{N}` tiles and bundles: no such tile) is a 404 too.
    const expected =
      path.startsWith('/webhooks/') || path.includes('{') ? 404 : path.startsWith('/log/proof/') ? 400 : 200;
    expect(get.status, path).toBe(expected);
    expect(head.status, path).toBe(expected);
    expect(head.text, path).toBe('');
    expect(get.text.length, path).toBeGreaterThan(0);
    const getHeaders = comparable(get.headers);
    const headHeaders = comparable(head.headers);
    // The nonce differs each time; the event feed may have grown between the two requests (the
    // pump numbers the earlier tests' events up to one interval after their commit).
    if (path.startsWith('/auth/nonce') || path.startsWith('/events')) {
      delete getHeaders['content-length'];
      delete headHeaders['content-length'];
    }
    expect(headHeaders, path).toEqual(getHeaders);
  }
  // A path that has no GET still has no HEAD.
  expect((await call(api, 'HEAD', '/providers/2/follow')).status).toBe(404);
}

describe('HTTP caching on postgres', () => {
  const { api, user } = useApiWithUser('postgres', { env: { SEED_PROVIDERS: '12', ADMIN_KEY } });

  it('ETag and public Cache-Control on the public reads; 304 with no body; a token gets no-store', async () => {
    await checkCacheableReads(api, user.token);
  });

  it('a follow changes the tags of that provider, its stats and the list, and no other', async () => {
    await checkTagsFollowData(api, user.token);
  });

  it('HEAD answers every GET route with the same headers and no body', async () => {
    await checkHead(api, user.token);
  });

  it('a page asked by cursor is cached like any other', async () => {
    const first = await call(api, 'GET', '/providers?limit=4');
    const path = `/providers?limit=4&cursor=${first.body.nextCursor}`;
    const etag = await etagOf(api, path);
    expect((await revalidate(api, path, etag)).status).toBe(304);
  });

  it('an invalid read is a 400 whatever If-None-Match says, never a 304', async () => {
    await checkInvalidNeverRevalidated(api);
  });

  it('an unknown provider is a 404, never a 304', async () => {
    const reply = await revalidate(api, '/providers/999999', '*');
    expect(reply.status).toBe(404);
    expect(reply.headers['cache-control']).toBe('no-store');
  });

  it('a 304 counts against the per-address read limit, once', async () => {
    const limited = await startApi('postgres', { env: { SEED_PROVIDERS: '3', READ_RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const etag = (await call(limited, 'GET', '/providers/1')).headers.get('etag') as string;
      expect((await revalidate(limited, '/providers/1', etag)).status).toBe(304);
      expect((await revalidate(limited, '/providers/1', 'W/"stale"')).status).toBe(200);
      const refused = await revalidate(limited, '/providers/1', etag);
      expect(refused.status).toBe(429);
      expect(JSON.parse(refused.text).code).toBe('RATE_LIMITED');
    } finally {
      await limited.stop();
    }
  });

  it('PUBLIC_CACHE_MAX_AGE=0 asks every cache to revalidate', async () => {
    const strict = await startApi('postgres', { env: { SEED_PROVIDERS: '3', PUBLIC_CACHE_MAX_AGE: '0' } });
    try {
      const reply = await call(strict, 'GET', '/providers/1');
      expect(reply.headers.get('cache-control')).toBe('public, no-cache');
      expect((await revalidate(strict, '/providers/1', reply.headers.get('etag') as string)).status).toBe(304);
    } finally {
      await strict.stop();
    }
  });
});

describe('HTTP caching on pglite', () => {
  const { api, user } = useApiWithUser('pglite', { env: { SEED_PROVIDERS: '12', ADMIN_KEY } });

  it('ETag, 304, no-store with a token; tags follow the data; HEAD', async () => {
    await checkCacheableReads(api, user.token);
    await checkTagsFollowData(api, user.token);
    await checkHead(api, user.token);
    await checkInvalidNeverRevalidated(api);
  });
});
