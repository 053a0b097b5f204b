/**
 * A readable digest of a V8 .cpuprofile (from `--profile`, which starts the API with
 * `node --cpu-prof`): where the busy time went, by package and by function, self and
 * inclusive. Also runs alone: `node dist/profile.js <file.cpuprofile>`.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const IDLE = new Set(['(idle)', '(program)']);

/** Where a frame's code lives: an npm package, one of ours, Node itself, or V8. */
function origin(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  const ours = /\/(apps|packages)\/([^/]+)\//.exec(url);
  if (ours) return `${ours[1]}/${ours[2]}`;
  if (url.startsWith('node:')) return 'node';
  return url;
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.split('/').pop() ?? '';
  return `${functionName || '(anonymous)'} ${file ? `${file}:${lineNumber + 1}` : ''} [${origin(url, functionName)}]`;
}

function top(map: Map<string, number>, total: number, count: number, requests: number): string[] {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(
      ([key, us]) =>
        `${((100 * us) / total).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(6)} ms` +
        `${requests > 0 ? `  ${(us / requests).toFixed(1).padStart(6)} µs/req` : ''}  ${key}`,
    );
}

/** `requests`: how many requests the process served while profiled, for per-request figures. */
export async function summariseProfile(path: string, requests = 0, count = 25): Promise<string> {
  const profile = JSON.parse(await readFile(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });

  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  let busy = 0;
  const selfByFunction = new Map<string, number>();
  const selfByOrigin = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node || IDLE.has(node.callFrame.functionName)) continue;
    busy += us;
    const key = label(node);
    selfByFunction.set(key, (selfByFunction.get(key) ?? 0) + us);
    const where = origin(node.callFrame.url, node.callFrame.functionName);
    selfByOrigin.set(where, (selfByOrigin.get(where) ?? 0) + us);
    // Inclusive time: credit every distinct function on the stack once.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at);
      if (!frame) break;
      const name = label(frame);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + us);
    }
  }
  return [
    `profile ${path}: ${(busy / 1000).toFixed(0)} ms busy` +
      (requests > 0 ? `, ${requests} requests, ${(busy / requests).toFixed(0)} µs of CPU per request` : ''),
    '',
    'self time by origin:',
    ...top(selfByOrigin, busy, 15, requests),
    '',
    'self time by function:',
    ...top(selfByFunction, busy, count, requests),
    '',
    'inclusive time by function:',
    ...top(inclusive, busy, count, requests),
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const file of process.argv.slice(2)) console.log(await summariseProfile(file));
}
