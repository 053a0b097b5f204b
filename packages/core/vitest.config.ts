import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The differential tests verify thousands of signatures: vitest's 5 s default is too tight
  // on a 2-core CI machine that runs other packages' servers at the same time.
  test: { include: ['test/**/*.test.ts'], testTimeout: 30_000 },
});
