import { afterAll, beforeAll } from 'vitest';
import type { Backend } from '../src/index.js';
import { openTestDatabase, type TestDatabase } from '../src/testing.js';

/** Opens a private, migrated database of the backend for the enclosing describe block. */
export function useTestDatabase(backend: Backend): () => TestDatabase {
  let t: TestDatabase | undefined;
  beforeAll(async () => {
    t = await openTestDatabase(backend);
  });
  afterAll(async () => {
    await t?.dispose();
  });
  return () => {
    if (!t) throw new Error('the test database is not open yet');
    return t;
  };
}

let counter = 0;
/** A nonce no other test uses: 32 alphanumerics, like the ones the service issues. */
export const freshNonce = () =>
  `n${Date.now()}x${++counter}${Math.random().toString(36).slice(2)}`.padEnd(32, '0').slice(0, 32);
