/**
 * The exact number of providers a catalogue listing matches, with the catalogue's version read
 * in the same snapshot (the version the answer's ETag and the answer cache are keyed by): the
 * counter row when nothing filters, the public count minus a broad filter's narrow complement,
 * or a count planned with the filter's values known.
 */
import type { ProviderFilterField } from '@signal/core';
import { type Compilable, type Kysely, type RawBuilder, sql } from 'kysely';
import { catalogueState, catalogueVersionSql } from './catalogue-version.queries.js';
import { runCompiled } from './compiled-query.js';
import { PUBLIC_PROVIDER } from './provider.queries.js';
import {
  COMPLEMENT_PROBE,
  COMPLEMENTS,
  FILTERS,
  type ListFilter,
  type ProviderQuery,
  whereFilters,
} from './provider-list.parts.js';
import type { Database } from './schema.js';

/** The number of providers passing the filters, and the catalogue's version, in one snapshot. */
export async function matches(
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
