/**
 * Files the service serves as they are (the /docs page and its Swagger UI assets, the demo app at
 * `/`): held in memory, validated with an ETag, gzipped once on demand, and, for HTML pages,
 * sent under a Content-Security-Policy that allows this origin only.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

export type Route = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface Asset {
  body: Buffer;
  type: string;
  etag: string;
  cacheControl: string;
  /** Compressed once, on first request (Swagger UI's bundle is 1.7 MB, about 0.5 MB gzipped). */
  gzipped?: Promise<Buffer>;
}

// Pages allow only their own origin: scripts, styles and API calls (Swagger UI's "Try it out",
// the demo app's SDK). No inline script, so an injected one cannot run; frames, objects, fonts
// and the rest fall to default-src 'none'. Images also from any https origin: an operator's
// avatarUrl is an absolute https URL anywhere (CONTRACT.md, Version 3), and an image cannot run
// code; plain http stays out (mixed content, and a way to ping a network from the page).
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Pages revalidate (ETag) on every load, so a new version shows at once. */
export const PAGE_CACHE = 'no-cache';
/** For URLs that carry a hash of their content: a cached copy is never stale. */
export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';

const TEXT = /^(text\/|image\/svg\+xml|application\/(json|manifest\+json))/;
const gzipAsync = promisify(gzip);

export function staticAsset(body: Buffer | string, type: string, cacheControl: string): Asset {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const etag = `W/"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
  return { body: bytes, type, etag, cacheControl };
}

function matches(req: IncomingMessage, etag: string): boolean {
  const tags = (req.headers['if-none-match'] ?? '').split(',').map((tag) => tag.trim());
  return tags.includes(etag) || tags.includes('*');
}

export async function sendStatic(req: IncomingMessage, res: ServerResponse, a: Asset, status = 200): Promise<void> {
  res.setHeader('Cache-Control', a.cacheControl);
  res.setHeader('ETag', a.etag);
  res.setHeader('Vary', 'Accept-Encoding');
  if (a.type.startsWith('text/html')) {
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.setHeader('Referrer-Policy', 'no-referrer');
  }
  if (status === 200 && matches(req, a.etag)) {
    res.writeHead(304).end();
    return;
  }
  let body = a.body;
  if (TEXT.test(a.type) && body.length > 1024 && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
    a.gzipped ??= gzipAsync(a.body, { level: 9 });
    body = await a.gzipped;
    res.setHeader('Content-Encoding', 'gzip');
  }
  res.writeHead(status, { 'Content-Type': a.type, 'Content-Length': body.length });
  res.end(body);
}
