#!/usr/bin/env node
/**
 * House rule (docs/design.md, "Docs checked by CI"): a file the README, the docs or a source
 * comment names is a file of the repository, and no documentation link leaves it. A newcomer
 * who follows a reference finds the file; a file moved or deleted without its references fails
 * CI here, naming each stale one with its line.
 *
 * What counts as a file reference:
 *   - in Markdown (every tracked `.md` file): a link or image `[text](target)` whose target is
 *     not a URL, resolved relative to the Markdown file as GitHub does; a target outside the
 *     repository fails too ("leaves the repository"), and so does a `#anchor` that no heading of
 *     the Markdown file it names has (GitHub's anchors: lower case, punctuation dropped);
 *   - in Markdown prose (not fenced code blocks, which hold commands and output) and in the
 *     comments of source files (.ts, .tsx, .mts, .js, .mjs, .cjs) and of .ci/run: a path, in
 *     backticks or not, with at least one `/`, that ends in a known file extension or starts
 *     with one of the house's folders (`apps/`, `packages/`, `docs/`, `http/`, `procedures/`…).
 *     In Markdown, a bare file name in backticks (`harness.ts`) must be the name of some file.
 *     Package specifiers (`@signal/core/nonce`), URLs, absolute paths, routes (`/auth/nonce`),
 *     globs and placeholders (`*`, `<name>`, `{id}`, `…`) are not references.
 * A path is resolved as the house writes them: relative to the file that names it, to the
 * repository's root, to the package a source file is in (its root, `src/` and `test/`), and,
 * from Markdown or a file outside any package, to every package's root, `src/` and `test/`
 * (docs/ writes `http/caching.ts` for apps/api/src/http/caching.ts). A path under `dist/`
 * names the build of its `src/` file (apps/api/dist/main.js is apps/api/src/main.ts). It exists
 * if a tracked (or new, not ignored) file or folder of the repository has that path. Dated lab notes (`LAB-NOTES.md`) are history: they name the
 * files of their day, so only their links are checked; so are migrations, never edited once
 * shipped, whose comments are not read.
 * Run by CI's lint step: `pnpm check:references`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

const EXTENSIONS = 'ts|tsx|mts|cts|js|mjs|cjs|json|md|sql|yaml|yml|sh|png|jpg|svg|html|css|toml|txt';
const FOLDERS = [
  '.ci',
  '.changeset',
  'apps',
  'packages',
  'docs',
  'scripts',
  'src',
  'test',
  'http',
  'procedures',
  'routers',
  'ops',
  'wire',
  'config',
  'openapi',
  'pages',
  'fast-path',
  'events',
  'webhooks',
  'migrations',
  'components',
  'examples',
  'patches',
];
/** Paths that name what the service or the build writes, never a file of the repository. */
const GENERATED = /(^|\/)(\.data|node_modules|coverage|artifacts|\.turbo)\//;
const SOURCE = /\.(ts|tsx|mts|js|mjs|cjs)$/;
/** Migrations are never edited once shipped (one change each), so their comments stay as written. */
const MIGRATION = /(^|\/)migrations\//;

const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\0')
  .filter((path) => path !== '' && existsSync(join(ROOT, path)));
const files = new Set(listed);
const folders = new Set();
for (const path of listed) for (let dir = posix.dirname(path); dir !== '.'; dir = posix.dirname(dir)) folders.add(dir);
const basenames = new Set(listed.map((path) => posix.basename(path)));
const BARE_NAME = /`([A-Za-z][\w.-]*\.(?:ts|tsx|mts|mjs|cjs|md))`/g;
const packageRoots = [...folders].filter((dir) => files.has(`${dir}/package.json`));

const exists = (path) => {
  const clean = path.replace(/\/$/, '');
  if (files.has(clean) || folders.has(clean)) return true;
  // The build of a source file: a .js or .d.ts under dist/ is the .ts (.tsx, .js) under src/.
  const built = clean.match(/^(.*?)(?:^|\/)dist(\/.*)?$/);
  if (built) {
    const [, before, rest = ''] = built;
    const source = `${before ? `${before}/` : ''}src${rest}`.replace(/(\.d)?\.(m?js|ts)$/, '');
    if (
      rest === '' ? folders.has(source) : ['.ts', '.tsx', '.js', '.mts', '.mjs'].some((ext) => files.has(source + ext))
    )
      return true;
  }
  return false;
};

/** The package folder a file is in, or undefined for the root's own files (README, docs/, scripts/). */
const packageOf = (file) =>
  packageRoots.filter((dir) => file.startsWith(`${dir}/`)).sort((a, b) => b.length - a.length)[0];

function basesFor(file) {
  const own = packageOf(file);
  // Prose speaks of the whole repository (BENCH.md names the API's `http/rest.ts`); a comment, of its package.
  const roots = own && !file.endsWith('.md') ? [own] : packageRoots;
  return [posix.dirname(file), '.', ...roots.flatMap((dir) => [dir, `${dir}/src`, `${dir}/test`])];
}

/** The repository path `path` names from `base`, or undefined when it climbs out of the repository. */
function inRepository(base, path) {
  const joined = normalize(join(base, path)).split('\\').join('/');
  return joined === '..' || joined.startsWith('../') ? undefined : joined.replace(/^\.\//, '');
}

const PATH_TOKEN = /(?<![\w@:/.\-$])((?:\.\.?\/)*[\w.-]+(?:\/[\w.-]+)+\/?)(?![\w/])/g;
const KNOWN = new RegExp(String.raw`\.(${EXTENSIONS})$`);

/** Whether a path-like token is meant as a file of the repository. */
function isReference(token) {
  const path = token.replace(/^(\.\.?\/)+/, '');
  if (GENERATED.test(path)) return false;
  // A rate (`events/s`, `ops/s`), not a path.
  if (/\/s$/.test(path)) return false;
  if (KNOWN.test(token.replace(/\/$/, ''))) return true;
  return FOLDERS.some((folder) => path.startsWith(`${folder}/`));
}

function problemsOfToken(file, line, token, problems) {
  const path = token
    .replace(/[.,;:)]+$/, '')
    .replace(/:\d+(:\d+)?$/, '')
    .replace(/#.*$/, '');
  if (!path.includes('/') || !isReference(path)) return;
  const found = basesFor(file).some((base) => {
    const candidate = inRepository(base, path);
    return candidate !== undefined && exists(candidate);
  });
  if (!found) problems.push(`${file}:${line}: names ${path}, which is no file or folder of the repository`);
}

function scanText(file, line, text, problems) {
  for (const [, token] of text.matchAll(PATH_TOKEN)) problemsOfToken(file, line, token, problems);
}

function scanMarkdown(file, text, problems) {
  const history = posix.basename(file) === 'LAB-NOTES.md';
  let fenced = false;
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    if (/^\s*(```|~~~)/.test(raw)) {
      fenced = !fenced;
      return;
    }
    if (fenced) return;
    for (const [, target] of raw.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [pathPart, anchor] = target.split('#');
      const path = decodeURIComponent(pathPart.replace(/\?.*$/, ''));
      const resolved =
        path === '' ? file : path.startsWith('/') ? path.slice(1) : inRepository(posix.dirname(file), path);
      if (resolved === undefined) problems.push(`${file}:${line}: links to ${target}, outside the repository`);
      else if (resolved !== '' && !exists(resolved))
        problems.push(`${file}:${line}: links to ${target}, which is no file or folder of the repository`);
      else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(decodeURIComponent(anchor)))
        problems.push(`${file}:${line}: links to ${target}, and ${resolved} has no heading with that anchor`);
    }
    // Prose and inline code, without the links just checked (their text is the target's short name).
    if (history) return;
    const prose = raw.replace(/\[[^\]]*\]\([^)]*\)/g, '');
    scanText(file, line, prose, problems);
    // A bare file name in backticks (`harness.ts`) names a file somewhere in the repository.
    for (const [, name] of prose.matchAll(BARE_NAME))
      if (!basenames.has(name))
        problems.push(`${file}:${line}: names ${name}, and no file of the repository has that name`);
  });
}

const anchorCache = new Map();
/** The anchors GitHub gives a Markdown file's headings (lower case, punctuation dropped, spaces to `-`). */
function anchorsOf(file) {
  if (anchorCache.has(file)) return anchorCache.get(file);
  const anchors = new Set();
  const seen = new Map();
  let fenced = false;
  for (const raw of readFileSync(join(ROOT, file), 'utf8').split('\n')) {
    if (/^\s*(```|~~~)/.test(raw)) fenced = !fenced;
    const heading = !fenced && raw.match(/^#{1,6}\s+(.*?)\s*#*\s*$/);
    if (!heading) continue;
    const text = heading[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  anchorCache.set(file, anchors);
  return anchors;
}

/** The comments of a JavaScript or TypeScript source, each with the line it starts on. */
function* commentsOf(source) {
  let i = 0;
  let line = 1;
  let previous = '';
  const n = source.length;
  while (i < n) {
    const c = source[i];
    if (c === '\n') {
      line++;
      i++;
      continue;
    }
    if (c === '/' && source[i + 1] === '/') {
      const end = source.indexOf('\n', i);
      yield { line, text: source.slice(i + 2, end < 0 ? n : end) };
      i = end < 0 ? n : end;
      continue;
    }
    if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      const text = source.slice(i + 2, end < 0 ? n : end);
      yield { line, text };
      line += (text.match(/\n/g) ?? []).length;
      i = end < 0 ? n : end + 2;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      i++;
      while (i < n && source[i] !== c) {
        if (source[i] === '\\') i++;
        else if (source[i] === '\n') {
          line++;
          if (c !== '`') break;
        }
        i++;
      }
      i++;
      previous = c;
      continue;
    }
    // A regular expression literal where an operand may start (after an operator or a keyword).
    if (c === '/' && (previous === '' || /[(,=:[!&|?{};+\-*%<>~^]/.test(previous))) {
      let inClass = false;
      i++;
      while (i < n && source[i] !== '\n' && (inClass || source[i] !== '/')) {
        if (source[i] === '\\') i++;
        else if (source[i] === '[') inClass = true;
        else if (source[i] === ']') inClass = false;
        i++;
      }
      i++;
      previous = 'a';
      continue;
    }
    if (!/\s/.test(c)) previous = /[\w$)\]]/.test(c) ? 'a' : c;
    i++;
  }
}

const problems = [];
let scanned = 0;
for (const file of listed) {
  const text = () => readFileSync(join(ROOT, file), 'utf8');
  if (file.endsWith('.md')) scanMarkdown(file, text(), problems);
  else if (SOURCE.test(file) && !file.endsWith('.d.ts') && !MIGRATION.test(file))
    for (const comment of commentsOf(text())) {
      comment.text.split('\n').forEach((part, offset) => {
        scanText(file, comment.line + offset, part, problems);
      });
    }
  else if (file === '.ci/run')
    text()
      .split('\n')
      .forEach((raw, index) => {
        const hash = raw.indexOf('#');
        if (hash >= 0 && /^\s*#/.test(raw)) scanText(file, index + 1, raw.slice(hash + 1), problems);
      });
  else continue;
  scanned++;
}
if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  console.error(`${problems.length} stale file reference(s): fix the path, or say it without naming a file`);
  process.exit(1);
}
console.log(`file references: ${scanned} files scanned (Markdown, source comments, .ci/run), every named file exists`);
