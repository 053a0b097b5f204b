/**
 * The parts the catalogue listing (provider-list.queries.ts) builds its statements from: each
 * sort (the column, its cursor key's type, nulls), each filter as a condition and as its
 * complement (for broad filters' totals), the name search's conditions, the ORDER BY, and where
 * a listed row (read as an array) carries its id and sort key.
 */
import type { ProviderFilterField, ProviderFilters, ProviderSortField, SortOrder } from '@signal/core';
import { type Expression, type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import { exactTimestamp } from './paging.js';
import { PROVIDER_AT, PROVIDER_COLUMNS, PUBLIC_PROVIDER } from './provider.queries.js';
import type { Database } from './schema.js';

export interface SortSpec {
  /** The providers column the sort reads. */
  column: string;
  /** How a cursor's key is typed against the column (name compares by code point, as it sorts). */
  cast: string;
  /** True when the column may be null: nulls then sort last in both orders. */
  nullable: boolean;
  /** How the key is read from a row: the number itself, or text the database renders exactly. */
  key: 'number' | 'text';
}

export const SORTS: Record<ProviderSortField, SortSpec> = {
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
export type ListFilter = ProviderFilterField | 'qWhole' | 'qWord';

/**
 * Each filter as a condition on `p` with its one value as a parameter. A null figure fails
 * every comparison, so a provider without the figure fails a filter on it.
 */
export const FILTERS: Record<ListFilter, (value: unknown) => RawBuilder<boolean>> = {
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

/** A run of three word characters (letters and digits, as pg_trgm's words are made of). */
const INNER_TRIGRAM = /[\p{L}\p{N}]{3}/u;

/**
 * Whether the trigram index can narrow a search for `q` (`name ILIKE '%q%'`): pg_trgm finds the
 * names from the pattern's trigrams, and only a word of three letters or digits has one of its
 * own. Without one (`#`, spaces, an emoji, one or two characters, words of two) the pattern has
 * at most edge trigrams (`"  a"`, `"ab "`), the commonest of all, or none, and the index (or the
 * table) is read whole: ≈0.5 s at 200k providers. Such searches are the ones the per-address
 * database-time budget gates (apps/api/src/procedures/search-budget.ts).
 */
export function nameIndexCanNarrow(q: string): boolean {
  return INNER_TRIGRAM.test(q);
}

/**
 * The complement of each range filter among public providers: the rows that fail it (below or
 * above its bound, or without the figure). A broad filter's complement is narrow, so its exact
 * total is the public count (the counter row) minus a short range of the figure's own index
 * (`matches`). `q` has none: a pattern's complement is no index range.
 */
export const COMPLEMENTS: Partial<Record<ListFilter, (value: unknown) => RawBuilder<boolean>>> = {
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
export const COMPLEMENT_PROBE = 50_000;

/**
 * `q` as an ILIKE pattern: a substring anywhere, with the pattern's own characters (`%`, `_`
 * and the escape `\`) escaped so that they match themselves.
 */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The filters given, in a fixed order, and their values as query parameters. */
export function activeFilters(filters: ProviderFilters): { names: ListFilter[]; values: unknown[] } {
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

export type ProviderQuery = SelectQueryBuilder<Database & { p: Database['providers'] }, 'p', object>;

/** The public rows of `p` (archived ones are hidden) that pass the filters named, their values at `values`. */
export function whereFilters<Q extends ProviderQuery>(query: Q, names: ListFilter[], values: readonly unknown[]): Q {
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

export function ordered<Q extends ProviderQuery>(query: Q, spec: SortSpec, order: SortOrder, alias?: string): Q {
  let sorted = query;
  for (const expression of orderBy(spec, order, alias)) sorted = sorted.orderBy(expression) as Q;
  return sorted;
}

/** The cursor key of the sort, where the row itself does not carry it as the database compares it. */
export function keyColumn(spec: SortSpec) {
  if (spec.column === 'created_at') return [exactTimestamp('p.created_at').as('cursor_key')];
  if (spec.key === 'text' && spec.column !== 'name')
    return [sql<string | null>`p.${sql.ref(spec.column)}::text`.as('cursor_key')];
  return [];
}

/**
 * A listed row, read as an array (runCompiledColumns): PROVIDER_COLUMNS, then the sort's
 * keyColumn when it has one (at KEY_AT), then what the statement adds.
 */
export type ListedRow = unknown[];

const KEY_AT = PROVIDER_COLUMNS.length;

export function sortKey(row: ListedRow, spec: SortSpec): string | number | null {
  if (spec.column === 'follower_count') return row[PROVIDER_AT.followerCount] as number;
  if (spec.column === 'name') return row[PROVIDER_AT.name] as string;
  if (spec.column === 'id') return idOf(row);
  return (row[KEY_AT] as string | null | undefined) ?? null;
}

export const idOf = (row: ListedRow) => Number(row[PROVIDER_AT.id]);
