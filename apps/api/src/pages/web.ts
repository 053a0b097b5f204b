/**
 * The demo web app (apps/web) at `/`: the index.html and hashed files Vite writes to
 * apps/web/dist, read once at start like the /docs assets. The app routes with the URL's hash
 * (`/#/providers/5`), so `/` is its only page and every other path stays the API's (unknown
 * ones answer the contract's 404 JSON). Only files found in the build are served, by exact path.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { IMMUTABLE_CACHE, PAGE_CACHE, type Route, sendStatic, staticAsset } from './static.js';

/**
 * apps/web/dist, found from this module: `src/pages/web.ts` under vitest and `dist/pages/web.js`
 * when built sit at the same depth of apps/api, so the path is the same from either.
 */
export const WEB_DIST_DIR = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}

const notBuilt = (distDir: string) =>
  staticAsset(
    `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Signal · demo app not built</title></head>
<body>
<h1>The demo app is not built</h1>
<p>This server looks for it in <code>${distDir}</code>. Run <code>pnpm build</code> (or <code>pnpm start</code>,
which builds it) and start the server again.</p>
<p>The API works without it; its reference is at <a href="/docs">/docs</a>.</p>
</body>
</html>
`,
    'text/html; charset=utf-8',
    'no-store',
  );

/**
 * The app's routes for the host's table of fixed GET endpoints: `/` and each file of the build.
 * Without a build, `/` answers 404 with a page that says how to build it.
 */
export function webRoutes(options: { distDir?: string; log?: Logger } = {}): Record<string, Route> {
  const distDir = options.distDir ?? WEB_DIST_DIR;
  const index = join(distDir, 'index.html');
  if (!existsSync(index)) {
    options.log?.warn({ distDir }, 'demo web app not built: / explains how to build it');
    const note = notBuilt(distDir);
    return { '/': (req, res) => sendStatic(req, res, note, 404) };
  }
  const routes: Record<string, Route> = {};
  for (const file of filesUnder(distDir)) {
    const type = TYPES[extname(file)];
    if (!type || file === index) continue;
    const path = `/${relative(distDir, file).split(sep).join('/')}`;
    // Vite puts a content hash in every name under assets/; the rest (favicon) keep their names.
    const cache = path.startsWith('/assets/') ? IMMUTABLE_CACHE : PAGE_CACHE;
    const asset = staticAsset(readFileSync(file), type, cache);
    routes[path] = (req, res) => sendStatic(req, res, asset);
  }
  const page = staticAsset(readFileSync(index), TYPES['.html'] as string, PAGE_CACHE);
  routes['/'] = (req, res) => sendStatic(req, res, page);
  return routes;
}
