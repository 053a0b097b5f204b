/**
 * Writes the `--only` keys of BENCH.md (between its `bench-keys` markers) from ROW_KEY_GROUPS
 * (row-keys.ts), so the list cannot drift from the rows the bench runs. `--check` writes
 * nothing and fails when the list is stale (CI). `pnpm --filter @signal/bench keys-doc`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ROW_KEY_GROUPS } from './row-keys.js';

const BENCH_MD = fileURLToPath(new URL('../BENCH.md', import.meta.url));
const BEGIN = '<!-- bench-keys:begin (generated from apps/bench/src/row-keys.ts) -->';
const END = '<!-- bench-keys:end -->';

function keysBlock(): string {
  return ROW_KEY_GROUPS.map(
    ({ title, file, keys }) => `- ${title} (${file}): ${keys.map((key) => `\`${key}\``).join(', ')}`,
  ).join('\n');
}

const current = readFileSync(BENCH_MD, 'utf8');
const start = current.indexOf(BEGIN);
const end = current.indexOf(END);
if (start < 0 || end < start) throw new Error(`apps/bench/BENCH.md: the markers ${BEGIN} … ${END} are missing`);
const next = `${current.slice(0, start)}${BEGIN}\n${keysBlock()}\n${current.slice(end)}`;
if (next === current) process.exit(0);
if (process.argv.includes('--check')) {
  console.error(
    'apps/bench/BENCH.md: the --only keys are stale: run `pnpm --filter @signal/bench keys-doc` and commit it',
  );
  process.exit(1);
}
writeFileSync(BENCH_MD, next);
console.log('wrote apps/bench/BENCH.md');
