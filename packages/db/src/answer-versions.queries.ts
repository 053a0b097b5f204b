/**
 * The versions a built answer is kept under (the API's answer cache, apps/api/src/http/answer-cache.ts),
 * read for many requests in one statement: the catalogue's version (list pages) and the version of
 * each public provider asked for (detail, stats, performance): what every revalidation reads
 * (apps/api/src/http/caching.ts), and the same versions the reads leave in their VersionSink (the list's
 * beside its total, a provider's with its row), so a tag's version is the one a 304 checks.
 */
import { type Kysely, sql } from 'kysely';
import { catalogueVersionSql } from './catalogue-version.queries.js';
import { runCompiled } from './compiled-query.js';
import type { Database } from './schema.js';

export interface CurrentVersions {
  /** The catalogue's version, when asked for. */
  catalogue: string | undefined;
  /** Provider id → version, for each asked-for provider that exists and is public (not archived). */
  providers: Map<number, string>;
}

/**
 * The catalogue's version (when `catalogue`) and the versions of the public providers among
 * `ids`, in one snapshot. An archived or missing provider has no entry: no answer kept for it
 * may be served, and its read answers 404 from the procedure.
 */
export async function currentVersions(
  db: Kysely<Database>,
  ids: readonly number[],
  catalogue: boolean,
): Promise<CurrentVersions> {
  const [row] = await runCompiled(db, 'currentVersions', [ids, catalogue], (idList, withCatalogue) =>
    db.selectNoFrom([
      sql<string | null>`case when ${withCatalogue}::boolean then ${catalogueVersionSql} end`.as('catalogue'),
      sql<
        string[]
      >`array(select p.id::text || ':' || p.version::text from providers p where p.id = any(${idList}::int8[]) and p.archived_at is null)`.as(
        'providers',
      ),
    ]),
  );
  const providers = new Map<number, string>();
  for (const pair of (row?.providers ?? []) as string[]) {
    const colon = pair.indexOf(':');
    providers.set(Number(pair.slice(0, colon)), pair.slice(colon + 1));
  }
  // The slots start at 0, so the sum is never null once migrated; '0' as catalogueState reads it.
  return { catalogue: catalogue ? (row?.catalogue ?? '0') : undefined, providers };
}

/**
 * Until when a provider's stats built at `now` stay exact while its version does not change:
 * followersGained7d / 30d count the follows created after now − 7 / 30 days, so the earliest
 * of those follows leaves its window 7 / 30 days after it was made. Null: no follow in the
 * 30-day window, so only a new follow (which bumps the version) changes the figures.
 */
export async function statsValidUntil(db: Kysely<Database>, id: number, now: Date): Promise<number | null> {
  const since7d = new Date(now.getTime() - 7 * 86_400_000);
  const since30d = new Date(now.getTime() - 30 * 86_400_000);
  const [row] = await runCompiled(db, 'statsValidUntil', [id, since7d, since30d], (providerId, after7d, after30d) =>
    db
      .selectFrom('follows as f')
      .select([
        sql<Date | null>`min(f.created_at) filter (where f.created_at > ${after7d})`.as('first7d'),
        sql<Date | null>`min(f.created_at) filter (where f.created_at > ${after30d})`.as('first30d'),
      ])
      .where('f.provider_id', '=', providerId)
      .where('f.created_at', '>', after30d),
  );
  const bounds: number[] = [];
  if (row?.first7d) bounds.push(new Date(row.first7d).getTime() + 7 * 86_400_000);
  if (row?.first30d) bounds.push(new Date(row.first30d).getTime() + 30 * 86_400_000);
  return bounds.length > 0 ? Math.min(...bounds) : null;
}
