/**
 * /docs: the interactive API reference, Swagger UI rendering /openapi.json. Every asset comes
 * from the swagger-ui-dist package on disk, never a CDN (the service and many of its users are
 * offline). Routes are a fixed allow-list: a URL selects one of these entries and never names a
 * file, so there is no path to traverse.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type Asset, IMMUTABLE_CACHE, PAGE_CACHE, type Route, sendStatic, staticAsset } from './static.js';

/** URL → file of swagger-ui-dist. Only these are served; the page needs nothing else. */
const PACKAGE_FILES: Record<string, [file: string, type: string]> = {
  '/docs/swagger-ui.css': ['swagger-ui.css', 'text/css; charset=utf-8'],
  '/docs/swagger-ui-bundle.js': ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  '/docs/favicon-32x32.png': ['favicon-32x32.png', 'image/png'],
  '/docs/favicon-16x16.png': ['favicon-16x16.png', 'image/png'],
};

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
  // Asset URLs carry a hash of their content (?v=…), so they are cached as immutable.
  for (const [path, [file, type]] of Object.entries(PACKAGE_FILES)) {
    assets.set(path, staticAsset(readFileSync(join(dir, file)), type, IMMUTABLE_CACHE));
  }
  assets.set('/docs/docs.js', staticAsset(INITIALIZER, 'text/javascript; charset=utf-8', IMMUTABLE_CACHE));
  assets.set('/docs/docs.css', staticAsset(STYLE, 'text/css; charset=utf-8', IMMUTABLE_CACHE));
  assets.set('/docs', staticAsset(page(assets), 'text/html; charset=utf-8', PAGE_CACHE));
  loaded = assets;
  return assets;
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
  for (const [path, a] of assets) routes[path] = (req, res) => sendStatic(req, res, a);
  return routes;
}
