/**
 * HTTP limits and browser-facing headers: URL length, header size, malformed requests
 * (answered in the contract's error shape, not node's empty 4xx), and CORS from the
 * CORS_ORIGINS allow-list.
 */
import { ERROR_STATUS } from '@signal/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/index.js';
import { MAX_HEADER_BYTES, MAX_URL_BYTES } from '../../src/wire/limits.js';
import { call, evmWallet, expectError, signIn, startApi, type TestApi, useApi } from '../harness.js';
import { httpCall, type RawReply, rawHttp } from '../raw-http.js';

function expectContractError(reply: RawReply, status: number, code: string) {
  expect(reply.status).toBe(status);
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(reply.text);
  expect(body.code).toBe(code);
  expect(ERROR_STATUS[body.code as keyof typeof ERROR_STATUS]).toBe(status);
  expect(body.message).toEqual(expect.any(String));
  expect(Object.keys(body).filter((k) => !['code', 'message', 'issues'].includes(k))).toEqual([]);
  return body;
}

describe('HTTP limits', () => {
  const api = useApi('postgres');

  it(`a URL up to ${MAX_URL_BYTES} bytes is served; a longer one is 400 VALIDATION_ERROR (the contract has no 414)`, async () => {
    const base = '/providers?pad=';
    expect((await call(api, 'GET', base + 'x'.repeat(MAX_URL_BYTES - base.length))).status).toBe(200);
    const body = expectError(await call(api, 'GET', base + 'x'.repeat(MAX_URL_BYTES)), 400, 'VALIDATION_ERROR');
    expect(body.issues?.[0]?.path).toEqual(['url']);
    // The same on unknown paths; on tRPC paths, the same code in tRPC's envelope.
    const trpc = await call(api, 'GET', `/trpc/providers.list?input=${'%20'.repeat(MAX_URL_BYTES)}`);
    expect(trpc.status).toBe(400);
    expect(trpc.body.error).toMatchObject({ code: -32600, data: { code: 'VALIDATION_ERROR', httpStatus: 400 } });
    expectError(await call(api, 'GET', `/${'a'.repeat(MAX_URL_BYTES)}`), 400, 'VALIDATION_ERROR');
  });

  it(`headers over ${MAX_HEADER_BYTES / 1024} KiB → 400 VALIDATION_ERROR in the contract's shape, connection closed`, async () => {
    const reply = await httpCall(api.url, {
      method: 'GET',
      path: '/health',
      headers: { 'x-padding': 'x'.repeat(MAX_HEADER_BYTES) },
    });
    const body = expectContractError(reply, 400, 'VALIDATION_ERROR');
    expect(body.message).toMatch(/headers/i);
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
    expect(reply.headers.connection).toBe('close');
    // Headers just under the limit are fine.
    const fine = await httpCall(api.url, {
      method: 'GET',
      path: '/health',
      headers: { 'x-padding': 'x'.repeat(8_000) },
    });
    expect(fine.status).toBe(200);
  });

  it.each([
    ['a request line that is not HTTP', 'GARBAGE\r\n\r\n'],
    ['a header line without a colon', 'GET /health HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'],
    ['a control character in a header value', 'GET /health HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n'],
    [
      'both Content-Length and chunked',
      'POST /auth/verify HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
    ['a bad chunk size', 'POST /auth/verify HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'],
    [
      'two Content-Length values',
      'POST /auth/verify HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n{}',
    ],
    ['a space in the path', 'GET /he alth HTTP/1.1\r\nHost: x\r\n\r\n'],
  ])('%s → 400 VALIDATION_ERROR in the contract shape', async (_name, raw) => {
    expectContractError(await rawHttp(api.url, raw), 400, 'VALIDATION_ERROR');
    // The server is still there.
    expect((await call(api, 'GET', '/health')).status).toBe(200);
  });

  it('answers carry nosniff, Cache-Control: no-store (tokens must not be cached), no X-Powered-By', async () => {
    const session = await call(api, 'GET', `/auth/nonce?wallet=${evmWallet().address}`);
    // The public catalogue is cacheable only without a token (see caching.test.ts).
    const withToken = await call(api, 'GET', '/providers', { headers: { authorization: 'Bearer x' } });
    for (const reply of [session, withToken, await call(api, 'GET', '/nope')]) {
      expect(reply.headers.get('cache-control')).toBe('no-store');
      expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
      expect(reply.headers.get('x-powered-by')).toBeNull();
    }
    // The JWKS may be cached: it says so itself.
    expect((await call(api, 'GET', '/.well-known/jwks.json')).headers.get('cache-control')).toMatch(/max-age/);
  });

  it('no CORS_ORIGINS: no CORS headers, and OPTIONS stays 404 NOT_FOUND', async () => {
    const reply = await httpCall(api.url, {
      method: 'OPTIONS',
      path: '/providers',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
    });
    expectContractError(reply, 404, 'NOT_FOUND');
    expect(reply.headers['access-control-allow-origin']).toBeUndefined();
    const get = await call(api, 'GET', '/providers', { headers: { origin: 'https://app.example' } });
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS with an allow-list', () => {
  let api: TestApi;
  let token: string;
  const allowed = 'https://app.example';
  beforeAll(async () => {
    api = await startApi('postgres', { env: { CORS_ORIGINS: `${allowed}/, http://localhost:5173` } });
    ({ token } = await signIn(api, evmWallet()));
  });
  afterAll(async () => {
    await api?.stop();
  });

  const preflight = (origin: string, path = '/providers/1/follow', method = 'POST') =>
    httpCall(api.url, {
      method: 'OPTIONS',
      path,
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization' },
    });

  it('a preflight from an allowed origin → 204 with the allowed methods and headers', async () => {
    for (const origin of [allowed, 'http://localhost:5173']) {
      const reply = await preflight(origin);
      expect(reply.status).toBe(204);
      expect(reply.headers['access-control-allow-origin']).toBe(origin);
      expect(reply.headers['access-control-allow-methods']).toBe('GET, POST, DELETE');
      expect(reply.headers['access-control-allow-headers']).toMatch(/Authorization/);
      expect(reply.headers['access-control-allow-headers']).toMatch(/Content-Type/);
      expect(reply.headers['access-control-max-age']).toMatch(/^[0-9]+$/);
      expect(reply.headers.vary).toMatch(/Origin/);
      expect(reply.headers['access-control-allow-credentials']).toBeUndefined();
      expect(reply.text).toBe('');
    }
    // tRPC paths too.
    expect((await preflight(allowed, '/trpc/providers.follow')).status).toBe(204);
  });

  it("a preflight asking for tRPC's own headers (trpc-accept, x-trpc-source) allows each of them", async () => {
    const requested = ['content-type', 'trpc-accept', 'x-trpc-source', 'authorization'];
    for (const [path, method] of [
      ['/trpc/providers.list', 'GET'],
      ['/trpc/providers.follow,providers.unfollow?batch=1', 'POST'],
    ] as const) {
      const reply = await httpCall(api.url, {
        method: 'OPTIONS',
        path,
        headers: {
          origin: allowed,
          'access-control-request-method': method,
          'access-control-request-headers': requested.join(','),
        },
      });
      expect(reply.status, path).toBe(204);
      expect(reply.headers['access-control-allow-origin']).toBe(allowed);
      // Header names compare without regard to case (Fetch's CORS check).
      const allowedHeaders = String(reply.headers['access-control-allow-headers'])
        .split(',')
        .map((name) => name.trim().toLowerCase());
      for (const name of requested) expect(allowedHeaders, `${path}: ${name}`).toContain(name);
      expect(reply.headers['access-control-allow-methods']).toContain(method);
    }
  });

  it('a preflight from any other origin gets no CORS headers', async () => {
    for (const origin of ['https://evil.example', 'https://app.example.evil', 'http://app.example', 'null']) {
      const reply = await preflight(origin);
      expect(reply.status).not.toBe(204);
      expect(reply.headers['access-control-allow-origin']).toBeUndefined();
      expect(reply.headers['access-control-allow-methods']).toBeUndefined();
      expect(reply.headers.vary).toMatch(/Origin/);
    }
  });

  it('actual requests: the allowed origin is echoed on successes and errors; others get nothing', async () => {
    const ok = await call(api, 'GET', '/me', { token, headers: { origin: allowed } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(ok.headers.get('access-control-expose-headers')).toMatch(/Retry-After/);
    expect(ok.headers.get('vary')).toMatch(/Origin/);
    // A browser script must be able to read a 401 to know it should sign in again.
    const denied = await call(api, 'GET', '/me', { headers: { origin: allowed } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('access-control-allow-origin')).toBe(allowed);

    const other = await call(api, 'GET', '/me', { token, headers: { origin: 'https://evil.example' } });
    expect(other.status).toBe(200);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(other.headers.get('vary')).toMatch(/Origin/);
  });

  it('CORS_ORIGINS=* allows any origin, and bad entries stop the start', async () => {
    const open = await startApi('postgres', { env: { CORS_ORIGINS: '*' } });
    try {
      const reply = await call(open, 'GET', '/providers', { headers: { origin: 'https://anywhere.example' } });
      expect(reply.headers.get('access-control-allow-origin')).toBe('*');
    } finally {
      await open.stop();
    }
    for (const bad of ['app.example', 'https://app.example/path', 'ftp://app.example', 'https://a.example,nope']) {
      expect(() => loadConfig({ CORS_ORIGINS: bad })).toThrow(/CORS_ORIGINS/);
    }
  });
});
