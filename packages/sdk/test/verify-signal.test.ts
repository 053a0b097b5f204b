/**
 * `verifySignal` (from @signal/sdk/audit) on a served log (the log fixture, @signal/core/log's
 * tiles and a checkpoint signed with the log key) holding statements really signed by viem,
 * tweetnacl and delegated keys: revealed, unrevealed and partly revealed signals, every signer
 * kind, and the authorization edges, each answered with the check that failed.
 */
import { randomBytes } from 'node:crypto';
import { type AuditedSignal, readLog, verifySignal } from '@signal/sdk/audit';
import { type LogFixture, startLogFixture } from '@signal/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegatedKey, evmWallet, ProviderRecord, solanaWallet, type TestSigner } from './support/record.js';

const seed = randomBytes(32);
const HOUR = 3_600_000;

/** One log for the file: provider 1 (reveal at once) and provider 2 (reveal after an hour). */
const entries: Uint8Array[] = [];
const p1 = new ProviderRecord(entries, 1);
const p2 = new ProviderRecord(entries, 2, Date.parse('2026-01-01T00:00:00.000Z'), HOUR);

let evm: TestSigner;
let sol: TestSigner;
let bot: TestSigner;
let stranger: TestSigner;
let removed: TestSigner;
let revokedKey: TestSigner;
let shortKey: TestSigner;
let fixture: LogFixture;
const ids: Record<string, string> = {};
let at: Date;

beforeAll(async () => {
  [evm, sol, stranger, removed] = [evmWallet(), solanaWallet(), evmWallet(), evmWallet()];
  [bot, revokedKey, shortKey] = await Promise.all([delegatedKey(), delegatedKey(), delegatedKey()]);
  p1.addPublisher(evm.id);
  p1.addPublisher(sol.id);
  p1.addPublisher(removed.id);
  await p1.delegate(evm, bot);
  await p1.delegate(sol, revokedKey);
  await p1.delegate(evm, shortKey, 5_000);
  ids.byEvm = await p1.open(evm);
  await p1.update(sol, ids.byEvm);
  await p1.close(bot, ids.byEvm);
  ids.bySolana = await p1.open(sol);
  ids.byBot = await p1.open(bot);
  // The edges: a statement in the second the right ends is refused (half-open intervals).
  ids.byStranger = await p1.open(stranger);
  await p1.revoke(revokedKey, revokedKey);
  ids.byRevoked = await p1.open(revokedKey);
  ids.byExpired = await p1.open(shortKey); // the key lived 5 s: its 5 s have passed
  p1.removePublisher(removed.id);
  ids.byRemoved = await p1.open(removed);
  // Provider 2: a signal whose open is revealed (an hour later) and whose update is not yet.
  p2.clock = p1.clock;
  p2.addPublisher(evm.id);
  ids.partly = await p2.open(evm);
  p2.clock += HOUR;
  await p2.update(evm, ids.partly);
  at = new Date(p2.clock);
  fixture = await startLogFixture({ entries, seed });
});
afterAll(() => fixture?.close());

const verify = (signal: AuditedSignal, extra: Partial<Parameters<typeof verifySignal>[1]> = {}) =>
  verifySignal(signal, { logKey: fixture.verifierKey, url: fixture.url, now: at, ...extra });
const checks = (report: { failures: { check: string }[] }) => [...new Set(report.failures.map((f) => f.check))];

describe('verifySignal', () => {
  it('verifies a revealed signal signed by an EVM wallet, a Solana wallet and a delegated key', async () => {
    const report = await verify(p1.signal(ids.byEvm!, at));
    expect(report.failures).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.statements.map((s) => [s.type, s.verdict, s.signer])).toEqual([
      ['signal.open', 'verified', evm.id],
      ['signal.update', 'verified', sol.id],
      ['signal.close', 'verified', bot.id],
    ]);
    expect(report.checkpoint).toMatchObject({ origin: 'localhost/signals', size: entries.length });
    for (const id of [ids.bySolana!, ids.byBot!]) expect((await verify(p1.signal(id, at))).ok).toBe(true);
  });

  it('answers an unrevealed signal as committed, and a partly revealed one statement by statement', async () => {
    const early = new Date(Date.parse(p2.signal(ids.partly!).publishedAt) + 1000);
    const unrevealed = await verify(p2.signal(ids.partly!, early), { now: early });
    expect(unrevealed.ok).toBe(true);
    expect(unrevealed.statements.map((s) => s.verdict)).toEqual(['committed', 'committed']);
    // The open's revealAt passed; the reader shows it and withholds the later update's text.
    const partly = p2.signal(ids.partly!, at);
    partly.statements[1] = { ...partly.statements[1]!, statement: null, signer: null, signature: null };
    const report = await verify(partly);
    expect(report.statements.map((s) => s.verdict)).toEqual(['verified', 'failed']);
    expect(checks(report)).toEqual(['unrevealed']);
  });

  it('names the authorization that failed: a non-publisher, a revoked key, an expired key, a removed wallet', async () => {
    const cases = [
      [ids.byStranger, 'not a publisher'],
      [ids.byRevoked, 'key revoked'],
      [ids.byExpired, 'key expired'],
      [ids.byRemoved, 'not a publisher'],
    ] as const;
    for (const [id, reason] of cases) {
      const report = await verify(p1.signal(id!, at));
      expect(report.ok).toBe(false);
      expect(report.failures).toEqual([expect.objectContaining({ check: 'signer-not-allowed', signal: id })]);
      expect(report.failures[0]!.message).toContain(reason);
    }
  });

  it('refuses a statement altered after the reveal, a forged signature, a changed receivedAt', async () => {
    const altered = p1.signal(ids.byEvm!, at);
    altered.statements[0]!.statement = altered.statements[0]!.statement!.replace('"long"', '"short"');
    expect(checks(await verify(altered))).toEqual(['commitment']);

    const forged = p1.signal(ids.bySolana!, at);
    forged.statements[0]!.signature = await stranger.sign(forged.statements[0]!.statement!);
    expect(checks(await verify(forged))).toEqual(['signature']);

    const moved = p1.signal(ids.byBot!, at);
    moved.statements[0]!.receivedAt = new Date(Date.parse(moved.statements[0]!.receivedAt) - 60_000).toISOString();
    expect(checks(await verify(moved))).toEqual(expect.arrayContaining(['statement-mismatch']));
  });

  it('refuses content or a status the statements do not make (the terms, openPct, closed shown open)', async () => {
    const terms = p1.signal(ids.byEvm!, at);
    (terms.content as { side: string }).side = 'short';
    expect(checks(await verify(terms))).toEqual(['signal-content']);
    const open = p1.signal(ids.byEvm!, at);
    (open.content as { openPct: string }).openPct = '100';
    open.status = 'open';
    expect(checks(await verify(open))).toEqual(['signal-content']);
    expect(checks(await verify(p1.signal(ids.byEvm!, at)))).toEqual([]);
  });

  it('finds a statement left out of the signal, and a signal the log does not have', async () => {
    const short = p1.signal(ids.byEvm!, at);
    short.statements.pop();
    expect(checks(await verify(short))).toEqual(['statement-missing']);
    const invented = { ...p1.signal(ids.bySolana!, at), id: 'not-in-the-log' };
    expect(checks(await verify(invented))).toEqual(expect.arrayContaining(['signal-not-in-log']));
  });

  it('checks an earlier checkpoint: consistent, or a fork', async () => {
    const log = await readLog({ url: fixture.url, logKey: fixture.verifierKey });
    expect((await verify(p1.signal(ids.byEvm!, at), { log, checkpoint: log.note! })).ok).toBe(true);
    // An earlier tree that is not a prefix of today's, signed with the log's key: a fork.
    const other = await startLogFixture({ entries: entries.slice(0, 10).reverse(), seed });
    const forked = await (await fetch(`${other.url}/log/checkpoint`)).text();
    await other.close();
    const report = await verify(p1.signal(ids.byEvm!, at), { log, checkpoint: forked });
    expect(checks(report)).toEqual(['log-forked']);
  });

  it('fails every signal when the checkpoint does not open with the pinned key', async () => {
    const impostor = await startLogFixture({ entries, seed: randomBytes(32) });
    const report = await verify(p1.signal(ids.byEvm!, at), { url: impostor.url });
    await impostor.close();
    expect(report.ok).toBe(false);
    expect(checks(report)).toEqual(['checkpoint-signature']);
  });
});
