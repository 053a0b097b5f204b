import { defineConfig } from 'vitest/config';
import { sharedTestSettings } from '../../vitest.shared.js';

export default defineConfig({ test: sharedTestSettings });
