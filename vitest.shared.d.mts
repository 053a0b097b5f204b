// The types of vitest.shared.mjs (JavaScript, so that each package's type check, rooted at the
// package, can import it from the repository's root).
import type { ViteUserConfig } from 'vitest/config';

export declare const sharedTestSettings: NonNullable<ViteUserConfig['test']>;
