import type { IncomingMessage, ServerResponse } from 'node:http';

const ALLOW_METHODS = 'GET, POST, DELETE';
// trpc-accept and x-trpc-source are sent by tRPC clients (v11's httpBatchStreamLink, and
// apps that tag their calls).
const ALLOW_HEADERS = 'Authorization, Content-Type, X-Request-Id, trpc-accept, x-trpc-source';
/** What a browser script may read of a response besides the simple headers. */
const EXPOSE_HEADERS = 'Retry-After, RateLimit, RateLimit-Policy, WWW-Authenticate, X-Request-Id';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/**
 * CORS from the CORS_ORIGINS allow-list. An allowed Origin gets Access-Control-Allow-Origin
 * (the origin itself, or `*` when the list is `*`); any other origin gets no CORS headers,
 * so the browser keeps the response from the page. No credentials: the API authenticates
 * with a bearer token, never a cookie. Returns true when it answered a preflight.
 */
export function applyCors(req: IncomingMessage, res: ServerResponse, allowed: readonly string[]): boolean {
  if (allowed.length === 0) return false;
  // Caches must keep answers to different origins apart.
  res.setHeader('Vary', 'Origin');
  const origin = req.headers.origin;
  const any = allowed.includes('*');
  if (!origin || !(any || allowed.includes(origin))) return false;
  res.setHeader('Access-Control-Allow-Origin', any ? '*' : origin);
  if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
    res.writeHead(204, {
      'Access-Control-Allow-Methods': ALLOW_METHODS,
      'Access-Control-Allow-Headers': ALLOW_HEADERS,
      'Access-Control-Max-Age': PREFLIGHT_MAX_AGE_SECONDS,
    });
    res.end();
    return true;
  }
  res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS);
  return false;
}
