/**
 * Limits on what a request may be, below the transports: URL length, header size, and the
 * answers node:http gives before a request reaches our handler.
 */
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { DomainError } from '@signal/core';
import { toWireError } from './errors.js';
import { isTrpcTarget, trpcErrorBody } from './trpc-errors.js';

/** Longest request target (path and query) served; every route's real URLs are far shorter. */
export const MAX_URL_BYTES = 4 * 1024;
/** node's maxHeaderSize: the request line and all headers together. */
export const MAX_HEADER_BYTES = 16 * 1024;

/**
 * A request target parsed as trpc-to-openapi parses it (origin-form against a fixed origin,
 * absolute-form as it is). Resolving origin-form against a base URL instead would read `//x`
 * as a host and throw. The contract has no 414: an over-long URL,
 * like an unparseable one, is a request the service will not read, 400.
 */
export function parseRequestTarget(url = '/'): URL {
  if (url.length > MAX_URL_BYTES) {
    throw new DomainError('VALIDATION_ERROR', `URL is longer than ${MAX_URL_BYTES / 1024} KiB`, {
      issues: [{ path: ['url'], message: `must be at most ${MAX_URL_BYTES} characters` }],
    });
  }
  // A `.` or `..` segment (or `%2e` for a dot), or a raw `\`, which URL reads as a `/`: URL would
  // resolve the path to another one, so `/log/tile/0/x/../000` answered tile 0/000 (a black-box
  // audit; `x\..\000` too, a review). No resource is named so.
  const path = url.split(/[?#]/, 1)[0]!;
  if (path.includes('\\') || DOT_SEGMENT.test(path)) {
    throw new DomainError('NOT_FOUND', 'No resource is named by a path with a . or .. segment or a backslash');
  }
  try {
    return new URL(url.startsWith('/') ? `http://localhost${url}` : url);
  } catch {
    throw new DomainError('VALIDATION_ERROR', 'Malformed request target');
  }
}

const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;

/**
 * node:http's 'clientError': a request it could not parse (oversized headers, bad syntax) or
 * that timed out. node would answer 431/400/408 with an empty body; the contract wants every
 * non-2xx in its error shape and has only 400 for these, so each is a VALIDATION_ERROR whose
 * message names the cause. Nothing is written once a response has started on the socket.
 */
export function answerClientError(error: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const message =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? `Request headers are larger than ${MAX_HEADER_BYTES / 1024} KiB`
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'The request was not received in time'
        : 'Malformed HTTP request';
  // A HEAD request gets no body even when it is malformed after the method: the client reads
  // the answer as a HEAD response, and body bytes would be taken for a second response.
  const head = error.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  // Under /trpc the answer is in tRPC's envelope, which is all a tRPC client can read.
  const target = error.rawPacket
    ?.subarray(0, MAX_HEADER_BYTES)
    .toString('latin1')
    .split(/[\r\n]/)[0]
    ?.split(' ')[1];
  endWithError(socket, new DomainError('VALIDATION_ERROR', message), { head, trpcTarget: target });
}

/**
 * CONNECT (a proxy tunnel request) never reaches the request handler: node hands over the
 * socket and, with nobody listening, drops it unanswered. No path here takes CONNECT.
 */
export function answerConnect(_req: IncomingMessage, socket: Duplex): void {
  endWithError(socket, new DomainError('NOT_FOUND', 'CONNECT is not served here'));
}

/** Writes a whole error response on a raw socket and closes it. */
function endWithError(
  socket: Duplex,
  error: DomainError,
  { head = false, trpcTarget }: { head?: boolean; trpcTarget?: string | undefined } = {},
): void {
  const wire = toWireError(error);
  const body =
    trpcTarget !== undefined && isTrpcTarget(trpcTarget) ? trpcErrorBody(trpcTarget, wire) : JSON.stringify(wire.body);
  socket.end(
    `HTTP/1.1 ${wire.status} ${STATUS_CODES[wire.status] ?? ''}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'X-Content-Type-Options: nosniff\r\n' +
      'Cache-Control: no-store\r\n' +
      'Connection: close\r\n\r\n' +
      (head ? '' : body),
  );
  // A peer that never reads must not keep the socket open.
  setTimeout(() => socket.destroy(), 1_000).unref();
}
