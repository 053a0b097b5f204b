/**
 * The pull feed's cursors: a feed position (the last one a page gave), sealed like every page
 * cursor (@signal/core/cursor: tamper-evident, the same on every server that shares the signing
 * key). Opaque to consumers; anything not sealed here is 400 VALIDATION_ERROR.
 */
import { DomainError } from '@signal/core';
import type { CursorCodec } from '@signal/core/cursor';

const KIND = 'events';
const POSITION = /^(0|[1-9][0-9]{0,18})$/;

export function sealFeedCursor(codec: CursorCodec, position: string): string {
  return codec.seal({ kind: KIND, sortBy: 'position', order: 'asc', key: position, id: 0 });
}

/** The position a cursor names; 400 VALIDATION_ERROR (on `field`) for anything else. */
export function openFeedCursor(codec: CursorCodec, cursor: string, field = 'after'): string {
  const position = codec.open(cursor);
  if (!position || position.kind !== KIND || typeof position.key !== 'string' || !POSITION.test(position.key)) {
    const message = 'malformed, tampered with, or not issued by this service';
    throw new DomainError('VALIDATION_ERROR', `Invalid request: ${field}: ${message}`, {
      issues: [{ path: [field], message }],
    });
  }
  return position.key;
}
