/**
 * DATA_DIR is private: the built server creates it 0700 with every file in it 0600 (the
 * generated signing key and PGlite's files, which PGlite itself makes 0666), and refuses to
 * start, with a clear message and exit code 1, on a directory its group or others may write,
 * and likewise on a signing key file its group or others may read (as ssh refuses such a key).
 */
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN, signingKeyPem, spawnApi } from '../process.js';

/** Every path under `dir` with its permission bits, directories marked with a trailing slash. */
async function modes(dir: string): Promise<Map<string, number>> {
  const found = new Map<string, number>([[`${dir}/`, (await stat(dir)).mode & 0o777]]);
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    found.set(entry.isDirectory() ? `${path}/` : path, (await stat(path)).mode & 0o777);
  }
  return found;
}

function expectPrivate(found: Map<string, number>) {
  const wrong = [...found].filter(([path, mode]) => mode !== (path.endsWith('/') ? 0o700 : 0o600));
  expect(wrong.map(([path, mode]) => `${path} ${mode.toString(8)}`)).toEqual([]);
}

/** The built server started on `dataDir`, expected to stop at once: its exit status and output. */
function startOn(dataDir: string) {
  return spawnSync(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn', SEED_PROVIDERS: '0' },
    encoding: 'utf8',
    timeout: 20_000,
  });
}

describe('DATA_DIR permissions (built server, PGlite)', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'signal-datadir-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('creates DATA_DIR 0700 and keeps every file in it 0600, after start and after stop', async () => {
    const dataDir = join(root, 'fresh', 'data');
    // A fresh PGlite runs initdb first: seconds, more on a loaded machine.
    const api = await spawnApi({ DATA_DIR: dataDir, SEED_PROVIDERS: '5' }, { startTimeoutMs: 90_000 });
    try {
      const atStart = await modes(dataDir);
      expect(atStart.get(join(dataDir, 'jwt-signing-key.pem'))).toBe(0o600);
      expect([...atStart.keys()].filter((p) => p.includes('/pglite/')).length).toBeGreaterThan(100);
      expectPrivate(atStart);
      expect((await fetch(`${api.url}/providers`)).status).toBe(200);
    } finally {
      expect((await api.terminate()).code).toBe(0);
    }
    expectPrivate(await modes(dataDir));
  }, 120_000);

  it.each([
    ['0777', 'its group and everyone'],
    ['0775', 'its group'],
    ['0703', 'everyone'],
  ])(
    'refuses to start on a DATA_DIR of mode %s (writable by %s): exit 1, a message, nothing written',
    async (mode, who) => {
      const dataDir = join(root, `open-${mode}`);
      await mkdir(dataDir);
      await chmod(dataDir, Number.parseInt(mode, 8));
      const result = startOn(dataDir);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`DATA_DIR ${dataDir} is writable by ${who}`);
      expect(result.stderr).toContain(`chmod 700 ${dataDir}`);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(await readdir(dataDir)).toEqual([]);
    },
  );

  it.each([
    ['0644', 'its group and everyone', true],
    ['0640', 'its group', false],
    ['0604', 'everyone', false],
  ])(
    'refuses to start with a signing key file of mode %s (readable by %s): exit 1, how to fix it, nothing written',
    async (mode, who, fixAndStart) => {
      // The attack: a key placed by hand with a loose mode in a directory others may enter.
      const dataDir = join(root, `key-${mode}`);
      await mkdir(dataDir);
      await chmod(dataDir, 0o755);
      const keyFile = join(dataDir, 'jwt-signing-key.pem');
      await writeFile(keyFile, signingKeyPem());
      await chmod(keyFile, Number.parseInt(mode, 8));
      const result = startOn(dataDir);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`The signing key ${keyFile} is open to ${who} (mode ${mode})`);
      expect(result.stderr).toContain(`chmod 600 ${keyFile}`);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      // Refused before the database was opened: the key is all there is.
      expect(await readdir(dataDir)).toEqual(['jwt-signing-key.pem']);
      // Fixed as the message says, it starts (once: a fresh PGlite takes seconds).
      if (!fixAndStart) return;
      await chmod(keyFile, 0o600);
      const api = await spawnApi({ DATA_DIR: dataDir, SEED_PROVIDERS: '0' }, { startTimeoutMs: 90_000 });
      try {
        expect((await fetch(`${api.url}/health`)).status).toBe(200);
      } finally {
        expect((await api.terminate()).code).toBe(0);
      }
    },
    120_000,
  );
});
