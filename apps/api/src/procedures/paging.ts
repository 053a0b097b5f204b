/**
 * Page numbers or cursors, for every listing that takes both: the request's paging checked
 * against the contract (a cursor carries its sort and filters; `page` and `cursor` together, a
 * malformed or tampered cursor, or one of another listing, sort or filter set → 400
 * VALIDATION_ERROR), and the seal that turns the last item's position into the next page's
 * cursor.
 */
import {
  DomainError,
  type ProviderFilters,
  ProviderFiltersSchema,
  type ProviderSortField,
  pickProviderFilters,
  type SortOrder,
  sameProviderFilters,
} from '@signal/core';
import type { CursorCodec, CursorFilters, CursorKey, CursorPosition } from '@signal/core/cursor';
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

/** What a position's key may be for a sort: a number, a string, or a string or null. */
export type KeyType = 'string' | 'number' | 'string|null';

function keyFits(key: CursorKey, type: KeyType): boolean {
  if (key === null) return type === 'string|null';
  return typeof key === (type === 'number' ? 'number' : 'string');
}

/**
 * A listing's filters as paging sees them: the ones the request gives, how two sets compare,
 * and how a cursor's set reads back (undefined: not a set this listing knows).
 */
export interface FilterRequest<F extends CursorFilters> {
  given: F;
  same(a: F, b: F): boolean;
  read(sealed: CursorFilters): F | undefined;
}

/**
 * The paging of a request to the listing `kind` (the cursor is bound to it), and the sort and
 * filters it runs with: the cursor's, the request's, or the defaults. `keyType` says what a
 * position's key is for each sort, a last check on what the MAC already vouches for.
 *
 * A cursor sent alone continues with its own sort and filters. A request that restates any of
 * them (sortBy, order or a filter) must restate its sort as it was (sortBy and order each when
 * given) and exactly its filter set: a filter added, dropped or changed is refused, since the
 * cursor's position means nothing in another listing.
 */
export function resolvePaging<S extends string, F extends CursorFilters = CursorFilters>(
  codec: CursorCodec,
  kind: string,
  input: { page?: number; limit: number; cursor?: string } & SortRequest<S>,
  defaults: { sortBy: S; order: SortOrder },
  keyType: (sortBy: S) => KeyType,
  filterRequest?: FilterRequest<F>,
): Paging & { sortBy: S; order: SortOrder; filters: F } {
  const seal = (sortBy: S, order: SortOrder, filters: F) => (at: CursorAt) =>
    codec.seal({ kind, sortBy, order, ...at, filters });
  const given = filterRequest?.given ?? ({} as F);
  if (input.cursor === undefined) {
    const sortBy = input.sortBy ?? defaults.sortBy;
    const order = input.order ?? defaults.order;
    return {
      page: input.page ?? FIRST_PAGE,
      limit: input.limit,
      sortBy,
      order,
      filters: given,
      seal: seal(sortBy, order, given),
    };
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
  if (!keyFits(position.key, keyType(sortBy))) throw invalidCursor('malformed');
  const filters = filterRequest ? filterRequest.read(position.filters ?? {}) : ({} as F);
  if (!filters) throw invalidCursor('malformed');
  const restated = input.sortBy !== undefined || input.order !== undefined || Object.keys(given).length > 0;
  if (filterRequest && restated && !filterRequest.same(filters, given)) {
    throw invalidCursor(
      `was issued for the filters ${describeFilters(filters)}, not ${describeFilters(given)}; ` +
        'send it alone or with the same sort and filters',
    );
  }
  return {
    limit: input.limit,
    after: { key: position.key, id: position.id },
    sortBy,
    order: position.order,
    filters,
    seal: seal(sortBy, position.order, filters),
  };
}

const describeFilters = (filters: CursorFilters) => {
  const entries = Object.entries(filters);
  return entries.length === 0 ? '(none)' : entries.map(([name, value]) => `${name}=${value}`).join('&');
};

/** What a catalogue cursor's key is, per sort. */
export function providerKeyType(sortBy: ProviderSortField): KeyType {
  if (sortBy === 'followerCount' || sortBy === 'id') return 'number';
  // The ROI figures are null until a series is long enough.
  return sortBy.startsWith('roi') ? 'string|null' : 'string';
}

/**
 * A cursor's filters as the catalogue reads them back: built once, since zod 4 compiles a
 * schema's checks on its first parse, and a schema built per request (`.strict()` returns a new
 * one) paid that compilation on every cursor page (≈ 100 µs each; apps/bench/BENCH.md).
 */
const SEALED_PROVIDER_FILTERS = ProviderFiltersSchema.strict();

/** The catalogue's filters, for resolvePaging: the request's, compared and read back. */
function providerFilterRequest(input: ProviderFilters): FilterRequest<ProviderFilters> {
  return {
    given: pickProviderFilters(input),
    same: sameProviderFilters,
    read(sealed) {
      const parsed = SEALED_PROVIDER_FILTERS.safeParse(sealed);
      return parsed.success ? pickProviderFilters(parsed.data) : undefined;
    },
  };
}

/** The page a listing asked neither by page nor by cursor answers. */
export const FIRST_PAGE = 1;

/** The catalogue's order when a request names none: most followed first. */
export const CATALOGUE_SORT = {
  sortBy: 'followerCount',
  order: 'desc',
} as const satisfies SortRequest<ProviderSortField>;

/** The paging of a `providers.list` request (the catalogue's defaults: most followed first), with its filters. */
export function providerListPaging(
  codec: CursorCodec,
  input: { page?: number; limit: number; cursor?: string } & SortRequest<ProviderSortField> & ProviderFilters,
) {
  return resolvePaging(codec, 'providers', input, CATALOGUE_SORT, providerKeyType, providerFilterRequest(input));
}
