import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { sharedTestSettings } from '../../vitest.shared.mjs';

export default defineConfig({
  test: {
    ...sharedTestSettings,
    // Three files at a time at least: since the servers start from migrated copies
    // (packages/test-support/src/migrated-templates.ts), a file spends more of its time waiting
    // on its servers, PostgreSQL and the browser. On 2 cores, 3 Dec 2026: two workers 667 s
    // (clean-clone CI), three 615 s at load 5-6, the same 1,704 tests passing.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    // The service runs with zod's compiler on (src/main.ts): so do the servers these files start
    // in-process, so that every answer and every refused input they check went through it.
    setupFiles: ['zod/compile'],
    // Process tests spawn dist/main.js: rebuild it first when src is newer.
    globalSetup: ['test/global-setup.ts'],
  },
});
