/**
 * `.env.example` at the repository root lists every variable the configuration schema reads,
 * each with a line saying what it means and its default as the value, so it cannot drift from
 * apps/api/src/config/variables.ts. The built server reads a `.env` of its working directory, under the
 * environment.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, loadConfig } from '../../src/config/config.js';

const EXAMPLE = fileURLToPath(new URL('../../../../.env.example', import.meta.url));
const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

function parseExample(): { name: string; value: string; comment: string }[] {
  const lines = readFileSync(EXAMPLE, 'utf8').split('\n');
  const entries: { name: string; value: string; comment: string }[] = [];
  lines.forEach((line, i) => {
    const assignment = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (!assignment) return;
    entries.push({ name: assignment[1] as string, value: assignment[2] as string, comment: lines[i - 1] ?? '' });
  });
  return entries;
}

describe('.env.example', () => {
  const entries = parseExample();

  it('lists every variable of the configuration schema, once, and nothing else', () => {
    const names = entries.map((e) => e.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it('gives each one a line of meaning above it', () => {
    for (const { name, comment } of entries) expect(comment, name).toMatch(/^# \S.{10,}/);
  });

  it('gives each one its default: the file as the environment configures what no environment does', () => {
    const values = Object.fromEntries(entries.map((e) => [e.name, e.value]));
    expect(loadConfig(values, '/srv/app')).toEqual(loadConfig({}, '/srv/app'));
    // And each value on its own, so two wrong defaults cannot hide each other.
    for (const { name, value } of entries) {
      expect(loadConfig({ [name]: value }, '/srv/app'), name).toEqual(loadConfig({}, '/srv/app'));
    }
  });
});

describe('.env in the working directory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'signal-env-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const start = (env: Record<string, string>) =>
    spawnSync(process.execPath, [MAIN], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
      timeout: 20_000,
    });

  it('is read by the built server, and the environment wins over it', () => {
    writeFileSync(join(dir, '.env'), 'PORT=not-a-port\n');
    const fromFile = start({});
    expect(fromFile.status).toBe(1);
    expect(fromFile.stderr).toContain('PORT: must be a whole number');

    const fromEnv = start({ PORT: '70000' });
    expect(fromEnv.status).toBe(1);
    // The environment's value (a number out of range), not the file's (not a number).
    expect(fromEnv.stderr).toContain('PORT');
    expect(fromEnv.stderr).not.toContain('whole number');
  });
});
