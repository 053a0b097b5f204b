/**
 * The signal reads' parts (routers/signals.router.ts): who sees content per provider, the
 * `status` comma list, and the lists' cursors (bound to their listing: a provider's, or one
 * user's feed; a provider's cursor keeps its `status`).
 */
import { DomainError, SIGNAL_STATUSES, type Signal, type SignalStatus } from '@signal/core';
import type { CursorCodec } from '@signal/core/cursor';
import { followsProvider, readSignals, type SignalKeyPage, type SignalPosition } from '@signal/db';
import type { Context } from './context.js';
import type { SignalReaderClass } from './signal-reader.js';

/** The content a reader class sees per provider. */
export async function fullFor(ctx: Context, reader: SignalReaderClass, providerId: number): Promise<boolean> {
  if (reader.kind === 'all') return true;
  if (reader.kind === 'public') return false;
  return followsProvider(ctx.services.database.db, reader.userId, providerId);
}

export const invalidQuery = (field: string, message: string) =>
  new DomainError('VALIDATION_ERROR', `Invalid request: ${field}: ${message}`, {
    issues: [{ path: [field], message }],
  });

/** `status=a,b`: each one of the four statuses, at least one, no repeats needed. */
export function parseStatuses(text: string | undefined): SignalStatus[] | undefined {
  if (text === undefined) return undefined;
  const parts = text.split(',');
  for (const part of parts) {
    if (!(SIGNAL_STATUSES as readonly string[]).includes(part)) {
      throw invalidQuery(
        'status',
        `must be a comma list of ${SIGNAL_STATUSES.join(', ')}; ${JSON.stringify(part)} is not one`,
      );
    }
  }
  return [...new Set(parts as SignalStatus[])].sort();
}

/** A cursor of the listing `kind`: its position and the status filter it was issued with. */
export function openCursor(
  codec: CursorCodec,
  kind: string,
  cursor: string | undefined,
): { after?: SignalPosition; statuses?: string } {
  if (cursor === undefined) return {};
  const position = codec.open(cursor);
  if (!position || typeof position.key !== 'string') {
    throw invalidQuery('cursor', 'malformed, tampered with, or not issued by this service');
  }
  if (position.kind !== kind) throw invalidQuery('cursor', 'belongs to another listing');
  const statuses = position.filters?.status;
  return {
    after: { publishedAt: position.key, logIndex: position.id },
    ...(typeof statuses === 'string' ? { statuses } : {}),
  };
}

export const sealCursor = (codec: CursorCodec, kind: string, next: SignalPosition | null, statuses?: string) =>
  next
    ? codec.seal({
        kind,
        sortBy: 'publishedAt',
        order: 'desc',
        key: next.publishedAt,
        id: next.logIndex,
        ...(statuses ? { filters: { status: statuses } } : {}),
      })
    : null;

export async function pageOf(
  ctx: Context,
  page: SignalKeyPage,
  full: boolean | ((providerId: number) => boolean),
): Promise<Signal[]> {
  return readSignals(ctx.services.database.db, { keys: page.keys }, { full, now: ctx.services.now() });
}
