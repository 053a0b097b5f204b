/**
 * `@signal/sdk/log` re-exports @signal/core/log and @signal/core/audit, which are private: tsup
 * bundles their code, and this copies their declarations into dist/core-log/ and
 * dist/core-audit/ (with the one statements declaration the audit's name,
 * dist/core-statements/authorization.d.ts) and points dist/log.d.ts there, so the published
 * declarations stand alone (test/package.test.ts checks they import only each other and the peers).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const core = join(root, '..', 'core', 'dist');
const dist = join(root, 'dist');

/** Copies `files` of core's dist/`from` to dist/`to`, rewriting imports with `rewrite`; any other import fails. */
function vendor(from, to, files, rewrite, allowed) {
  mkdirSync(join(dist, to), { recursive: true });
  for (const file of files) {
    let text = readFileSync(join(core, from, file), 'utf8').replace(/\n\/\/# sourceMappingURL=.*$/m, '');
    for (const [a, b] of rewrite) text = text.replaceAll(a, b);
    for (const match of text.matchAll(/from ['"]([^'"]+)['"]/g)) {
      if (!allowed.some((prefix) => match[1].startsWith(prefix))) throw new Error(`${from}/${file} imports ${match[1]}`);
    }
    writeFileSync(join(dist, to, file), text);
  }
}

const declarations = (dir) => readdirSync(join(core, dir)).filter((name) => name.endsWith('.d.ts'));
vendor('log', 'core-log', declarations('log'), [], ['./']);
vendor('statements', 'core-statements', ['authorization.d.ts'], [], ['./']);
vendor(
  'audit',
  'core-audit',
  declarations('audit'),
  [
    ["'../log/", "'../core-log/"],
    ["'../statements/authorization.js'", "'../core-statements/authorization.js'"],
  ],
  ['./', '../core-log/', '../core-statements/'],
);

const entry = join(dist, 'log.d.ts');
const rewritten = readFileSync(entry, 'utf8')
  .replaceAll("'@signal/core/log'", "'./core-log/index.js'")
  .replaceAll("'@signal/core/audit'", "'./core-audit/index.js'");
if (/from ['"]@signal\/core/.test(rewritten)) throw new Error('dist/log.d.ts still names @signal/core');
writeFileSync(entry, rewritten);
