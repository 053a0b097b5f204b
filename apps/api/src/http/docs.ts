/**
 * /docs: the interactive API reference, Swagger UI rendering /openapi.json. Every asset comes
 * from the swagger-ui-dist package on disk, never a CDN (the service and many of its users are
 * offline). Routes are a fixed allow-list: a URL selects one of these entries and never names a
 * file, so there is no path to traverse.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

type Route = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
  cacheControl: string;
  /** Compressed once, on first request (the bundle is 1.7 MB, about 0.5 MB gzipped). */
  gzipped?: Promise<Buffer>;
}

/** URL → file of swagger-ui-dist. Only these are served; the page needs nothing else. */
const PACKAGE_FILES: Record<string, [file: string, type: string]> = {
  '/docs/swagger-ui.css': ['swagger-ui.css', 'text/css; charset=utf-8'],
  '/docs/swagger-ui-bundle.js': ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  '/docs/favicon-32x32.png': ['favicon-32x32.png', 'image/png'],
  '/docs/favicon-16x16.png': ['favicon-16x16.png', 'image/png'],
};

// The page allows only its own origin: scripts, styles and the API calls of "Try it out".
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Swagger UI's start-up, as a file rather than an inline script so the CSP needs no
 * 'unsafe-inline'. The document's server is '/', so "Try it out" calls this same origin.
 */
const INITIALIZER = `'use strict';
window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    layout: 'BaseLayout',
    deepLinking: true,
    // Swagger UI's default validator badge would send the document to validator.swagger.io.
    validatorUrl: null,
    displayRequestDuration: true,
    // The token stays in memory: nothing is written to localStorage.
    persistAuthorization: false,
    docExpansion: 'list',
  });
});
`;

const STYLE = `body { margin: 0; background: #fafafa; }
.swagger-ui .information-container.wrapper { padding-top: 12px; }
`;

const HTML_CACHE = 'no-cache';
// Asset URLs carry a hash of their content (?v=…), so a cached copy is never stale.
const ASSET_CACHE = 'public, max-age=31536000, immutable';
const TEXT = /^text\//;
const gzipAsync = promisify(gzip);

function asset(body: Buffer | string, type: string, cacheControl: string): Asset {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const etag = `W/"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
  return { body: bytes, type, etag, cacheControl };
}

/** `?v=` value of an asset: its content hash. */
function version(a: Asset): string {
  return a.etag.slice(3, 15);
}

function page(assets: Map<string, Asset>): string {
  const href = (path: string) => {
    const a = assets.get(path);
    if (!a) throw new Error(`docs: no asset ${path}`);
    return `${path}?v=${version(a)}`;
  };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Signal provider service · API reference</title>
<link rel="stylesheet" href="${href('/docs/swagger-ui.css')}">
<link rel="stylesheet" href="${href('/docs/docs.css')}">
<link rel="icon" type="image/png" sizes="32x32" href="${href('/docs/favicon-32x32.png')}">
<link rel="icon" type="image/png" sizes="16x16" href="${href('/docs/favicon-16x16.png')}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${href('/docs/swagger-ui-bundle.js')}"></script>
<script src="${href('/docs/docs.js')}"></script>
</body>
</html>
`;
}

let loaded: Map<string, Asset> | undefined;

/**
 * Reads the assets once per process (about 2 MB). The package directory is resolved from this
 * module, so it is found wherever pnpm put it; a missing package fails the server's start.
 */
function loadAssets(): Map<string, Asset> {
  if (loaded) return loaded;
  const dir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const assets = new Map<string, Asset>();
  for (const [path, [file, type]] of Object.entries(PACKAGE_FILES)) {
    assets.set(path, asset(readFileSync(join(dir, file)), type, ASSET_CACHE));
  }
  assets.set('/docs/docs.js', asset(INITIALIZER, 'text/javascript; charset=utf-8', ASSET_CACHE));
  assets.set('/docs/docs.css', asset(STYLE, 'text/css; charset=utf-8', ASSET_CACHE));
  assets.set('/docs', asset(page(assets), 'text/html; charset=utf-8', HTML_CACHE));
  loaded = assets;
  return assets;
}

function accepts(req: IncomingMessage, etag: string): boolean {
  const tags = (req.headers['if-none-match'] ?? '').split(',').map((tag) => tag.trim());
  return tags.includes(etag) || tags.includes('*');
}

async function send(req: IncomingMessage, res: ServerResponse, a: Asset): Promise<void> {
  res.setHeader('Cache-Control', a.cacheControl);
  res.setHeader('ETag', a.etag);
  res.setHeader('Vary', 'Accept-Encoding');
  if (a.type.startsWith('text/html')) {
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.setHeader('Referrer-Policy', 'no-referrer');
  }
  if (accepts(req, a.etag)) {
    res.writeHead(304).end();
    return;
  }
  let body = a.body;
  if (TEXT.test(a.type) && body.length > 1024 && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
    a.gzipped ??= gzipAsync(a.body, { level: 9 });
    body = await a.gzipped;
    res.setHeader('Content-Encoding', 'gzip');
  }
  res.writeHead(200, { 'Content-Type': a.type, 'Content-Length': body.length });
  res.end(body);
}

/** The /docs routes for the host's table of fixed GET endpoints. */
export function docsRoutes(): Record<string, Route> {
  const assets = loadAssets();
  const routes: Record<string, Route> = {
    // A common spelling of the address; one canonical URL for the page.
    '/docs/': async (_req, res) => {
      res.writeHead(301, { Location: '/docs', 'Cache-Control': 'public, max-age=3600' }).end();
    },
  };
  for (const [path, a] of assets) routes[path] = (req, res) => send(req, res, a);
  return routes;
}
