/**
 * Page numbers or cursors, for every listing that takes both: the request's paging checked
 * against the contract (a cursor carries its sort; `page` and `cursor` together, a malformed or
 * tampered cursor, or one of another listing or sort → 400 VALIDATION_ERROR), and the seal that
 * turns the last item's position into the next page's cursor.
 */
import { DomainError, type ProviderSortField, type SortOrder } from '@signal/core';
import type { CursorCodec, CursorPosition } from '@signal/core/cursor';
import type { CursorAt, Paging } from '@signal/db';

function invalidCursor(message: string): DomainError {
  return new DomainError('VALIDATION_ERROR', `Invalid request: cursor: ${message}`, {
    issues: [{ path: ['cursor'], message }],
  });
}

export interface SortRequest<S extends string> {
  sortBy?: S;
  order?: SortOrder;
}

/**
 * The paging of a request to the listing `kind` (the cursor is bound to it), and the sort it
 * runs in: the cursor's, the request's, or the defaults. `keyType` says what a position's key
 * is for each sort, a last check on what the MAC already vouches for.
 */
export function resolvePaging<S extends string>(
  codec: CursorCodec,
  kind: string,
  input: { page?: number; limit: number; cursor?: string } & SortRequest<S>,
  defaults: { sortBy: S; order: SortOrder },
  keyType: (sortBy: S) => 'string' | 'number',
): Paging & { sortBy: S; order: SortOrder } {
  const seal = (sortBy: S, order: SortOrder) => (at: CursorAt) => codec.seal({ kind, sortBy, order, ...at });
  if (input.cursor === undefined) {
    const sortBy = input.sortBy ?? defaults.sortBy;
    const order = input.order ?? defaults.order;
    return { page: input.page ?? 1, limit: input.limit, sortBy, order, seal: seal(sortBy, order) };
  }
  if (input.page !== undefined) {
    throw new DomainError('VALIDATION_ERROR', 'Invalid request: page and cursor cannot be used together', {
      issues: [
        { path: ['page'], message: 'not allowed with cursor' },
        { path: ['cursor'], message: 'not allowed with page' },
      ],
    });
  }
  const position: CursorPosition | undefined = codec.open(input.cursor);
  if (!position) throw invalidCursor('malformed, tampered with, or not issued by this service');
  if (position.kind !== kind) throw invalidCursor('belongs to another listing');
  const sortBy = position.sortBy as S;
  if (input.sortBy !== undefined && input.sortBy !== sortBy) {
    throw invalidCursor(`was issued for sortBy=${sortBy}, not ${input.sortBy}`);
  }
  if (input.order !== undefined && input.order !== position.order) {
    throw invalidCursor(`was issued for order=${position.order}, not ${input.order}`);
  }
  if (typeof position.key !== keyType(sortBy)) throw invalidCursor('malformed');
  return {
    limit: input.limit,
    after: { key: position.key, id: position.id },
    sortBy,
    order: position.order,
    seal: seal(sortBy, position.order),
  };
}

/** What a catalogue cursor's key is, per sort. */
export const providerKeyType = (sortBy: ProviderSortField) =>
  sortBy === 'followerCount' || sortBy === 'id' ? 'number' : 'string';

/** The paging of a `providers.list` request (the catalogue's defaults: most followed first). */
export function providerListPaging(
  codec: CursorCodec,
  input: { page?: number; limit: number; cursor?: string } & SortRequest<ProviderSortField>,
) {
  return resolvePaging(codec, 'providers', input, { sortBy: 'followerCount', order: 'desc' }, providerKeyType);
}
