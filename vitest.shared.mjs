/**
 * The test settings every package's vitest.config.ts starts from (a package adds its own, such
 * as the API's global setup).
 */
import { availableParallelism } from 'node:os';

export const sharedTestSettings = {
  include: ['test/**/*.test.ts'],
  // The differential tests verify thousands of signatures and the API's files start servers:
  // vitest's 5 s default is too tight on a 2-core CI machine.
  testTimeout: 30_000,
  hookTimeout: 60_000,
  // At least two files at a time: vitest's default (cores - 1) is one on a 2-core CI machine,
  // and these files wait on PostgreSQL, servers and the browser far more than they compute.
  maxWorkers: Math.max(2, availableParallelism() - 1),
  // One module graph per worker, not per file: every file starts its own servers and databases,
  // and no test keeps state in module variables, the environment or mocks, so re-importing the
  // API, tRPC, zod and viem for each file only burned CPU. On 2 cores, 3 Dec 2026, isolated →
  // shared: the API suite 981 s (20 min of CPU) → 740 s (13 min), the SDK's 151 → 77 s (two
  // workers too), core's 44 → 18 s, db's 54 → 26 s; the same tests pass.
  isolate: false,
};
