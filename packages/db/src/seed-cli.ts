/**
 * `pnpm --filter @signal/db seed -- <N>`: seeds N demo providers into DATABASE_URL (or the
 * PGlite store under DATA_DIR, default .data) when the catalogue is empty, and prints the time.
 */
import { resolve } from 'node:path';
import { createDatabase } from './connect.js';
import { migrateToLatest } from './migrate.js';
import { seedDemoCatalogue } from './seed.js';

const count = Number(process.argv.slice(2).find((arg) => /^[0-9]+$/.test(arg)) ?? 1_000_000);
const url = process.env.DATABASE_URL || undefined;
const dataDir = resolve(process.env.INIT_CWD ?? process.cwd(), process.env.DATA_DIR || '.data');
const database = createDatabase({ url, dataDir });
try {
  await migrateToLatest(database.db);
  const started = performance.now();
  const result = await seedDemoCatalogue(database.db, { providers: count });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (result) {
    console.log(
      `seeded ${result.providers} providers, ${result.users} demo users, ${result.follows} follows in ${seconds} s (${database.backend})`,
    );
  } else {
    console.log('the catalogue is not empty: nothing seeded');
  }
} finally {
  await database.close();
}
