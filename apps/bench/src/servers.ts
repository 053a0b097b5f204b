/**
 * The two servers under load, each a child process of its own: the API exactly as production
 * runs it (its built `dist/main.js`, NODE_ENV=production, logs at warn) and the bare baseline.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@signal/test-support';

export interface ServerProcess {
  name: string;
  url: string;
  pid: number;
  /** From spawn to the first 200 of GET /ready. */
  readyMs: number;
  /** Resident set size now, in MiB (Linux /proc). */
  rssMb(): Promise<number | null>;
  /** CPU time used so far (user + system), in ms (Linux /proc). */
  cpuMs(): Promise<number | null>;
  stop(): Promise<void>;
}

/** What every group of rows on a database of its own is handed by main.ts. */
export interface RowRun {
  /** The API as the other rows run it, on a database URL. */
  spec: (databaseUrl: string) => ServerSpec;
  /** Whether a row's key is among those asked for (`--only`). */
  wanted: (key: string) => boolean;
  log: (line: string) => void;
}

export interface ServerSpec {
  name: string;
  script: string;
  env: Record<string, string>;
  /** Extra node flags, e.g. --cpu-prof. */
  nodeArgs?: string[];
  /** A command node runs under, e.g. valgrind and its flags (instructions.ts). */
  launcher?: string[];
  /** How long the server may take to answer its first 200 of GET /ready (default 60 s). */
  readyTimeoutMs?: number;
}

/** The API's production entry point, found through the package's exports map. */
export const API_MAIN = join(dirname(fileURLToPath(import.meta.resolve('@signal/api'))), 'main.js');
export const BASELINE_MAIN = join(dirname(fileURLToPath(import.meta.url)), 'baseline.js');
/** The bare node:http floor (fixed bodies), see bare-http.ts. */
export const BARE_HTTP_MAIN = join(dirname(fileURLToPath(import.meta.url)), 'bare-http.js');

const READY_TIMEOUT_MS = 60_000;
/** The address every server listens on, passed to it as HOST. */
export const LISTEN_HOST = '127.0.0.1';

// Servers still running when the bench exits, however it exits (a failed start, a parity
// mismatch): none may outlive it, holding a port and a database.
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
/** USER_HZ is 100 on every Linux build that matters here. */
const MS_PER_TICK = 10;

function prefixOutput(child: ChildProcess, name: string): void {
  for (const stream of [child.stdout, child.stderr]) {
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) if (line.trim()) process.stderr.write(`[${name}] ${line}\n`);
    });
  }
}

export async function startServer(spec: ServerSpec): Promise<ServerProcess> {
  const port = await freePort();
  const url = `http://${LISTEN_HOST}:${port}`;
  const started = performance.now();
  const readyTimeoutMs = spec.readyTimeoutMs ?? READY_TIMEOUT_MS;
  const [command, ...launcherArgs] = [...(spec.launcher ?? []), process.execPath];
  const child = spawn(command as string, [...launcherArgs, ...(spec.nodeArgs ?? []), spec.script], {
    env: { ...process.env, ...spec.env, PORT: String(port), HOST: LISTEN_HOST },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  prefixOutput(child, spec.name);
  running.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );

  let readyMs: number | undefined;
  while (readyMs === undefined) {
    if (child.exitCode !== null) throw new Error(`${spec.name} exited with code ${child.exitCode} before it was ready`);
    if (performance.now() - started > readyTimeoutMs) {
      child.kill('SIGKILL');
      throw new Error(`${spec.name} was not ready within ${readyTimeoutMs / 1000} s`);
    }
    try {
      const res = await fetch(`${url}/ready`);
      if (res.status === 200) readyMs = performance.now() - started;
      await res.arrayBuffer();
    } catch {
      // Not listening yet.
    }
    if (readyMs === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  const pid = child.pid as number;
  return {
    name: spec.name,
    url,
    pid,
    readyMs,
    async rssMb() {
      try {
        const status = await readFile(`/proc/${pid}/status`, 'utf8');
        const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
        return kb ? Number(kb) / 1024 : null;
      } catch {
        return null;
      }
    },
    cpuMs: () => processCpuMs(pid),
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** CPU time (user + system) a process has used so far, ms; null when it is gone (Linux /proc). */
export async function processCpuMs(pid: number): Promise<number | null> {
  try {
    // Fields 14 and 15 of /proc/<pid>/stat, after the parenthesised command name; in ticks.
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
  } catch {
    return null;
  }
}
