/**
 * The servers the SDK's tests start (test/support/api.ts) copy a migrated PostgreSQL database or
 * PGlite directory made once for the run (packages/test-support/src/migrated-templates.ts),
 * dropped at the end.
 */
import * as db from '@signal/db';
import { makeMigratedTemplates } from '@signal/test-support';

export default function setup() {
  return makeMigratedTemplates(db);
}
