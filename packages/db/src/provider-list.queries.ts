/**
 * The public catalogue listing (`GET /providers`): one page in any sort, narrowed by any set of
 * filters (AND), by page number or after a cursor, with the exact number of matches.
 *
 * Every page is read from an index in its sort order (one per sort, ending in id, the
 * tie-break), so page 1 and a cursor page cost the page, not the catalogue: a filter on another
 * column is checked on the rows the index yields (about page / selectivity of them), and a
 * narrow one with an index of its own (the name search's trigram index) is read from that index
 * instead when the planner finds that cheaper. Plans: docs/design.md, "Searching the catalogue".
 */
import type { Provider, ProviderFilters, ProviderSortField, SortOrder } from '@signal/core';
import { type Kysely, sql } from 'kysely';
import { catalogueVersionSql, type VersionSink } from './catalogue-version.queries.js';
import { runCompiledColumns } from './compiled-query.js';
import { type PageResult, type Paging, pageResult } from './paging.js';
import { PROVIDER_AT, PROVIDER_COLUMNS, PUBLIC_PROVIDER, providerOf } from './provider.queries.js';
import {
  activeFilters,
  idOf,
  keyColumn,
  type ListedRow,
  type ListFilter,
  ordered,
  type ProviderQuery,
  SORTS,
  type SortSpec,
  sortKey,
  whereFilters,
} from './provider-list.parts.js';
import { matches } from './provider-list.totals.js';
import type { Database } from './schema.js';

/**
 * A page by number of a name search with its exact total and the catalogue's version, in one
 * statement (one snapshot): the matches are found once in the trigram index, counted by a
 * window over all of them (`count(*) over ()`, computed before the LIMIT) and the page is the
 * top of them in the sort. A search's common trigrams make that index read the search's main
 * cost (docs/design.md, "Searching the catalogue"), so reading it once instead of twice (page,
 * then count) halves it. Null when the page is past the last match (no row carries the total):
 * the caller then counts as for any filter.
 */
async function searchPage(
  db: Kysely<Database>,
  spec: SortSpec,
  order: SortOrder,
  names: ListFilter[],
  values: unknown[],
  shape: string,
  page: number,
  limit: number,
): Promise<{ rows: ListedRow[]; total: number; version: string } | null> {
  const columns = [...PROVIDER_COLUMNS, ...keyColumn(spec)] as const;
  const rows = await runCompiledColumns(
    db,
    `searchProviders:${shape}`,
    [...values, limit, (page - 1) * limit] as const,
    (...all) => {
      const filterValues = all.slice(0, names.length);
      const [take, skip] = all.slice(names.length) as [number, number];
      const keys = ordered(
        whereFilters(db.selectFrom('providers as p') as ProviderQuery, names, filterValues).select([
          'p.id',
          sql<string>`count(*) over ()`.as('matches'),
        ]),
        spec,
        order,
      )
        .limit(take)
        .offset(skip);
      return ordered(
        db
          .selectFrom('providers as p')
          .innerJoin(keys.as('k'), 'k.id', 'p.id')
          .select([
            ...columns,
            sql<string>`k.matches`.as('matches'),
            catalogueVersionSql.as('version'),
          ]) as unknown as ProviderQuery,
        spec,
        order,
      );
    },
    // Planned with the pattern known: the trigram index pays only for a selective one.
    { prepare: false },
  );
  const first = rows[0];
  if (!first) return null;
  return { rows, total: Number(first[columns.length]), version: first[columns.length + 1] as string };
}

/**
 * One page of the catalogue, by page number or after a cursor, with the filters applied.
 *
 * By page: the page's ids come from the sort index (an index-only scan when no filter needs
 * the row), and only those rows are then fetched: a deep page skips index entries instead of
 * whole rows (a "deferred join"), but still O(offset).
 *
 * By cursor (keyset): the rows strictly after (key, id) in the order, read straight from the
 * same index: the same cost at any depth. One extra row says whether there is a next page. A
 * nullable sort reads its non-null keys after the position, then its nulls (ordered by id).
 */
export async function listProviders(
  db: Kysely<Database>,
  request: Paging & { sortBy: ProviderSortField; order: SortOrder; filters?: ProviderFilters },
  observe?: VersionSink,
): Promise<PageResult<Provider>> {
  const spec = SORTS[request.sortBy];
  const { names, values } = activeFilters(request.filters ?? {});
  const shape = `${request.sortBy}:${request.order}:${names.join(',')}`;
  const { order, limit, after, seal } = request;
  // A name search's page by number: its few matches are read once from the trigram index for
  // the page and its total together (searchPage); a cursor page keeps the count of its own.
  if ((names.includes('q') || names.includes('qWhole')) && !after) {
    const searched = await searchPage(db, spec, order, names, values, shape, request.page ?? 1, limit);
    if (searched) {
      if (observe) observe.version = searched.version;
      const last = searched.rows.at(-1);
      const offset = ((request.page ?? 1) - 1) * limit;
      const next =
        last && seal && offset + searched.rows.length < searched.total
          ? seal({ key: sortKey(last, spec), id: idOf(last) })
          : null;
      return pageResult(searched.rows.map(providerOf), { page: request.page ?? 1, limit }, searched.total, next);
    }
  }
  // The version is read before the rows: a change committed in between then makes the answer
  // newer than its version (a needless 200 later), never older (a wrong 304).
  const { total, version } = await matches(db, names, values);
  if (observe) observe.version = version;
  const position = (row: ListedRow) => ({ key: sortKey(row, spec), id: idOf(row) });
  const columns = [...PROVIDER_COLUMNS, ...keyColumn(spec)] as const;
  const filtered = (filterValues: readonly unknown[]) =>
    whereFilters(db.selectFrom('providers as p').where(PUBLIC_PROVIDER) as ProviderQuery, names, filterValues);
  const comparison = sql.raw(order === 'desc' ? '<' : '>');
  // The key compares as the column sorts: names by code point.
  const collation = sql.raw(spec.column === 'name' ? ' collate "C"' : '');

  /**
   * Rows after a position, in the sort's order, from one index range scan stopping at `take`:
   * `keyed`, the keys strictly after (key, id); `nulls`, the nulls after id (a position among
   * the nulls); `nullsFirst`, the nulls from the first. Unprepared like the page query: planned
   * with its LIMIT (and the filters' values) known.
   */
  const providersAfter = (mode: 'keyed' | 'nulls' | 'nullsFirst', key: unknown, id: number, take: number) =>
    runCompiledColumns(
      db,
      `providersAfter:${mode}:${shape}`,
      [...values, key, id, take] as const,
      (...all) => {
        const filterValues = all.slice(0, names.length);
        const [afterKey, afterId, count] = all.slice(names.length);
        const condition =
          mode === 'nullsFirst'
            ? sql<boolean>`${sql.ref(`p.${spec.column}`)} is null`
            : mode === 'nulls'
              ? sql<boolean>`${sql.ref(`p.${spec.column}`)} is null and p.id ${comparison} ${afterId}`
              : spec.column === 'id'
                ? sql<boolean>`p.id ${comparison} ${afterId}`
                : sql<boolean>`(${sql.ref(`p.${spec.column}`)}, p.id) ${comparison} (cast(${afterKey} as ${sql.raw(spec.cast)})${collation}, ${afterId})`;
        return ordered(filtered(filterValues).select(columns).where(condition), spec, order).limit(count as number);
      },
      { prepare: false },
    );

  if (after) {
    // A nullable sort after a non-null key reads the keys after the position first, alone, as a
    // non-nullable sort does; its nulls are read only when those run out within the page.
    const mode = after.key === null ? 'nulls' : 'keyed';
    const rows = await providersAfter(mode, after.key, after.id, limit + 1);
    if (mode === 'keyed' && spec.nullable && rows.length <= limit) {
      // The page where the non-null keys run out (one per walk): the rest of it is the first
      // nulls, in id order. A second statement, so a second snapshot; the Version 2 guarantee
      // (CONTRACT.md: a walk never repeats or skips a provider whose sort key did not change)
      // still holds, since a provider whose key did not change between the two statements is
      // in the same place in both: in the first if non-null (after the position, before any
      // null), in the second if null. Only a provider whose key changed meanwhile can be in
      // both (non-null, then null); it is served once, where the first statement found it. The
      // nulls are read to a full limit + 1, so that dropping such a row never shortens the page
      // into a false last page (nextCursor null while nulls remain).
      const seen = new Set(rows.map((row) => String(row[PROVIDER_AT.id])));
      const nulls = await providersAfter('nullsFirst', null, 0, limit + 1);
      for (const row of nulls) if (!seen.has(String(row[PROVIDER_AT.id]))) rows.push(row);
    }
    const more = rows.length > limit;
    const items = more ? rows.slice(0, limit) : rows;
    const last = items.at(-1);
    return pageResult(items.map(providerOf), { limit }, total, more && last && seal ? seal(position(last)) : null);
  }

  const page = request.page ?? 1;
  const offset = (page - 1) * limit;
  if (offset >= total) return pageResult([], { page, limit }, total);
  // Unprepared: planned with its LIMIT and OFFSET known, as it must be. PostgreSQL would keep
  // custom plans anyway, but its generic plan (a hash join over the whole table, ≈0.5 s on 1M
  // providers) must not become possible for any mix of pages.
  const rows = await runCompiledColumns(
    db,
    `listProviders:${shape}`,
    [...values, limit, offset] as const,
    (...all) => {
      const filterValues = all.slice(0, names.length);
      const [take, skip] = all.slice(names.length) as [number, number];
      const keys = ordered(filtered(filterValues).select('p.id'), spec, order).limit(take).offset(skip);
      return ordered(
        db
          .selectFrom('providers as p')
          .innerJoin(keys.as('k'), 'k.id', 'p.id')
          .select(columns) as unknown as ProviderQuery,
        spec,
        order,
      );
    },
    { prepare: false },
  );
  const last = rows.at(-1);
  const next = last && seal && offset + rows.length < total ? seal(position(last)) : null;
  return pageResult(rows.map(providerOf), { page, limit }, total, next);
}
