/**
 * What a run reports: the table on stdout, the JSON of `--out`, the targets of the issue
 * with their verdicts, and the results section of BENCH.md (the findings around it are
 * written by hand and kept).
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface Figures {
  rps: number;
  /** ms; null for a raw loop, which has no latency. */
  p50: number | null;
  p99: number | null;
  /** CPU time of the answering server per response, µs (user + system, from /proc). */
  cpuUs?: number | null;
  /** CPU time of PostgreSQL's backends per response, µs (see db-cpu.ts). */
  dbCpuUs?: number | null;
  /** CPU time of the load's own process per response, µs (the bench's writers or HTTP client). */
  clientCpuUs?: number | null;
}

export interface Row {
  name: string;
  service: Figures;
  baseline: Figures | null;
  ratio: number | null;
  note?: string;
}

export interface Verdict {
  target: string;
  measured: string;
  met: boolean;
}

export interface Report {
  machine: {
    cpu: string;
    cores: number;
    memoryGb: number;
    node: string;
    postgres: string;
    os: string;
    loadAverage: number[];
  };
  date: string;
  mode: 'full' | 'quick';
  settings: { connections: number; warmupSeconds: number; seconds: number; rounds: number; catalogues: number[] };
  rows: Row[];
  api: { readyMs: number[]; peakRssMbUnderListLoad: number | null };
  targets: Verdict[];
}

export function row(name: string, service: Figures, baseline: Figures | null, note?: string): Row {
  return {
    name,
    service,
    baseline,
    ratio: baseline && baseline.rps > 0 ? service.rps / baseline.rps : null,
    ...(note ? { note } : {}),
  };
}

const rate = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1));
const ms = (n: number | null) => (n === null ? '–' : `${Number(n.toFixed(1))}`);

function cells(r: Row): string[] {
  return [
    r.name,
    rate(r.service.rps),
    ms(r.service.p50),
    ms(r.service.p99),
    r.baseline ? rate(r.baseline.rps) : '–',
    r.baseline ? ms(r.baseline.p50) : '–',
    r.baseline ? ms(r.baseline.p99) : '–',
    r.ratio === null ? '–' : r.ratio >= 10 ? `${r.ratio.toFixed(1)}×` : `${Math.round(r.ratio * 100)} %`,
    cpu(r.service.cpuUs, r.baseline?.cpuUs),
    cpu(r.service.dbCpuUs, r.baseline?.dbCpuUs),
  ];
}

const cpu = (service: number | null | undefined, baseline: number | null | undefined) =>
  service == null ? '–' : `${Math.round(service)} / ${baseline == null ? '–' : Math.round(baseline)}`;

const HEADER = [
  'endpoint',
  'service req/s',
  'p50 ms',
  'p99 ms',
  'baseline req/s',
  'p50 ms',
  'p99 ms',
  'ratio',
  'CPU µs/req service / baseline',
  'PostgreSQL CPU µs/req service / baseline',
];

export function textTable(rows: Row[]): string {
  const lines = [HEADER, ...rows.map(cells)];
  const widths = HEADER.map((_, i) => Math.max(...lines.map((line) => (line[i] as string).length)));
  return lines
    .map((line) =>
      line.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  '),
    )
    .join('\n');
}

/** One row as it finishes, for the log. */
export function progressLine(r: Row): string {
  const [name, rps, p50, p99, baseRps, baseP50, baseP99, ratio, cpuUs, dbCpuUs] = cells(r);
  const baseline = r.baseline ? ` | baseline ${baseRps} req/s, p50 ${baseP50}, p99 ${baseP99} | ${ratio}` : '';
  return `${name}: ${rps} req/s, p50 ${p50}, p99 ${p99}${baseline} | CPU µs/req ${cpuUs} | PostgreSQL ${dbCpuUs}${r.note ? ` (${r.note})` : ''}`;
}

function markdownTable(header: string[], body: string[][]): string {
  const align = header.map((_, i) => (i === 0 ? '---' : '---:'));
  return [header, align, ...body].map((line) => `| ${line.join(' | ')} |`).join('\n');
}

export function verdictLines(verdicts: Verdict[]): string {
  return verdicts.map((v) => `${v.met ? 'met   ' : 'MISSED'}  ${v.target}: ${v.measured}`).join('\n');
}

function resultsMarkdown(report: Report): string {
  const { machine, settings } = report;
  const notes = report.rows.filter((r) => r.note).map((r) => `- ${r.name}: ${r.note}`);
  return [
    `Run of ${report.date} (${report.mode}): ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB,`,
    `Node ${machine.node}, PostgreSQL ${machine.postgres}. ${settings.connections} connections, warm-up`,
    `${settings.warmupSeconds} s, ${settings.rounds} rounds of ${settings.seconds} s per side, medians of rounds.`,
    `Load average (1 min) at start and end: ${machine.loadAverage.join(' and ')}.`,
    '',
    markdownTable(HEADER, report.rows.map(cells)),
    ...(notes.length ? ['', ...notes] : []),
    '',
    `API start to ready: ${report.api.readyMs.map((v) => `${Math.round(v)} ms`).join(', ')}. ` +
      `Peak resident memory under the list load: ${report.api.peakRssMbUnderListLoad?.toFixed(0) ?? '–'} MB.`,
    '',
    markdownTable(
      ['target', 'measured', 'verdict'],
      report.targets.map((v) => [v.target, v.measured, v.met ? 'met' : '**missed**']),
    ),
  ].join('\n');
}

const BEGIN = '<!-- bench:results:begin -->';
const END = '<!-- bench:results:end -->';

/** Replaces the results section of BENCH.md, keeping everything around it. */
export async function updateBenchMarkdown(path: string, report: Report): Promise<void> {
  const section = `${BEGIN}\n${resultsMarkdown(report)}\n${END}`;
  const current = existsSync(path) ? await readFile(path, 'utf8') : `# Benchmark\n\n${BEGIN}\n${END}\n`;
  const start = current.indexOf(BEGIN);
  const end = current.indexOf(END);
  const next =
    start >= 0 && end > start
      ? `${current.slice(0, start)}${section}${current.slice(end + END.length)}`
      : `${current.trimEnd()}\n\n${section}\n`;
  await writeFile(path, next);
}

export async function writeJson(path: string, report: Report): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(report, null, 2)}\n`);
}
