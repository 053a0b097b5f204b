import { defineConfig } from 'tsup';

export default defineConfig({
  // One entry per import path, so a Solana-only app never loads the EVM adapter and vice versa.
  entry: [
    'src/index.ts',
    'src/evm.ts',
    'src/solana.ts',
    'src/statements.ts',
    'src/publisher.ts',
    'src/log.ts',
    'src/audit.ts',
  ],
  format: ['esm'],
  // The browser platform makes any Node built-in on these paths a build error.
  platform: 'browser',
  target: 'es2022',
  splitting: true,
  // Rollup's tree-shaking drops what the tRPC modules we import do not use (esbuild alone keeps it:
  // 6.6 vs 6.0 KiB gzip; see src/transport.ts for what is not imported at all).
  treeshake: true,
  sourcemap: true,
  clean: true,
  // Declarations come from tsc (per file) and scripts/flatten-wire-types.mjs, not from tsup.
  dts: false,
  // Bundled, not depended on: the private @signal/core (error table, sign-in message) and the
  // tRPC client with the few helpers it takes from @trpc/server. The published package then
  // needs no private package and no server library; tree-shaking keeps only what is used.
  noExternal: ['@signal/core', '@trpc/client', '@trpc/server', '@noble/hashes', '@noble/curves'],
});
