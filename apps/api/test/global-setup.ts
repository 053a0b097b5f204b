/**
 * Process tests run the built server (dist/main.js). When a source file is newer than the
 * build, or there is none, build it first, so `vitest run` never tests a stale dist. Then make
 * the run's migrated database and PGlite directory, dropped at the end.
 *
 * With TEST_POOLER=pgbouncer, start a transaction-mode PgBouncer in front of the test server
 * for the whole run and send every service under test through it (TEST_POOLER_URL, read by
 * serviceDatabaseUrl; the test files' workers inherit it); it is stopped at the end.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as db from '@signal/db';
import { makeMigratedTemplates, startPgBouncer, TEST_ADMIN_URL } from '@signal/test-support';

const root = fileURLToPath(new URL('..', import.meta.url));

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

export default async function setup() {
  buildIfStale();
  // The servers startApi starts copy a migrated database or PGlite directory (migrated-templates.ts).
  const dropTemplates = await makeMigratedTemplates(db);
  if (process.env.TEST_POOLER !== 'pgbouncer') return dropTemplates;
  const pooler = await startPgBouncer({ upstream: TEST_ADMIN_URL });
  process.env.TEST_POOLER_URL = pooler.url;
  console.log(`services under test connect through PgBouncer (transaction mode) at ${pooler.url}`);
  return async () => {
    await dropTemplates();
    try {
      // Proof that the run went through the pooler, not around it.
      const carried = [...(await pooler.transactions())].filter(([database]) => database.startsWith('test_'));
      const total = carried.reduce((sum, [, count]) => sum + count, 0);
      console.log(`PgBouncer carried ${total} transactions to ${carried.length} test databases`);
      if (total === 0) throw new Error('PgBouncer carried no transaction to a test database: the services bypassed it');
    } finally {
      await pooler.stop();
    }
  };
}

export function buildIfStale() {
  let built = 0;
  try {
    built = statSync(join(root, 'dist', 'main.js')).mtimeMs;
  } catch {
    // not built yet
  }
  if (built >= newest(join(root, 'src'))) return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
}
