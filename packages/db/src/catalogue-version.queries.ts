/**
 * The catalogue's version (any committed change of any provider, follows included, raises it),
 * read in the statement of the rows it versions; a revalidation reads it alone through
 * currentVersions (answer-versions.queries.ts), never the answer it stands for.
 */
import { type Kysely, sql } from 'kysely';
import { runCompiled } from './compiled-query.js';
import type { Database } from './schema.js';

/** Receives the version of the data a read answered from (an ETag's source), when asked. */
export type { AnswerIdentity, VersionSink } from './version-sink.js';

/**
 * The catalogue's version as text: the sum of the slots of migration 0007, which rises with every
 * committed change of any provider, follows included. Read inside the statement that reads the
 * rows it versions, so both come from one snapshot.
 */
export const catalogueVersionSql = sql<string>`(select sum(version) from catalogue_versions)::text`;

/**
 * The catalogue total (kept exact by triggers: no count(*) over the table) and version in one
 * read. The version (sum of the slots of migration 0007) rises with every committed change of
 * any provider, follows included.
 */
export async function catalogueState(db: Kysely<Database>): Promise<{ total: number; version: string }> {
  const [row] = await runCompiled(db, 'catalogueState', [], () =>
    db.selectFrom('catalogue_counters').select(['provider_count', catalogueVersionSql.as('version')]),
  );
  return { total: Number(row?.provider_count ?? 0), version: row?.version ?? '0' };
}
