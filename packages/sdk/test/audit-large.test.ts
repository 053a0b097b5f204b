/**
 * Issue 40's "an audit of a provider with 10,000 statements": the built `signal-audit` bin on a
 * log written by hand (record.ts, as audit-forged.test.ts) holding one provider's 5,000 signals,
 * each opened and closed (10,000 statements, signed by a key its EVM wallet delegated), among
 * other providers' entries, served by the log fixture through the tampering proxy. The report
 * counts all 10,000 and passes; one statement altered among them fails the audit, naming that
 * one entry and no other. Ed25519 by node:crypto on both sides keeps it to a few seconds; the
 * 1M-entry figure is the bench's `audit` row.
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { type LogFixture, startLogFixture } from '@signal/test-support';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmWallet, ProviderRecord, type TestSigner } from './support/record.js';
import { rewriteJson, runAudit, startTamperProxy, type TamperProxy } from './support/tamper-proxy.js';

const STATEMENTS = 10_000;

/** A delegated Ed25519 key signing with node:crypto (the SDK's signer would take seconds for 10,000). */
function fastDelegatedKey(): TestSigner {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
  return {
    kind: 'ed25519',
    id: `ed25519:${bs58.encode(raw)}`,
    sign: async (statement) => bs58.encode(sign(null, Buffer.from(statement), privateKey)),
  };
}

let fixture: LogFixture;
let proxy: TamperProxy;
let record: ProviderRecord;

beforeAll(async () => {
  const entries: Uint8Array[] = [];
  const wallet = evmWallet();
  const key = fastDelegatedKey();
  record = new ProviderRecord(entries, 1);
  const others = new ProviderRecord(entries, 2);
  record.addPublisher(wallet.id);
  await record.delegate(wallet, key, 365 * 86_400_000);
  for (let i = 0; i < STATEMENTS / 2; i++) {
    // Another provider's entry every few statements: the audit files the log's entries by provider.
    if (i % 4 === 0) others.addPublisher(`0x${(i + 1).toString(16).padStart(40, '0')}`);
    await record.close(key, await record.open(key), '100');
  }
  fixture = await startLogFixture({ entries, seed: randomBytes(32), batch: 4_096 });
  proxy = await startTamperProxy({ upstream: fixture.url, signals: () => record.list(new Date()) });
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await fixture?.close();
});

const audit = async () => {
  const { code, stdout } = await runAudit([
    '--url',
    proxy.url,
    '--provider',
    '1',
    '--key',
    fixture.verifierKey,
    '--json',
  ]);
  return { code, report: JSON.parse(stdout) };
};

describe('signal-audit on a provider with 10,000 statements', () => {
  it('counts and verifies every statement, and passes', async () => {
    const { code, report } = await audit();
    expect(report.failures).toEqual([]);
    expect(code).toBe(0);
    expect(report.counts).toMatchObject({ signals: STATEMENTS / 2, statements: STATEMENTS, verified: STATEMENTS });
    expect(report.counts.providerEntries).toBe(STATEMENTS + 2);
  }, 60_000);

  it('fails on one statement altered among them, naming that entry only', async () => {
    const signals = record.list(new Date());
    const target = signals[1_234]!.statements[1]!;
    proxy.tamper = rewriteJson(/^\/providers\/1\/signals/, (body) => {
      const statement = body.items[1_234].statements[1];
      statement.statement = statement.statement.replace('"closePct":"100"', '"closePct":"10"');
    });
    const { code, report } = await audit();
    expect(code).toBe(1);
    expect(report.failures).toEqual([expect.objectContaining({ check: 'commitment', logIndex: target.logIndex })]);
    expect(report.counts.verified).toBe(STATEMENTS - 1);
  }, 60_000);
});
