/**
 * Where a callgrind count went, by JavaScript function: callgrind names the code V8 compiled at
 * run time only by its address, so this joins a dump with the perf map V8 writes when the server
 * runs with `--perf-basic-prof` (`pnpm bench -- --instructions --perf-map`: /tmp/perf-<pid>.map,
 * one "start size name" line per compiled function). Self instructions per request, by function
 * and by package, for one server's window: how issue 29's per-request gaps were found.
 *
 *   node dist/callgrind-js.js <callgrind dump (main thread)> <requests in the window> [top N]
 */
import { readFileSync } from 'node:fs';

interface Range {
  start: bigint;
  end: bigint;
  name: string;
}

function perfMap(pid: string): Range[] {
  const ranges: Range[] = [];
  for (const line of readFileSync(`/tmp/perf-${pid}.map`, 'utf8').split('\n')) {
    const match = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (!match) continue;
    const start = BigInt(`0x${match[1]}`);
    ranges.push({ start, end: start + BigInt(`0x${match[2]}`), name: match[3] as string });
  }
  // A function recompiled at another tier gets a new range; addresses are not reused while the
  // code is alive, so a sorted list and a binary search find the one that holds an address.
  return ranges.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
}

function lookup(ranges: Range[], address: bigint): string | undefined {
  let lo = 0;
  let hi = ranges.length - 1;
  let found: Range | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const range = ranges[mid] as Range;
    if (range.start <= address) {
      found = range;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found && address < found.end ? found.name : undefined;
}

/** Self cost (Ir) of each function named in a callgrind file (name compression resolved). */
function selfCosts(text: string): { pid: string; costs: Map<string, number> } {
  const names = new Map<string, string>();
  const costs = new Map<string, number>();
  let pid = '';
  let current = '';
  let skipNext = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('pid: ')) pid = line.slice(5).trim();
    else if (line.startsWith('fn=')) {
      const match = /^fn=\((\d+)\)(?: (.*))?$/.exec(line);
      if (match) {
        if (match[2] !== undefined) names.set(match[1] as string, match[2]);
        current = names.get(match[1] as string) ?? `(${match[1]})`;
      } else current = line.slice(3);
    } else if (line.startsWith('calls=')) skipNext = true;
    else if (/^[0-9+\-*]/.test(line)) {
      // The line after calls= is the inclusive cost of that call: not this function's own.
      if (skipNext) {
        skipNext = false;
        continue;
      }
      const ir = Number(line.split(' ')[1] ?? 0);
      costs.set(current, (costs.get(current) ?? 0) + ir);
    } else if (/^c(fn|fi|fl|ob)=/.test(line)) {
      const match = /^cfn=\((\d+)\) (.*)$/.exec(line);
      if (match) names.set(match[1] as string, match[2] as string);
    }
  }
  return { pid, costs };
}

/** The package or file a V8 name points at ("JS:*fn file:///…/node_modules/x/…:12:3"). */
function origin(name: string): string {
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(name);
  if (pkg) return pkg[1] as string;
  const ours = /\/(apps|packages)\/([^/]+)\//.exec(name);
  if (ours) return `${ours[1]}/${ours[2]}`;
  if (/node:|internal\//.test(name)) return 'node (JS)';
  if (name.startsWith('JS:') || name.startsWith('LazyCompile') || name.startsWith('Function')) return 'other JS';
  if (
    name.startsWith('Builtin:') ||
    name.startsWith('Bytecode') ||
    name.startsWith('Stub') ||
    name.startsWith('Handler')
  )
    return 'V8 builtins';
  return 'native (node, V8, libc, OpenSSL)';
}

export function attribute(file: string, requests: number) {
  const { pid, costs } = selfCosts(readFileSync(file, 'utf8'));
  const ranges = perfMap(pid);
  const byFunction = new Map<string, number>();
  for (const [name, ir] of costs) {
    const address = /^0x([0-9a-f]+)$/.exec(name);
    const resolved = address ? (lookup(ranges, BigInt(`0x${address[1]}`)) ?? 'JIT code not in the map') : name;
    byFunction.set(resolved, (byFunction.get(resolved) ?? 0) + ir / requests);
  }
  const byOrigin = new Map<string, number>();
  for (const [name, ir] of byFunction) byOrigin.set(origin(name), (byOrigin.get(origin(name)) ?? 0) + ir);
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]);
  return { byFunction: sorted(byFunction), byOrigin: sorted(byOrigin) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, requests, top = '40'] = process.argv.slice(2);
  if (!file || !requests) throw new Error('usage: callgrind-js <dump> <requests> [top]');
  const { byFunction, byOrigin } = attribute(file, Number(requests));
  const k = (n: number) => `${(n / 1000).toFixed(1)}k`.padStart(8);
  console.log('self instructions per request, by origin:');
  for (const [name, ir] of byOrigin) console.log(`${k(ir)}  ${name}`);
  console.log(`\nby function (top ${top}):`);
  for (const [name, ir] of byFunction.slice(0, Number(top))) console.log(`${k(ir)}  ${name.slice(0, 150)}`);
}
