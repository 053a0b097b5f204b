import { createScratchDatabase } from '@signal/test-support';
import { startedForTests } from '@signal/test-support/vitest';
import { type Backend, createDatabase, type DatabaseHandle, migrateToLatest } from '../src/index.js';

export interface TestDatabase extends DatabaseHandle {
  /** Set for PostgreSQL: the scratch database's URL, for servers started by the test. */
  url: string | undefined;
  /** Closes the handle and drops the scratch database. */
  stop(): Promise<void>;
}

/** A migrated database of the given backend, private to the caller. */
export async function openTestDatabase(backend: Backend): Promise<TestDatabase> {
  if (backend === 'pglite') {
    const handle = createDatabase({});
    await migrateToLatest(handle.db);
    return { ...handle, url: undefined, stop: () => handle.close() };
  }
  const scratch = await createScratchDatabase();
  const handle = createDatabase({ url: scratch.url });
  await migrateToLatest(handle.db);
  return {
    ...handle,
    url: scratch.url,
    async stop() {
      await handle.close();
      await scratch.drop();
    },
  };
}

/** A private, migrated database of the backend for the enclosing file or describe block. */
export function useTestDatabase(backend: Backend): TestDatabase {
  return startedForTests(() => openTestDatabase(backend));
}

let counter = 0;
/** A nonce no other test uses: 32 alphanumerics, like the ones the service issues. */
export const freshNonce = () =>
  `n${Date.now()}x${++counter}${Math.random().toString(36).slice(2)}`.padEnd(32, '0').slice(0, 32);
