/**
 * The tarball `pnpm pack` makes of this package, which is what `pnpm release` publishes: what is
 * in it, and a package.json that npm, yarn or a pnpm outside this workspace can install (no
 * `workspace:` or `catalog:` specifier left), with its licence and where it comes from.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(packageDir, '..', '..');

describe('the packed tarball', () => {
  let scratch: string;
  let files: string[];
  let manifest: Record<string, unknown>;
  let manifestText: string;

  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'signal-sdk-pack-'));
    execFileSync('pnpm', ['pack', '--pack-destination', scratch], { cwd: packageDir, stdio: 'pipe' });
    const tarball = readdirSync(scratch).find((file) => file.endsWith('.tgz'));
    if (!tarball) throw new Error('pnpm pack wrote no tarball');
    files = execFileSync('tar', ['-tzf', join(scratch, tarball)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((entry) => entry.replace(/^package\//, ''));
    execFileSync('tar', ['-xzf', join(scratch, tarball), '-C', scratch]);
    manifestText = readFileSync(join(scratch, 'package', 'package.json'), 'utf8');
    manifest = JSON.parse(manifestText);
  });
  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  it('holds the build, README, LICENSE and package.json, and no sources, tests or maps of sources', () => {
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE']));
    for (const entry of ['index', 'evm', 'solana']) {
      expect(files).toContain(`dist/${entry}.js`);
      expect(files).toContain(`dist/${entry}.d.ts`);
    }
    const unexpected = files.filter(
      (file) => !['package.json', 'README.md', 'LICENSE'].includes(file) && !file.startsWith('dist/'),
    );
    expect(unexpected).toEqual([]);
  });

  it('names only real versions: no workspace: or catalog: specifier anywhere', () => {
    expect(manifestText).not.toMatch(/workspace:|catalog:/);
    const dependencies = manifest.dependencies as Record<string, string>;
    expect(Object.keys(dependencies).sort()).toEqual(['bs58', 'tweetnacl']);
    for (const range of Object.values(dependencies)) expect(range).toMatch(/^[\^~]?\d+\.\d+\.\d+/);
    // The catalogue's versions, as the workspace installs them.
    const catalogue = readFileSync(join(repoRoot, 'pnpm-workspace.yaml'), 'utf8');
    expect(catalogue).toContain(`bs58: ${dependencies.bs58}`);
    expect(catalogue).toContain(`tweetnacl: ${dependencies.tweetnacl}`);
  });

  it('says what it is, under which licence, and where it comes from', () => {
    expect(manifest).toMatchObject({
      name: '@signal/sdk',
      license: 'MIT',
      type: 'module',
      repository: { type: 'git', directory: 'packages/sdk' },
      publishConfig: { access: 'public' },
    });
    expect(manifest.private).toBeUndefined();
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(typeof manifest.homepage).toBe('string');
    expect((manifest.keywords as string[]).length).toBeGreaterThan(3);
    expect(readFileSync(join(scratch, 'package', 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    expect(readFileSync(join(repoRoot, 'LICENSE'), 'utf8')).toBe(readFileSync(join(packageDir, 'LICENSE'), 'utf8'));
  });

  it('has a README with browser and Node quick starts for both wallet families, errors and token stores', () => {
    const readme = readFileSync(join(scratch, 'package', 'README.md'), 'utf8');
    for (const heading of ['## Browser quick start', '## Node quick start', '## Errors', '## Tokens']) {
      expect(readme).toContain(heading);
    }
    for (const snippet of [
      "from '@signal/sdk/evm'",
      "from '@signal/sdk/solana'",
      'createWalletClient',
      'privateKeyToAccount',
      'Keypair.generate()',
      'localStorageTokenStore',
      'memoryTokenStore',
      'SignalApiError',
    ]) {
      expect(readme).toContain(snippet);
    }
  });
});
