/**
 * The service started in-process on a scratch PostgreSQL database with its `Services` in reach, for the tests that run
 * the fast path and tRPC's own code side by side on the same router, database and keys.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScratchDatabase, serviceDatabaseUrl, TEST_SERVICE_ENV } from '@signal/test-support';
import { startedForTests } from '@signal/test-support/vitest';
import { createServer, loadConfig } from '../../src/index.js';
import type { Services } from '../../src/procedures/context.js';

export interface StartedService {
  url: string;
  services: Services;
  stop(): Promise<void>;
}

/** The file's service, started before its first test and stopped after its last. */
export function useService(env: Record<string, string> = {}): StartedService {
  return startedForTests(async () => {
    const database = await createScratchDatabase();
    const dataDir = await mkdtemp(join(tmpdir(), 'signal-trpc-test-'));
    const server = createServer({
      config: loadConfig({
        ...TEST_SERVICE_ENV,
        PORT: '0',
        DATA_DIR: dataDir,
        DATABASE_URL: serviceDatabaseUrl(database.url),
        ...env,
      }),
    });
    const { url, services } = await server.start();
    return {
      url,
      services,
      async stop() {
        await server.stop();
        await database.drop();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  });
}
