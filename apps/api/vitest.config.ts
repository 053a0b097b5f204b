import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Process tests spawn dist/main.js: rebuild it first when src is newer.
    globalSetup: ['test/global-setup.ts'],
  },
});
