/**
 * `@signal/sdk/log` re-exports @signal/core/log, which is private: tsup bundles its code, and this
 * copies its declarations into dist/core-log/ and points dist/log.d.ts there, so the published
 * declarations stand alone (test/package.test.ts checks they import only each other and the peers).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const from = join(root, '..', 'core', 'dist', 'log');
const to = join(root, 'dist', 'core-log');
mkdirSync(to, { recursive: true });
for (const file of readdirSync(from).filter((name) => name.endsWith('.d.ts'))) {
  const text = readFileSync(join(from, file), 'utf8').replace(/\n\/\/# sourceMappingURL=.*$/m, '');
  if (/from ['"](?!\.\/)/.test(text)) throw new Error(`${file} imports outside @signal/core/log`);
  writeFileSync(join(to, file), text);
}
const entry = join(root, 'dist', 'log.d.ts');
const rewritten = readFileSync(entry, 'utf8').replaceAll("'@signal/core/log'", "'./core-log/index.js'");
if (/from ['"]@signal\/core/.test(rewritten)) throw new Error('dist/log.d.ts still names @signal/core');
writeFileSync(entry, rewritten);
