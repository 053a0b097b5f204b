import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The Go log check builds a Go program on first use and verifies a 70,000-entry log.
  test: { include: ['test/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 180_000 },
});
