import { defineConfig } from 'tsup';

// The `signal-audit` bin: Node (it reads and writes its --state file), one self-contained file
// with @signal/core bundled; viem is loaded only for --rpc, from the user's install.
export default defineConfig({
  entry: { 'signal-audit': 'src/bin/signal-audit.ts' },
  outDir: 'dist/bin',
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  banner: { js: '#!/usr/bin/env node' },
  treeshake: true,
  clean: true,
  dts: false,
  noExternal: ['@signal/core', '@noble/hashes', '@noble/curves', 'bs58'],
  external: ['viem'],
});
