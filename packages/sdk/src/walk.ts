/** Cursor walks: every item of a paged listing, one page at a time (the clients' `all` methods). */

/** The query of the first page (no page, no cursor) or of the page after `cursor`. */
function pageAfter<Q extends { page?: unknown; cursor?: unknown }>(query: Q, cursor: string | null): Q {
  const { page: _page, cursor: _cursor, ...rest } = query;
  return (cursor === null ? rest : { ...rest, cursor }) as Q;
}

/** The items of every page `list` answers for `query`, fetched one page at a time as the caller consumes them. */
export async function* walk<Q extends { page?: unknown; cursor?: unknown }, T>(
  list: (query: Q) => Promise<{ items: T[]; nextCursor: string | null }>,
  query: Q,
): AsyncIterableIterator<T> {
  let cursor: string | null = null;
  do {
    const page: { items: T[]; nextCursor: string | null } = await list(pageAfter(query, cursor));
    yield* page.items;
    cursor = page.nextCursor;
  } while (cursor !== null);
}
