import { defineConfig } from 'vitest/config';
import { sharedTestSettings } from '../../vitest.shared.mjs';

export default defineConfig({ test: { ...sharedTestSettings, globalSetup: ['test/global-setup.ts'] } });
