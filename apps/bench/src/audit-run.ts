/**
 * The audit row alone (audit-rows.ts, issue 40), without the rest of the bench:
 *
 *   pnpm build && node apps/bench/dist/audit-run.js [--size 1000000] [--statements 10000] [--cpu-prof <dir>]
 *
 * Prints the bin's wall and CPU time, the load average and its split; `--cpu-prof` writes the
 * bin's V8 CPU profile into <dir> (`node apps/bench/dist/profile.js <file>` reads it).
 */
import { parseArgs } from 'node:util';
import { AUDIT_FULL, AUDIT_TARGET_SECONDS, runAudit, splitLine } from './audit-rows.js';

const { values } = parseArgs({
  options: { size: { type: 'string' }, statements: { type: 'string' }, 'cpu-prof': { type: 'string' } },
});
const profile = values['cpu-prof'];
const f = await runAudit({
  size: Number(values.size ?? AUDIT_FULL.size),
  statements: Number(values.statements ?? AUDIT_FULL.statements),
  nodeArgs: profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [],
  log: (line) => console.log(line),
});
if (f.code !== 0) console.log(`signal-audit exited ${f.code}:`, f.failures.slice(0, 5));
console.log(
  `signal-audit: exit ${f.code} in ${(f.wallMs / 1000).toFixed(1)} s wall, ${(f.cpuMs / 1000).toFixed(1)} s CPU (target ≤ ${AUDIT_TARGET_SECONDS} s at 1M entries); ${f.verified.toLocaleString('en')} statements verified; load ${f.load.map((v) => v.toFixed(2)).join(' → ')}`,
);
console.log(`  ${splitLine(f)}`);
for (const [step, ms] of Object.entries(f.timings)) console.log(`  ${step.padEnd(14)} ${(ms / 1000).toFixed(2)} s`);
process.exitCode = f.code === 0 ? 0 : 1;
