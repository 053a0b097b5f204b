import { sql } from 'kysely';
import { statementsMigration } from './statements.js';

/**
 * Versions that change with what a public read answers, so a revalidation (If-None-Match)
 * costs one small read instead of building the answer again.
 */
export const { up } = statementsMigration([
  // Per provider: a value from a sequence, new on every change of the row (the follows trigger
  // changes follower_count, so a follow bumps it too). A sequence rather than a counter: a
  // provider deleted and created again under the same id never reuses an old version.
  sql`create sequence provider_version_seq`,
  // Existing rows start at 0 (no table rewrite); rows inserted later draw from the sequence.
  sql`alter table providers add column version bigint not null default 0`,
  sql`alter table providers alter column version set default nextval('provider_version_seq')`,
  sql`
    create function providers_bump_version() returns trigger language plpgsql as $$
    begin
      new.version := nextval('provider_version_seq');
      return new;
    end $$
  `,
  sql`
    create trigger providers_bump_version before update on providers
      for each row when (old.* is distinct from new.*) execute function providers_bump_version()
  `,
  // The catalogue as a whole (list pages): a version spread over 64 slots, each bumped once per
  // statement that changes providers. One global row would serialise every follow in the
  // database on its row lock; a slot is chosen by the backend, so a transaction only ever
  // locks one and concurrent follows mostly meet different ones. The version is the sum of
  // the slots: each bump is an increment, so any committed change raises it.
  sql`
    create table catalogue_versions (
      slot smallint primary key,
      version bigint not null default 0
    )
  `,
  sql`insert into catalogue_versions (slot, version) select g, 0 from generate_series(0, 63) g`,
  sql`
    create function catalogue_bump_version() returns trigger language plpgsql as $$
    begin
      update catalogue_versions set version = version + 1 where slot = pg_backend_pid() % 64;
      return null;
    end $$
  `,
  sql`
    create trigger catalogue_bump_version after insert or update or delete or truncate on providers
      for each statement execute function catalogue_bump_version()
  `,
]);
