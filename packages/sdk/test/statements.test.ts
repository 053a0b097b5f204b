/**
 * The SDK's statements as the service will judge them: every body it builds, for every type and
 * every signer kind (a viem account, a @solana/web3.js Keypair, a delegated Ed25519 key), passes
 * the core checks in the contract's order and its signature check, and the signatures verify
 * independently (viem's `verifyMessage`, tweetnacl). Ids and salts are fresh 128-bit values.
 */

import { signalTerms } from '@signal/core/signal-examples';
import {
  checkStatementRequest,
  isCanonical,
  STATEMENT_TYPES,
  type StatementType,
  verifyStatementSignatureLocally,
} from '@signal/core/statements';
import { evmSigner } from '@signal/sdk/evm';
import { solanaSigner } from '@signal/sdk/solana';
import {
  type BuiltStatement,
  cancelStatement,
  closeStatement,
  delegateKeyStatement,
  ed25519StatementSigner,
  generateEd25519Key,
  newSalt,
  newStatementId,
  openStatement,
  revokeKeyStatement,
  type StatementSigner,
  signStatement,
  updateStatement,
  walletStatementSigner,
} from '@signal/sdk/statements';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { verifyMessage } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';

const scope = { log: 'signal.example/signals', provider: 12 };
const check = (body: unknown, types: readonly StatementType[] = STATEMENT_TYPES) =>
  checkStatementRequest(body, {
    origin: scope.log,
    providerId: scope.provider,
    types,
    nowMs: Date.now(),
    maxSkewSeconds: 60,
  });

async function everyStatement(): Promise<[StatementType, BuiltStatement][]> {
  const open = openStatement(scope, {
    ...signalTerms(),
    side: 'short',
    expiresAt: new Date(Date.now() + 86_400_000),
    note: 'Rejection at the weekly high — « fade » 📉',
  });
  const signal = open.id as string;
  const { key } = await generateEd25519Key();
  return [
    ['signal.open', open],
    [
      'signal.open',
      openStatement(scope, {
        instrument: 'SOL/USDC',
        side: 'long',
        entry: { type: 'market' },
        stop: null,
        targets: [],
        sizePct: '100',
        expiresAt: null,
      }),
    ],
    ['signal.update', updateStatement(scope, signal, { stop: null, targets: ['3000'], note: '' })],
    ['signal.close', closeStatement(scope, signal, '33.3')],
    ['signal.cancel', cancelStatement(scope, signal)],
    ['key.delegate', delegateKeyStatement(scope, key, new Date(Date.now() + 30 * 86_400_000))],
    ['key.revoke', revokeKeyStatement(scope, key)],
  ];
}

describe('statements built by the SDK', () => {
  const account = privateKeyToAccount(generatePrivateKey());
  const keypair = Keypair.generate();

  it('pass the core checks and signature check for every type and signer kind, and verify independently', async () => {
    const bot = await generateEd25519Key();
    const signers: [
      string,
      StatementSigner,
      (body: { statement: string; signer: string; signature: string }) => Promise<boolean>,
    ][] = [
      [
        'viem account',
        walletStatementSigner(evmSigner(account)),
        (body) =>
          verifyMessage({
            address: account.address,
            message: body.statement,
            signature: body.signature as `0x${string}`,
          }),
      ],
      [
        'Solana Keypair',
        walletStatementSigner(solanaSigner(keypair)),
        async (body) =>
          nacl.sign.detached.verify(
            new TextEncoder().encode(body.statement),
            bs58.decode(body.signature),
            keypair.publicKey.toBytes(),
          ),
      ],
      [
        'delegated key',
        ed25519StatementSigner(bot.secretKey),
        async (body) =>
          nacl.sign.detached.verify(
            new TextEncoder().encode(body.statement),
            bs58.decode(body.signature),
            bs58.decode(bot.key.slice(8)),
          ),
      ],
    ];
    for (const [name, signer, independently] of signers) {
      for (const [type, built] of await everyStatement()) {
        const body = await signStatement(built, signer);
        expect(isCanonical(body.statement), `${name} ${type}`).toBe(true);
        const checked = check(body, [type]);
        expect(checked.statement.type).toBe(type);
        expect(checked.parsedSigner.id).toBe(body.signer);
        expect(
          verifyStatementSignatureLocally(checked.parsedSigner, body.statement, body.signature),
          `${name} ${type}`,
        ).toBe(true);
        expect(await independently(body), `${name} ${type}`).toBe(true);
        // Another statement with the same signature is refused.
        const other = (await everyStatement())[0]![1].statement;
        expect(verifyStatementSignatureLocally(checked.parsedSigner, other, body.signature)).toBe(false);
      }
    }
  });

  it('sign as the wallet or key named: checksummed EVM address, base58 Solana address, ed25519:<base58>', async () => {
    const built = cancelStatement(scope, 'sig');
    expect((await signStatement(built, walletStatementSigner(evmSigner(account)))).signer).toBe(account.address);
    expect((await signStatement(built, walletStatementSigner(solanaSigner(keypair)))).signer).toBe(
      keypair.publicKey.toBase58(),
    );
    // A Keypair's secretKey and its 32-byte seed are the same delegated key.
    const fromKeypair = await ed25519StatementSigner(keypair.secretKey).signerId();
    expect(fromKeypair).toBe(`ed25519:${keypair.publicKey.toBase58()}`);
    expect(await ed25519StatementSigner(keypair.secretKey.slice(0, 32)).signerId()).toBe(fromKeypair);
    const mismatched = new Uint8Array(keypair.secretKey);
    mismatched[40] = (mismatched[40] as number) ^ 1;
    await expect(ed25519StatementSigner(mismatched).sign(built.statement)).rejects.toThrow(/public half/);
    expect(() => ed25519StatementSigner(new Uint8Array(31))).toThrow(/32-byte seed/);
  });

  it('carry fresh opaque ids and 128-bit salts, and the ids and salts given', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const { statement, id } = openStatement(scope, {
        instrument: 'BTC-USD',
        side: 'long',
        entry: { type: 'market' },
        stop: null,
        targets: [],
        sizePct: '1',
        expiresAt: null,
      });
      const parsed = JSON.parse(statement);
      expect(parsed.id).toBe(id);
      expect(parsed.salt).toMatch(/^[A-Za-z0-9_-]{22}$/);
      ids.add(parsed.id).add(parsed.salt);
    }
    expect(ids.size).toBe(2000);
    expect(newStatementId()).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(newSalt()).not.toBe(newSalt());
    const chosen = closeStatement(scope, 'sig_1', '50', { id: 'close_1', salt: 'S'.repeat(22) });
    expect(JSON.parse(chosen.statement)).toMatchObject({ id: 'close_1', salt: 'S'.repeat(22), signal: 'sig_1' });
  });

  it('refuse an update that changes nothing before anything is signed', () => {
    expect(() => updateStatement(scope, 'sig_1', {})).toThrow(/at least one/);
  });

  it('take the given issuedAt, and are refused by the core checks once it is out of the skew', async () => {
    const stale = cancelStatement({ ...scope, issuedAt: new Date(Date.now() - 120_000) }, 'sig_1');
    const body = await signStatement(stale, walletStatementSigner(evmSigner(account)));
    expect(() => check(body)).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_ERROR',
        issues: [expect.objectContaining({ path: ['statement', 'issuedAt'] })],
      }),
    );
  });
});
