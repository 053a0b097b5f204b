/**
 * The `signal-audit` bin (built, run as a user runs it) against a log written by hand (entries
 * as the contract words them, not by the server's writers) and signed with the log's key (the
 * log fixture), through the tampering proxy, which answers the provider's signal list as the
 * operator chose: the honest record passes; statements the operator should have refused (by a
 * non-publisher, a revoked or an expired key, a wallet removed before them), and a fork, exit 1
 * naming the check. The whole tamper matrix against the real API is audit-api.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openNote, parseCheckpoint } from '@signal/core/log';
import { type LogFixture, startLogFixture } from '@signal/test-support';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { delegatedKey, evmWallet, ProviderRecord, solanaWallet } from './support/record.js';
import { honest, runAudit, startTamperProxy, type Tamper, type TamperProxy } from './support/tamper-proxy.js';

const seed = randomBytes(32);
const entries: Uint8Array[] = [];
const DAY = 86_400_000;
const records = new Map<number, ProviderRecord>();
const record = (provider: number, start?: number, delay = 0) => {
  const r = new ProviderRecord(entries, provider, start, delay);
  records.set(provider, r);
  return r;
};

let fixture: LogFixture;
let proxy: TamperProxy;
let dir: string;

beforeAll(async () => {
  const [evm, sol, stranger, removed] = [evmWallet(), solanaWallet(), evmWallet(), evmWallet()];
  const [bot, revoked, short] = await Promise.all([delegatedKey(), delegatedKey(), delegatedKey()]);
  // Provider 1: honest, revealed at once; every signer kind.
  const p1 = record(1);
  p1.addPublisher(evm.id);
  p1.addPublisher(sol.id);
  await p1.delegate(evm, bot);
  const a = await p1.open(evm);
  await p1.update(sol, a);
  await p1.close(bot, a, '40');
  await p1.open(sol);
  await p1.open(bot);
  // Provider 2: honest, a day's reveal delay, published just now: committed, not revealed.
  const p2 = record(2, Date.now() - 60_000, DAY);
  p2.addPublisher(evm.id);
  await p2.update(evm, await p2.open(evm));
  // Providers 3 to 6: the operator appended what it should have refused.
  const p3 = record(3);
  p3.addPublisher(evm.id);
  await p3.open(stranger);
  const p4 = record(4);
  p4.addPublisher(evm.id);
  await p4.delegate(evm, revoked);
  await p4.revoke(evm, revoked);
  await p4.open(revoked);
  const p5 = record(5);
  p5.addPublisher(evm.id);
  await p5.delegate(evm, short, 2_000);
  p5.clock += 5_000;
  await p5.open(short);
  const p6 = record(6);
  p6.addPublisher(removed.id);
  await p6.open(removed);
  p6.removePublisher(removed.id);
  await p6.open(removed);
  fixture = await startLogFixture({ entries, seed });
  proxy = await startTamperProxy({ upstream: fixture.url, signals: (p) => records.get(p)?.list(new Date()) ?? [] });
  dir = mkdtempSync(join(tmpdir(), 'signal-audit-'));
});
afterEach(() => {
  proxy.tamper = honest;
});
afterAll(async () => {
  await proxy?.close();
  await fixture?.close();
  rmSync(dir, { recursive: true, force: true });
});

const audit = (provider: number, ...more: string[]) =>
  runAudit(['--url', proxy.url, '--provider', String(provider), '--key', fixture.verifierKey, ...more]);

/** Runs the audit in `mode` and returns the checks its JSON report names (exit 1 asserted). */
async function caught(mode: Tamper, provider = 1, ...more: string[]): Promise<string[]> {
  proxy.tamper = mode;
  const { code, stdout } = await audit(provider, '--json', ...more);
  expect(code).toBe(1);
  const report = JSON.parse(stdout);
  expect(report.ok).toBe(false);
  return [...new Set((report.failures as { check: string }[]).map((f) => f.check))];
}

/** A checkpoint of the first `size` entries, or of `other` entries, signed with the log's key (the operator can). */
async function signedCheckpoint(list: Uint8Array[]): Promise<string> {
  const other = await startLogFixture({ entries: list, seed });
  const note = await (await fetch(`${other.url}/log/checkpoint`)).text();
  await other.close();
  return note;
}

describe('signal-audit on an honest record', () => {
  it('exits 0 with a line per signal, a total and no failures', async () => {
    const { code, stdout } = await audit(1);
    expect(stdout).toContain('result: everything holds');
    expect(code).toBe(0);
    expect(stdout.match(/^ok {3}/gm)).toHaveLength(3);
    expect(stdout).toContain('total: 3 signals, 5 statements (5 verified, 0 committed, not yet revealed)');
  });

  it('counts statements not yet due as committed', async () => {
    const { code, stdout } = await audit(2, '--json');
    expect(code).toBe(0);
    expect(JSON.parse(stdout).counts).toMatchObject({ signals: 1, statements: 2, verified: 0, committed: 2 });
  });

  it('keeps the checkpoint in --state and checks it on the next run', async () => {
    const state = join(dir, 'honest.state');
    expect((await audit(1, '--state', state)).code).toBe(0);
    const kept = readFileSync(state, 'utf8');
    expect(parseCheckpoint(openNote(kept, [fixture.verifierKey])).size).toBe(entries.length);
    const second = await audit(1, '--state', state);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`the checkpoint of ${entries.length} entries kept in ${state} was checked`);
  });

  it('refuses bad usage with exit 1', async () => {
    const { code, stderr } = await runAudit(['--url', proxy.url, '--provider', 'x', '--key', fixture.verifierKey]);
    expect(code).toBe(1);
    expect(stderr).toContain('--provider must be a provider id');
  });

  it('refuses a --state it could not keep before auditing: a missing folder, a folder for a file', async () => {
    for (const state of [join(dir, 'no-such-folder', 'state'), dir]) {
      const { code, stdout, stderr } = await audit(1, '--state', state);
      expect(code, stderr).toBe(1);
      expect(stderr).toContain(`--state ${state} cannot be read or written`);
      // Said in one line, not a stack, and before any check ran.
      expect(stderr).not.toMatch(/\n\s+at /);
      expect(stdout).toBe('');
    }
  });
});

describe('signal-audit catches', () => {
  it('a fork: the checkpoint kept in --state is not a prefix of today’s', async () => {
    const state = join(dir, 'fork.state');
    writeFileSync(state, await signedCheckpoint([...entries.slice(0, 10)].reverse()));
    expect(await caught(honest, 1, '--state', state)).toEqual(['log-forked']);
    // The forked checkpoint stays where it was: the evidence is not overwritten.
    expect(readFileSync(state, 'utf8')).not.toContain(`\n${entries.length}\n`);
  });

  it('a statement signed by a non-publisher', async () => {
    expect(await caught(honest, 3)).toEqual(['signer-not-allowed']);
  });

  it('a statement signed by a revoked key', async () => {
    expect(await caught(honest, 4)).toEqual(['signer-not-allowed']);
  });

  it('a statement signed by an expired key', async () => {
    expect(await caught(honest, 5)).toEqual(['signer-not-allowed']);
  });

  it('a statement signed by a wallet removed before it', async () => {
    expect(await caught(honest, 6)).toEqual(['signer-not-allowed']);
  });
});
