/**
 * The service endpoints and the headers every response carries.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, evmWallet, signIn, useApi } from '../harness.js';

const api = useApi('postgres');
let token: string;

beforeAll(async () => {
  ({ token } = await signIn(api, evmWallet()));
});

describe('service endpoints', () => {
  it('/health → 200 { status: "ok" }', async () => {
    const reply = await call(api, 'GET', '/health');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: 'ok' });
    expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('/ready → 200 { status: "ready" } while the database answers', async () => {
    const reply = await call(api, 'GET', '/ready');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: 'ready' });
  });

  it('/openapi.json is an OpenAPI 3 document with the auth and /me operations', async () => {
    const reply = await call(api, 'GET', '/openapi.json');
    expect(reply.status).toBe(200);
    const doc = reply.body;
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(doc.paths['/auth/nonce']?.get).toBeDefined();
    expect(doc.paths['/auth/verify']?.post).toBeDefined();
    expect(doc.paths['/me']?.get).toBeDefined();
    // /me is marked as needing the bearer token.
    expect(doc.paths['/me'].get.security).toBeDefined();
    const nonceParams = doc.paths['/auth/nonce'].get.parameters as { name: string; in: string }[];
    expect(nonceParams).toContainEqual(expect.objectContaining({ name: 'wallet', in: 'query' }));
    expect(doc.paths['/auth/verify'].post.requestBody).toBeDefined();
  });

  it('/.well-known/jwks.json publishes public keys only', async () => {
    const reply = await call(api, 'GET', '/.well-known/jwks.json');
    expect(reply.status).toBe(200);
    const keys = reply.body.keys as Record<string, unknown>[];
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(key.kid).toEqual(expect.any(String));
      expect(['OKP', 'EC']).toContain(key.kty);
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) expect(key).not.toHaveProperty(secret);
    }
    // The token's kid is one of them.
    const header = JSON.parse(Buffer.from(token.split('.')[0] as string, 'base64url').toString('utf8'));
    expect(keys.map((key) => key.kid)).toContain(header.kid);
  });
});

describe('headers on every response', () => {
  const requests: [string, string, { token?: boolean; body?: unknown }?][] = [
    ['GET', '/health'],
    ['GET', '/ready'],
    ['GET', '/openapi.json'],
    ['GET', '/.well-known/jwks.json'],
    ['GET', `/auth/nonce?wallet=${evmWallet().address}`],
    ['GET', '/auth/nonce?wallet=bad'],
    ['GET', '/me', { token: true }],
    ['GET', '/me'],
    ['POST', '/auth/verify', { body: {} }],
    ['PUT', '/auth/verify'],
    ['POST', '/health'],
    ['GET', '/nope'],
    ['GET', `/trpc/auth.nonce?input=${encodeURIComponent(JSON.stringify({ wallet: 'bad' }))}`],
    ['GET', '/trpc/me.get'],
    ['POST', '/auth/verify', { body: { pad: 'x'.repeat(20_000) } }],
  ];

  it.each(requests)('%s %s: nosniff, an X-Request-Id, no X-Powered-By', async (method, path, options = {}) => {
    const reply = await call(api, method, path, {
      ...(options.token ? { token } : {}),
      ...(options.body !== undefined ? { body: options.body } : {}),
    });
    expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
    expect(reply.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    expect(reply.headers.get('x-powered-by')).toBeNull();
    if (reply.status >= 400) expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('generates a different request id per request', async () => {
    const a = await call(api, 'GET', '/health');
    const b = await call(api, 'GET', '/health');
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  it.each([
    ['GET', '/health'],
    ['GET', '/nope'],
    ['GET', '/me'],
    ['GET', '/trpc/me.get'],
  ])('%s %s echoes a valid X-Request-Id', async (method, path) => {
    const id = `test-${Math.random().toString(36).slice(2)}:1.2_3`;
    const reply = await call(api, method, path, { headers: { 'x-request-id': id } });
    expect(reply.headers.get('x-request-id')).toBe(id);
  });

  it.each([
    ['with spaces', 'has spaces in it'],
    ['with a newline escape', 'a%0d%0aSet-Cookie:x=1'],
    ['too long', 'a'.repeat(200)],
  ])('replaces an X-Request-Id %s with a fresh one', async (_name, id) => {
    const reply = await call(api, 'GET', '/health', { headers: { 'x-request-id': id } });
    const echoed = reply.headers.get('x-request-id');
    expect(echoed).not.toBe(id);
    expect(echoed).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  });
});

describe('demo avatars', () => {
  it('draws the same SVG for the same seed, and different ones for different seeds', async () => {
    const a = await fetch(`${api.url}/avatars/bc8564a4cb8dc531.svg`);
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toBe('image/svg+xml');
    const svg = await a.text();
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(await (await fetch(`${api.url}/avatars/bc8564a4cb8dc531.svg`)).text()).toBe(svg);
    expect(await (await fetch(`${api.url}/avatars/0000000000000000.svg`)).text()).not.toBe(svg);
  });

  it('answers 404 NOT_FOUND for anything that is not a seed', async () => {
    for (const path of ['/avatars/a.b.svg', '/avatars/.svg', '/avatars/x.png']) {
      const reply = await call(api, 'GET', path);
      expect(reply.status).toBe(404);
      expect(reply.body.code).toBe('NOT_FOUND');
    }
  });
});
