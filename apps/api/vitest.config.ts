import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // At least two files at a time: vitest's default (cores - 1) is one on a 2-core CI machine,
    // and these files wait on PostgreSQL, servers and the browser far more than they compute
    // (the suite: 439 → 338 s there).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Process tests spawn dist/main.js: rebuild it first when src is newer.
    globalSetup: ['test/global-setup.ts'],
  },
});
