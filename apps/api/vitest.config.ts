import { defineConfig } from 'vitest/config';
import { sharedTestSettings } from '../../vitest.shared.mjs';

export default defineConfig({
  test: {
    ...sharedTestSettings,
    // Process tests spawn dist/main.js: rebuild it first when src is newer.
    globalSetup: ['test/global-setup.ts'],
  },
});
