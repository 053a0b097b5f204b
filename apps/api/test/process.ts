/**
 * The built server as a child process (`node dist/main.js`), for what an in-process server
 * cannot show: kill -9, SIGTERM and exit codes, and several processes on one database.
 * Loopback only; every wait is bounded.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, serviceDatabaseUrl, TEST_SERVICE_ENV } from '@signal/test-support';

export const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

export interface ApiProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Resolves with how the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything it wrote, for failure messages. */
  output(): string;
  /** kill -9, and wait until it is gone. */
  crash(): Promise<void>;
  /** SIGTERM, and wait for the exit. */
  terminate(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A PKCS#8 Ed25519 key, for processes that must share one signing key. */
export function signingKeyPem(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/**
 * Starts `node dist/main.js` with `env` (plus a free PORT and a private DATA_DIR unless given)
 * and waits until /health answers. Stops it with SIGKILL if it is still running when the
 * returned `dispose` runs. `descriptorLimit` starts it as `ulimit -n <limit>; exec node …` does.
 */
export async function spawnApi(
  env: Record<string, string>,
  options: { startTimeoutMs?: number; descriptorLimit?: number } = {},
) {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const dataDir = env.DATA_DIR ?? (await mkdtemp(join(tmpdir(), 'signal-api-proc-')));
  const [command, args] =
    options.descriptorLimit === undefined
      ? [process.execPath, [MAIN]]
      : ['/bin/sh', ['-c', 'ulimit -n "$0" && exec "$@"', String(options.descriptorLimit), process.execPath, MAIN]];
  const child = spawn(command, args, {
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      ...TEST_SERVICE_ENV,
      LOG_LEVEL: 'warn',
      ...env,
      ...(env.DATABASE_URL ? { DATABASE_URL: serviceDatabaseUrl(env.DATABASE_URL) } : {}),
      PORT: String(port),
      DATA_DIR: dataDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  // Keep the pipes drained: a full pipe would block the child's logging.
  child.stdout?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let gone = false;
  void exited.then(() => {
    gone = true;
    if (!env.DATA_DIR) void rm(dataDir, { recursive: true, force: true });
  });

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  for (;;) {
    if (gone) throw new Error(`server exited during start:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not answer /health in time:\n${output}`);
    }
    try {
      const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) });
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  const api: ApiProcess = {
    url,
    port,
    child,
    exited,
    output: () => output,
    async crash() {
      if (!gone) child.kill('SIGKILL');
      await exited;
    },
    async terminate() {
      if (!gone) child.kill('SIGTERM');
      return exited;
    },
  };
  return api;
}
