import type { IncomingMessage } from 'node:http';
import { DomainError } from '@signal/core';

/**
 * Bodies above this are refused with 413 before they are buffered (contract: 16 KiB). A
 * procedure that takes more says so in its meta, `maxBodyBytes` (published performance: 64 KiB).
 */
export const MAX_BODY_BYTES = 16 * 1024;

/** The body limit of a procedure: its meta's `maxBodyBytes`, else MAX_BODY_BYTES. */
export function bodyLimitOf(procedure: { _def: { meta?: unknown } } | undefined): number {
  return (procedure?._def.meta as { maxBodyBytes?: number } | undefined)?.maxBodyBytes ?? MAX_BODY_BYTES;
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * Reads and parses a request body for the REST transport. Empty bodies are `undefined`
 * (follow and unfollow take none, even with a JSON content type). A body that is not JSON,
 * or says it is something else, is a VALIDATION_ERROR rather than silently ignored.
 */
export async function readJsonBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const length = req.headers['content-length'];
  // A request that declares no body has none (HTTP/1.1 framing: no Transfer-Encoding and a
  // Content-Length of 0 or none, which node's parser enforces): the answer is the empty body's
  // without opening the stream's async iterator (listeners, promises) for zero bytes, which
  // follow and unfollow did on every request (apps/bench/LAB-NOTES.md, "Issue 29's gate"). node discards the
  // unread (empty) stream when the response ends.
  if ((length === undefined || length === '0') && req.headers['transfer-encoding'] === undefined) return undefined;
  const declared = Number(length);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw tooLarge(limit);
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof DomainError) throw error;
    // The client went away mid-body ("aborted"): its fault, not a bug and not a database outage
    // (the error's ECONNRESET code would otherwise read as one).
    throw new DomainError('VALIDATION_ERROR', 'Request body was not received completely', { cause: error });
  }
  if (size === 0) return undefined;
  const type = req.headers['content-type'];
  if (type !== undefined && !JSON_TYPE.test(type)) {
    throw new DomainError('VALIDATION_ERROR', 'Content-Type must be application/json');
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new DomainError('VALIDATION_ERROR', 'Request body is not valid JSON');
  }
}

/** A request body over `limit` bytes. */
export function tooLarge(limit: number) {
  return new DomainError('PAYLOAD_TOO_LARGE', `Request body is larger than ${limit / 1024} KiB`);
}
