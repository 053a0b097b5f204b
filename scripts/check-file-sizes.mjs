#!/usr/bin/env node
/**
 * House rule (docs/design.md, "Files over 300 lines and why"): a source file stays under 300
 * lines, a file a job, unless that table names it with the reason. This check keeps the table
 * true both ways, so it cannot drift as files grow and shrink:
 *   - a source file over 300 lines that the table does not name fails the check;
 *   - a file the table names that no longer exists, or is no longer over 300 lines, fails too.
 * Tests, migrations (one change each, never edited) and declaration files are not held to it.
 * Run by CI's lint step: `pnpm check:sizes`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const LIMIT = 300;
const DESIGN = 'docs/design.md';
const SECTION = '## Files over 300 lines and why';

const isSource = (path) =>
  /\.(ts|tsx|mts|js|mjs|cjs)$/.test(path) &&
  !/\.d\.ts$/.test(path) &&
  !/(^|\/)(test|tests|__tests__)\//.test(path) &&
  !/\.(test|spec)\.[a-z]+$/.test(path) &&
  !/(^|\/)migrations\//.test(path);

/** Lines as `wc -l` counts them. */
const lineCount = (path) => (readFileSync(join(ROOT, path), 'utf8').match(/\n/g) ?? []).length;

/**
 * The paths the table names: the first cell of each row, in backticks. A bare file name after
 * a path in the same cell (`apps/bench/src/scenarios.ts`, `cached-rows.ts`) is in that path's folder.
 */
function namedInTable() {
  const text = readFileSync(join(ROOT, DESIGN), 'utf8');
  const start = text.indexOf(SECTION);
  if (start < 0) throw new Error(`${DESIGN} has no section "${SECTION}"`);
  const end = text.indexOf('\n## ', start + SECTION.length);
  const named = new Set();
  for (const line of text.slice(start, end < 0 ? undefined : end).split('\n')) {
    if (!line.startsWith('| `')) continue;
    let folder = '';
    for (const [, name] of (line.split('|')[1] ?? '').matchAll(/`([^`]+)`/g)) {
      const path = name.includes('/') ? name : join(folder, name);
      folder = dirname(path);
      named.add(path);
    }
  }
  return named;
}

const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(isSource);
const sizes = new Map(tracked.map((path) => [path, lineCount(path)]));
const named = namedInTable();
const problems = [];
for (const [path, lines] of sizes) {
  if (lines > LIMIT && !named.has(path))
    problems.push(`${path}: ${lines} lines, over ${LIMIT}, and ${DESIGN} does not say why (split it, or add a row)`);
}
for (const path of named) {
  const lines = sizes.get(path);
  if (lines === undefined) problems.push(`${DESIGN} names ${path}, which is not a tracked source file`);
  else if (lines <= LIMIT) problems.push(`${DESIGN} names ${path}, which is ${lines} lines now: drop its row`);
}
if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
console.log(
  `file sizes: ${sizes.size} source files, ${named.size} over ${LIMIT} lines, each with its reason in ${DESIGN}`,
);
