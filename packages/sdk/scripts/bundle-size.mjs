/**
 * What each entry of the built SDK adds to a browser app: bundled with esbuild as an app
 * would (browser platform, minified, code splitting), then gzipped. viem and @solana/web3.js
 * stay external: the app brings them anyway, and the adapters only use them as types. Chunks
 * reached only through a dynamic import (tweetnacl, for Keypair signing) are reported apart,
 * since a browser loads them only if it signs with a Keypair.
 *
 * Prints a table; `--json` prints the figures for tests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const entries = {
  '@signal/sdk': "export * from '@signal/sdk';",
  '@signal/sdk/evm': "export * from '@signal/sdk/evm';",
  '@signal/sdk/solana': "export * from '@signal/sdk/solana';",
  '@signal/sdk/statements': "export * from '@signal/sdk/statements';",
  '@signal/sdk/publisher': "export * from '@signal/sdk/publisher';",
  '@signal/sdk/log': "export * from '@signal/sdk/log';",
};

/**
 * @typedef {object} EntrySize
 * @property {number} minified bytes loaded up front, minified
 * @property {number} gzip the same, gzipped
 * @property {number} lazyGzip gzipped bytes behind dynamic imports
 * @property {string[]} eagerInputs source files in what loads up front
 * @property {string[]} lazyInputs source files only behind dynamic imports
 */

/** @returns {Promise<Record<string, EntrySize>>} */
export async function measure() {
  /** @type {Record<string, EntrySize>} */
  const sizes = {};
  const outdir = mkdtempSync(join(tmpdir(), 'signal-sdk-size-'));
  try {
    for (const [name, contents] of Object.entries(entries)) {
      const result = await build({
        stdin: { contents, resolveDir: root, loader: 'js', sourcefile: 'app.js' },
        bundle: true,
        minify: true,
        splitting: true,
        format: 'esm',
        platform: 'browser',
        target: 'es2022',
        outdir,
        absWorkingDir: root,
        write: false,
        metafile: true,
        external: ['viem', 'viem/*', '@solana/web3.js'],
        logLevel: 'silent',
      });
      const files = new Map(result.outputFiles.map((file) => [file.path, file.contents]));
      const outputs = result.metafile.outputs;
      const chunks = Object.keys(outputs).filter((path) => path.endsWith('.js'));
      const entry = chunks.find((path) => outputs[path]?.entryPoint);
      if (!entry) throw new Error(`no entry chunk for ${name}`);
      // The entry and every chunk it imports statically load up front; dynamic imports later.
      /** @type {Set<string>} */
      const eager = new Set();
      /** @param {string} path */
      const visit = (path) => {
        if (eager.has(path)) return;
        eager.add(path);
        for (const dep of outputs[path]?.imports ?? []) {
          if (dep.kind === 'import-statement' && !dep.external) visit(dep.path);
        }
      };
      visit(entry);
      const lazy = chunks.filter((path) => !eager.has(path));
      /** @param {string[]} paths @param {(code: Uint8Array) => number} size */
      const total = (paths, size) =>
        paths.reduce((sum, path) => sum + size(files.get(join(root, path)) ?? new Uint8Array()), 0);
      /** @param {string[]} paths */
      const inputsOf = (paths) => [...new Set(paths.flatMap((path) => Object.keys(outputs[path]?.inputs ?? {})))];
      /** @param {Uint8Array} code */
      const gzip = (code) => gzipSync(code, { level: 9 }).length;
      sizes[name] = {
        minified: total([...eager], (code) => code.length),
        gzip: total([...eager], gzip),
        lazyGzip: total(lazy, gzip),
        eagerInputs: inputsOf([...eager]),
        lazyInputs: inputsOf(lazy),
      };
    }
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
  return sizes;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const sizes = await measure();
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(sizes));
  } else {
    for (const [name, size] of Object.entries(sizes)) {
      const kb = (/** @type {number} */ bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
      const lazy = size.lazyGzip > 0 ? `  (+${kb(size.lazyGzip)} loaded on demand)` : '';
      console.log(
        `${name.padEnd(20)} ${kb(size.minified).padStart(9)} min ${kb(size.gzip).padStart(9)} min+gzip${lazy}`,
      );
    }
  }
}
