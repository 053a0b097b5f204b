/**
 * A strict reader of the Prometheus text exposition format (0.0.4), for the metrics tests:
 * every line must be a HELP, a TYPE or a sample of a declared family, label values must be
 * escaped properly, histograms must be cumulative and end at +Inf with their _count.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = `([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\\\\n]|\\\\[\\\\"n])*)"`;
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL})(?:,${LABEL})*,?)?\\})? (\\S+)(?: (-?\\d+))?$`);
// Prometheus reads values with Go's ParseFloat, which takes NaN and Inf in any case (prom-client
// writes `Nan` for a mean of no samples).
const VALUE = /^(?:[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|[+-]?inf|nan)$/i;

function parseValue(text: string, line: string): number {
  if (!VALUE.test(text)) throw new Error(`bad sample value in: ${line}`);
  const lower = text.toLowerCase();
  if (lower === '+inf' || lower === 'inf') return Number.POSITIVE_INFINITY;
  if (lower === '-inf') return Number.NEGATIVE_INFINITY;
  if (lower === 'nan') return Number.NaN;
  return Number(text);
}

function unescapeLabel(value: string): string {
  return value.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

/** The family a sample belongs to: histogram and summary samples carry suffixes. */
function familyOf(name: string, families: Map<string, Family>): Family | undefined {
  const direct = families.get(name);
  if (direct) return direct;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  const family = families.get(base);
  return family && (family.type === 'histogram' || family.type === 'summary') ? family : undefined;
}

export function parsePrometheusText(text: string): Map<string, Family> {
  if (!text.endsWith('\n')) throw new Error('exposition must end with a newline');
  const families = new Map<string, Family>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const help = new RegExp(`^# HELP (${NAME}) (.*)$`).exec(line);
    if (help) {
      const [, name = '', doc = ''] = help;
      const family = families.get(name) ?? { name, type: 'untyped', help: '', samples: [] };
      family.help = doc;
      families.set(name, family);
      continue;
    }
    const type = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`).exec(line);
    if (type) {
      const [, name = '', kind = ''] = type;
      const family = families.get(name) ?? { name, type: 'untyped', help: '', samples: [] };
      if (family.samples.length > 0) throw new Error(`TYPE after samples for ${name}`);
      family.type = kind as Family['type'];
      families.set(name, family);
      continue;
    }
    if (line.startsWith('#')) throw new Error(`unexpected comment: ${line}`);
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const name = match[1] as string;
    const family = familyOf(name, families);
    if (!family) throw new Error(`sample of an undeclared family: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key = '', value = ''] of (match[2] ?? '').matchAll(new RegExp(LABEL, 'g'))) {
      if (key in labels) throw new Error(`repeated label ${key}: ${line}`);
      labels[key] = unescapeLabel(value);
    }
    family.samples.push({ name, labels, value: parseValue(match[match.length - 2] as string, line) });
  }
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);
  return families;
}

function checkHistogram(family: Family): void {
  const series = new Map<string, { buckets: [number, number][]; count?: number; sum?: number }>();
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels;
    const key = JSON.stringify(rest);
    const entry = series.get(key) ?? { buckets: [] };
    if (sample.name.endsWith('_bucket')) {
      if (le === undefined) throw new Error(`${family.name}: bucket without le`);
      entry.buckets.push([parseValue(le, le), sample.value]);
    } else if (sample.name.endsWith('_count')) entry.count = sample.value;
    else if (sample.name.endsWith('_sum')) entry.sum = sample.value;
    series.set(key, entry);
  }
  for (const [key, { buckets, count, sum }] of series) {
    if (count === undefined || sum === undefined) throw new Error(`${family.name}${key}: no _count or _sum`);
    for (let i = 1; i < buckets.length; i++) {
      const [le, n] = buckets[i] as [number, number];
      const [previousLe, previousN] = buckets[i - 1] as [number, number];
      if (!(le > previousLe) || n < previousN) throw new Error(`${family.name}${key}: buckets not cumulative`);
    }
    const last = buckets.at(-1);
    if (!last || last[0] !== Number.POSITIVE_INFINITY || last[1] !== count) {
      throw new Error(`${family.name}${key}: the +Inf bucket must equal _count`);
    }
  }
}

/** The value of the one sample of `name` whose labels include `labels`; 0 when there is none. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const family = familyOf(name, families);
  const matches = (family?.samples ?? []).filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (matches.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${matches.length} samples`);
  return matches[0]?.value ?? 0;
}
