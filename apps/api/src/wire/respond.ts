import type { ServerResponse } from 'node:http';
import type { WireError } from './errors.js';

/**
 * A JSON answer (`body` already serialised when `serialised`). Content-Length is always set, so
 * a HEAD answer (node drops its body) carries the same headers as the GET.
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  serialised = false,
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = serialised ? (body as string) : JSON.stringify(body);
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

export function sendError(res: ServerResponse, error: WireError): void {
  sendJson(res, error.status, error.body, error.headers);
}
