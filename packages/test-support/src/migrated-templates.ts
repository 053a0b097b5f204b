/**
 * A suite's global setup (apps/api/test/global-setup.ts) can migrate one PostgreSQL database and
 * one PGlite directory for its whole run and name them here; the servers `startApi` starts then
 * begin from a copy, so a start checks its migrations instead of running them, and a PGlite
 * start skips initdb. On 2 busy cores (load 10), 3 Dec 2026: a PostgreSQL start 1.3–2.2 s →
 * 0.5–0.8 s, a PGlite start 9–20 s → ≈1.5 s with the copy. Unset, every start begins empty.
 * What migrating from empty is left to: server pairs, process tests, packages/db's tests,
 * schema-loss.test.ts, and any start given its own database URL or data directory.
 */

/** The name of a migrated database on the test server, for `create database … template …`. */
export const MIGRATED_DATABASE_VARIABLE = 'TEST_MIGRATED_DATABASE';

/** A migrated PGlite directory (a data directory's `pglite/`), copied into each new data directory. */
export const MIGRATED_PGLITE_VARIABLE = 'TEST_MIGRATED_PGLITE';
