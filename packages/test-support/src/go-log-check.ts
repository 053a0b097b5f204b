/**
 * The independent check of a served log (issue 38): a small Go program (go/logcheck) on Go's own
 * golang.org/x/mod/sumdb/tlog and sumdb/note, from Debian's golang-golang-x-mod-dev, built offline
 * (GOPROXY=off, a `replace` to the packaged source) once per machine and source version.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MissingToolError } from './local-servers.js';

const sourceDir = fileURLToPath(new URL('../go/logcheck/', import.meta.url));
const goModSource = '/usr/share/gocode/src/golang.org/x/mod';

export interface GoLogCheckOptions {
  /** Inclusion proofs to fetch from `/log/proof/inclusion` and check. */
  inclusion?: { index: number; size: number }[];
  /** Consistency proofs to fetch from `/log/proof/consistency` and check. */
  consistency?: { from: number; to: number }[];
}

/** What the Go program checked. */
export interface GoLogCheckSummary {
  origin: string;
  size: number;
  rootHash: string;
  tilesFetched: number;
  entries: number;
  inclusionProofs: number;
  consistencyProofs: number;
}

/** The Go program found the log wrong; `message` is its reason. */
export class GoLogCheckError extends Error {
  override readonly name = 'GoLogCheckError';
}

const goEnv = () => ({
  ...process.env,
  GOPROXY: 'off',
  GOFLAGS: '-mod=mod',
  GOWORK: 'off',
  GOTOOLCHAIN: 'local',
});

function runFile(file: string, args: string[], options: { cwd?: string; timeout: number }) {
  return new Promise<{ stdout: string; stderr: string; code: number }>((resolve, reject) => {
    execFile(file, args, { ...options, env: goEnv(), maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') reject(error);
      else resolve({ stdout, stderr, code: error ? Number(error.code) : 0 });
    });
  });
}

let built: Promise<string> | undefined;

/** Builds go/logcheck (cached by its source's hash) and returns the binary's path. */
export function buildGoLogCheck(): Promise<string> {
  built ??= (async () => {
    if (!existsSync(goModSource)) {
      throw new MissingToolError(
        `${goModSource} is missing: apt-get install golang-go golang-golang-x-mod-dev (the Go log check needs them)`,
      );
    }
    const hash = createHash('sha256');
    for (const file of ['go.mod', 'main.go']) hash.update(await readFile(join(sourceDir, file)));
    const dir = join(tmpdir(), `signal-logcheck-${hash.digest('hex').slice(0, 16)}`);
    const binary = join(dir, 'logcheck');
    if (existsSync(binary)) return binary;
    await mkdir(dir, { recursive: true });
    const partial = `${binary}.${process.pid}.tmp`;
    const result = await runFile('go', ['build', '-o', partial, '.'], { cwd: sourceDir, timeout: 180_000 }).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT')
          throw new MissingToolError('go is not installed: apt-get install golang-go golang-golang-x-mod-dev');
        throw error;
      },
    );
    if (result.code !== 0) throw new Error(`building go/logcheck failed: ${result.stderr}`);
    // Atomic, so parallel test files never run a half-written binary.
    await rename(partial, binary);
    return binary;
  })();
  built.catch(() => {
    built = undefined;
  });
  return built;
}

/**
 * Verifies the log served at `baseUrl` with Go's sumdb/tlog and sumdb/note: the checkpoint opened
 * with `verifierKey`, the tree hash from the tiles, every entry bundle's entries proved and checked,
 * and the JSON proofs asked for. Resolves with the summary; rejects with GoLogCheckError.
 */
export async function verifyLogWithGo(
  baseUrl: string,
  verifierKey: string,
  options: GoLogCheckOptions = {},
): Promise<GoLogCheckSummary> {
  const binary = await buildGoLogCheck();
  const args = ['-url', baseUrl, '-key', verifierKey];
  if (options.inclusion?.length)
    args.push('-inclusion', options.inclusion.map((p) => `${p.index}:${p.size}`).join(','));
  if (options.consistency?.length)
    args.push('-consistency', options.consistency.map((p) => `${p.from}:${p.to}`).join(','));
  const { stdout, stderr, code } = await runFile(binary, args, { timeout: 120_000 });
  if (code !== 0) throw new GoLogCheckError(stderr.trim() || `logcheck exited with ${code}`);
  return JSON.parse(stdout) as GoLogCheckSummary;
}
