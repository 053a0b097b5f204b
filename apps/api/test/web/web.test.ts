/**
 * How the API serves the demo app's build at `/` (the browser test drives the app itself): the
 * page under a Content-Security-Policy, hashed assets cached for good, nothing outside the build,
 * API paths untouched, and a page that says how to build the app when there is no build.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, startApi, type TestApi } from '../harness.js';

const INDEX =
  '<!doctype html><html><head><script type="module" src="/assets/index-a1b2c3.js"></script></head></html>\n';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(4000))});\n`;

describe('the web build at /', () => {
  let api: TestApi;
  let dist: string;

  beforeAll(async () => {
    dist = await mkdtemp(join(tmpdir(), 'signal-web-dist-'));
    await mkdir(join(dist, 'assets'));
    await writeFile(join(dist, 'index.html'), INDEX);
    await writeFile(join(dist, 'assets', 'index-a1b2c3.js'), SCRIPT);
    await writeFile(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    // Files a build should never have: one that names an API path, one of no known type.
    await writeFile(join(dist, 'openapi.json'), '{"not":"the API document"}');
    await writeFile(join(dist, 'notes.md'), '# private');
    api = await startApi('postgres', { webDistDir: dist });
  });

  afterAll(async () => {
    await api?.stop();
    await rm(dist, { recursive: true, force: true });
  });

  it('serves index.html at / under a same-origin Content-Security-Policy, revalidated on every load', async () => {
    const page = await call(api, 'GET', '/');
    expect(page.status).toBe(200);
    expect(page.body).toBe(INDEX);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    const etag = page.headers.get('etag') as string;
    const again = await call(api, 'GET', '/', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('serves hashed assets as immutable, gzipped when asked, and other files of the build by exact path', async () => {
    const response = await fetch(`${api.url}/assets/index-a1b2c3.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(await response.text()).toBe(SCRIPT);
    const icon = await call(api, 'GET', '/favicon.svg');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(icon.headers.get('cache-control')).toBe('no-cache');
  });

  it('leaves every other path to the API: its own answers, and 404 NOT_FOUND as JSON', async () => {
    const document = await call(api, 'GET', '/openapi.json');
    expect(document.body.openapi).toMatch(/^3\./);
    expect((await call(api, 'GET', '/health')).body).toEqual({ status: 'ok' });
    // Paths match the build's files exactly: no other file, no dot segments, no index.html alias.
    for (const path of ['/notes.md', '/assets/missing.js', '/index.html', '/assets/%2e%2e/index.html', '/assets/']) {
      expectError(await call(api, 'GET', path), 404, 'NOT_FOUND');
    }
    expectError(await call(api, 'GET', '/following'), 404, 'NOT_FOUND');
    expectError(await call(api, 'POST', '/'), 404, 'NOT_FOUND');
  });
});

describe('without a web build', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi('postgres', { webDistDir: join(tmpdir(), 'signal-web-dist-missing') });
  });

  afterAll(async () => {
    await api?.stop();
  });

  it('answers / with a page that says how to build the app, and serves the API as usual', async () => {
    const page = await call(api, 'GET', '/');
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('The demo app is not built');
    expect(page.body).toContain('pnpm build');
    expect((await call(api, 'GET', '/health')).body).toEqual({ status: 'ok' });
  });
});
