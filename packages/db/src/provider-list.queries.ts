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
import type { Provider, ProviderFilterField, ProviderFilters, ProviderSortField, SortOrder } from '@signal/core';
import { type Compilable, type Expression, type Kysely, type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import { catalogueState, catalogueVersionSql, type VersionSink } from './catalogue-version.queries.js';
import { runCompiled, runCompiledColumns } from './compiled-query.js';
import { exactTimestamp, type PageResult, type Paging, pageResult } from './paging.js';
import { PROVIDER_AT, PROVIDER_COLUMNS, PUBLIC_PROVIDER, providerOf } from './provider.queries.js';
import type { Database } from './schema.js';

interface SortSpec {
  /** The providers column the sort reads. */
  column: string;
  /** How a cursor's key is typed against the column (name compares by code point, as it sorts). */
  cast: string;
  /** True when the column may be null: nulls then sort last in both orders. */
  nullable: boolean;
  /** How the key is read from a row: the number itself, or text the database renders exactly. */
  key: 'number' | 'text';
}

const SORTS: Record<ProviderSortField, SortSpec> = {
  followerCount: { column: 'follower_count', cast: 'integer', nullable: false, key: 'number' },
  createdAt: { column: 'created_at', cast: 'timestamptz', nullable: false, key: 'text' },
  name: { column: 'name', cast: 'text', nullable: false, key: 'text' },
  id: { column: 'id', cast: 'bigint', nullable: false, key: 'number' },
  // Figures (migration 0010) as text keys: float8 renders its shortest exact form, which casts
  // back to the same double (a JSON number would too, but not Infinity or NaN).
  roi7d: { column: 'roi_7d_pct', cast: 'double precision', nullable: true, key: 'text' },
  roi30d: { column: 'roi_30d_pct', cast: 'double precision', nullable: true, key: 'text' },
  roi90d: { column: 'roi_90d_pct', cast: 'double precision', nullable: true, key: 'text' },
  roiAll: { column: 'roi_all_pct', cast: 'double precision', nullable: true, key: 'text' },
  maxDrawdown: { column: 'max_drawdown_pct', cast: 'double precision', nullable: false, key: 'text' },
  winRate: { column: 'win_rate', cast: 'double precision', nullable: false, key: 'text' },
  tradingDays: { column: 'trading_days', cast: 'integer', nullable: false, key: 'text' },
};

/**
 * The conditions a list query is narrowed by: the contract's filters, and two forms of `q` for a
 * search of several words (`searchConditions`).
 */
type ListFilter = ProviderFilterField | 'qWhole' | 'qWord';

/**
 * Each filter as a condition on `p` with its one value as a parameter. A null figure fails
 * every comparison, so a provider without the figure fails a filter on it.
 */
const FILTERS: Record<ListFilter, (value: unknown) => RawBuilder<boolean>> = {
  q: (pattern) => sql<boolean>`p.name ilike ${pattern}`,
  // The whole pattern, checked on the rows the words' index read found; `|| ''` makes it no
  // index condition, so that the index is asked only for the words (searchConditions).
  qWhole: (pattern) => sql<boolean>`(p.name || '') ilike ${pattern}`,
  qWord: (pattern) => sql<boolean>`p.name ilike ${pattern}`,
  minRoi30dPct: (pct) => sql<boolean>`p.roi_30d_pct >= cast(${pct} as double precision)`,
  maxDrawdownPct: (pct) => sql<boolean>`p.max_drawdown_pct <= cast(${pct} as double precision)`,
  minWinRate: (rate) => sql<boolean>`p.win_rate >= cast(${rate} as double precision)`,
  minTradingDays: (days) => sql<boolean>`p.trading_days >= cast(${days} as bigint)`,
  minFollowers: (count) => sql<boolean>`p.follower_count >= cast(${count} as bigint)`,
};

/**
 * How `q` is asked of the trigram index. A pattern's trigrams include those at the edges of its
 * words (`show_trgm('labs 1234')` has `"bs "`, `"  1"` and `" 12"`), and those are the
 * commonest of all (every name with a word ending in "bs", every number starting with 1), so
 * the index would read their long posting lists for every search of several words. The words'
 * inner trigrams find the same names and more rarely: every name containing `labs 1234`
 * contains `labs` and `1234`. So a `q` of several words, each of three characters or more, asks the
 * index for each such word (`qWord`, an index condition each, ANDed by the index) and checks the
 * whole pattern on the rows found (`qWhole`); any other `q` is one condition, as before. The
 * matches are exactly the same; only the index's work changes (≈ 10 → 1.7 ms for `labs 1234`
 * on 1M: docs/design.md, "Searching the catalogue").
 */
function searchConditions(q: string): { names: ListFilter[]; values: string[] } {
  const words = q.split(/\s+/).filter((word) => word !== '');
  // One word, or a word too short to have an inner trigram (its edge trigrams are then what
  // narrows the search): the whole pattern alone.
  if (words.length < 2 || words.some((word) => word.length < 3)) return { names: ['q'], values: [containsPattern(q)] };
  return {
    names: ['qWhole', ...words.map(() => 'qWord' as const)],
    values: [containsPattern(q), ...words.map(containsPattern)],
  };
}

/**
 * The complement of each range filter among public providers: the rows that fail it (below or
 * above its bound, or without the figure). A broad filter's complement is narrow, so its exact
 * total is the public count (the counter row) minus a short range of the figure's own index
 * (`matches`). `q` has none: a pattern's complement is no index range.
 */
const COMPLEMENTS: Partial<Record<ListFilter, (value: unknown) => RawBuilder<boolean>>> = {
  minRoi30dPct: (pct) => sql<boolean>`(p.roi_30d_pct < cast(${pct} as double precision) or p.roi_30d_pct is null)`,
  maxDrawdownPct: (pct) => sql<boolean>`p.max_drawdown_pct > cast(${pct} as double precision)`,
  minWinRate: (rate) => sql<boolean>`p.win_rate < cast(${rate} as double precision)`,
  minTradingDays: (days) => sql<boolean>`p.trading_days < cast(${days} as bigint)`,
  minFollowers: (count) => sql<boolean>`p.follower_count < cast(${count} as bigint)`,
};

/**
 * How many rows a complement count reads at most before the direct count is taken instead: a
 * broad filter's complement (≤ 5 % of 1M) is read in a few milliseconds, and a filter that is
 * not broad pays only this bounded probe on top of its own count.
 */
const COMPLEMENT_PROBE = 50_000;

/**
 * `q` as an ILIKE pattern: a substring anywhere, with the pattern's own characters (`%`, `_`
 * and the escape `\`) escaped so that they match themselves.
 */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The filters given, in a fixed order, and their values as query parameters. */
function activeFilters(filters: ProviderFilters): { names: ListFilter[]; values: unknown[] } {
  const names: ListFilter[] = [];
  const values: unknown[] = [];
  for (const name of Object.keys(FILTERS) as ListFilter[]) {
    if (name === 'qWhole' || name === 'qWord') continue;
    const value = filters[name];
    if (value === undefined) continue;
    if (name === 'q') {
      const search = searchConditions(value as string);
      names.push(...search.names);
      values.push(...search.values);
      continue;
    }
    names.push(name);
    values.push(value);
  }
  return { names, values };
}

type ProviderQuery = SelectQueryBuilder<Database & { p: Database['providers'] }, 'p', object>;

/** The public rows of `p` (archived ones are hidden) that pass the filters named, their values at `values`. */
function whereFilters<Q extends ProviderQuery>(query: Q, names: ListFilter[], values: readonly unknown[]): Q {
  let filtered = query.where(PUBLIC_PROVIDER) as Q;
  names.forEach((name, index) => {
    filtered = filtered.where(FILTERS[name](values[index])) as Q;
  });
  return filtered;
}

/** ORDER BY of a sort over `p` (or the subquery `alias`): the column, then id, both in `order`. */
function orderBy(spec: SortSpec, order: SortOrder, alias = 'p'): Expression<unknown>[] {
  const direction = sql.raw(order);
  const id = sql`${sql.ref(`${alias}.id`)} ${direction}`;
  if (spec.column === 'id') return [id];
  const column = sql.ref(`${alias}.${spec.column}`);
  return [spec.nullable ? sql`${column} ${direction} nulls last` : sql`${column} ${direction}`, id];
}

function ordered<Q extends ProviderQuery>(query: Q, spec: SortSpec, order: SortOrder, alias?: string): Q {
  let sorted = query;
  for (const expression of orderBy(spec, order, alias)) sorted = sorted.orderBy(expression) as Q;
  return sorted;
}

/** The cursor key of the sort, where the row itself does not carry it as the database compares it. */
function keyColumn(spec: SortSpec) {
  if (spec.column === 'created_at') return [exactTimestamp('p.created_at').as('cursor_key')];
  if (spec.key === 'text' && spec.column !== 'name')
    return [sql<string | null>`p.${sql.ref(spec.column)}::text`.as('cursor_key')];
  return [];
}

/**
 * A listed row, read as an array (runCompiledColumns): PROVIDER_COLUMNS, then the sort's
 * keyColumn when it has one (at KEY_AT), then what the statement adds.
 */
type ListedRow = unknown[];

const KEY_AT = PROVIDER_COLUMNS.length;

function sortKey(row: ListedRow, spec: SortSpec): string | number | null {
  if (spec.column === 'follower_count') return row[PROVIDER_AT.followerCount] as number;
  if (spec.column === 'name') return row[PROVIDER_AT.name] as string;
  if (spec.column === 'id') return idOf(row);
  return (row[KEY_AT] as string | null | undefined) ?? null;
}

const idOf = (row: ListedRow) => Number(row[PROVIDER_AT.id]);

/** The number of providers passing the filters, and the catalogue's version, in one snapshot. */
async function matches(
  db: Kysely<Database>,
  names: ListFilter[],
  values: unknown[],
): Promise<{ total: number; version: string }> {
  if (names.length === 0) return catalogueState(db);
  const complement = names.length === 1 ? COMPLEMENTS[names[0] as ListFilter] : undefined;
  if (complement) return broadMatches(db, names[0] as ProviderFilterField, complement, values[0]);
  return countWithVersion(db, `countProviders:${names.join(',')}`, values, (...filterValues) => {
    const publicProviders = db.selectFrom('providers as p').where(PUBLIC_PROVIDER) as ProviderQuery;
    const matching = whereFilters(publicProviders, names, filterValues).as('m');
    return db.selectNoFrom((eb) => [
      catalogueVersionSql.as('version'),
      eb
        .selectFrom(matching)
        .select((inner) => inner.fn.countAll<number>().as('n'))
        .as('total'),
    ]);
  });
}

/**
 * Runs a statement answering one row of `total` (a count, as a number or bigint text) and the
 * catalogue's `version`, planned with its values known: a search's trigram index pays only for
 * a selective pattern, a range filter's index only for a narrow range.
 */
async function countWithVersion<const V extends readonly unknown[]>(
  db: Kysely<Database>,
  key: string,
  values: V,
  build: (...values: V) => Compilable<{ version: string; total: number | string }>,
): Promise<{ total: number; version: string }> {
  const [row] = await runCompiled(db, key, values, build, { prepare: false });
  return { total: Number(row?.total ?? 0), version: row?.version ?? '0' };
}

/**
 * The exact number of providers passing one range filter, and the catalogue's version, in one
 * snapshot: the public count (the counter row) minus the rows that fail the filter, when those
 * are at most COMPLEMENT_PROBE (a broad filter: a short range of the figure's index), else the
 * matches counted directly (the CASE runs that subquery only then).
 */
async function broadMatches(
  db: Kysely<Database>,
  name: ListFilter,
  complement: (value: unknown) => RawBuilder<boolean>,
  value: unknown,
): Promise<{ total: number; version: string }> {
  return countWithVersion(
    db,
    `countProvidersBroad:${name}`,
    [value, value, COMPLEMENT_PROBE, COMPLEMENT_PROBE] as const,
    (outsideValue, matchValue, probe, bound) =>
      db
        .selectFrom('catalogue_counters as c')
        .select([
          catalogueVersionSql.as('version'),
          sql<string>`case
            when o.n <= ${bound} then c.provider_count - o.n
            else (select count(*) from providers p where ${PUBLIC_PROVIDER} and ${FILTERS[name](matchValue)})
          end`.as('total'),
        ])
        .innerJoin(
          (eb) =>
            eb
              .selectFrom(
                db
                  .selectFrom('providers as p')
                  .select(sql`1`.as('one'))
                  .where(PUBLIC_PROVIDER)
                  .where(complement(outsideValue))
                  .limit(sql<number>`${probe} + 1`)
                  .as('outside'),
              )
              .select((inner) => inner.fn.countAll<number>().as('n'))
              .as('o'),
          (join) => join.onTrue(),
        ),
  );
}

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
