/**
 * What the publisher signs, without a server (`prepare.*`, the log's origin given): for every
 * statement type and every signer kind (a viem LocalAccount, a viem WalletClient over EIP-1193, a
 * Solana Keypair, a delegated Ed25519 key) the statement is RFC 8785 canonical as `canonicalize`
 * (the RFC author's implementation) writes it, carries the contract's fields (the log, the
 * provider, `issuedAt` from the publisher's clock, a fresh opaque id and 128-bit salt), and its
 * signature verifies with implementations other than the SDK's: viem's `verifyMessage`,
 * node:crypto's Ed25519 and tweetnacl.
 */
import { createPublicKey, verify } from 'node:crypto';
import { evmSigner } from '@signal/sdk/evm';
import {
  createPublisher,
  ed25519StatementSigner,
  generateEd25519Key,
  type PublisherSigner,
  type SignedStatement,
} from '@signal/sdk/publisher';
import { solanaSigner } from '@signal/sdk/solana';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import canonicalize from 'canonicalize';
import nacl from 'tweetnacl';
import { createWalletClient, custom, verifyMessage } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { eip1193Provider } from './support/wallets.js';

const LOG = 'signals.example/signals';
const PROVIDER = 41;
const CLOCK = new Date('2026-12-02T03:04:05.678Z');

/** node:crypto's Ed25519 verification of `signature` (base58) by the 32-byte public key. */
function nodeVerifies(publicKey: Uint8Array, statement: string, signature: string): boolean {
  const key = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') },
    format: 'jwk',
  });
  return verify(null, Buffer.from(statement, 'utf8'), key, Buffer.from(bs58.decode(signature)));
}

const naclVerifies = (publicKey: Uint8Array, statement: string, signature: string) =>
  nacl.sign.detached.verify(new TextEncoder().encode(statement), bs58.decode(signature), publicKey);

interface Kind {
  name: string;
  signer: PublisherSigner;
  /** The body's `signer`. */
  id: string;
  verifies(statement: string, signature: string): Promise<boolean>;
}

async function kinds(): Promise<Kind[]> {
  const account = privateKeyToAccount(generatePrivateKey());
  const browser = privateKeyToAccount(generatePrivateKey());
  const keypair = Keypair.generate();
  const bot = await generateEd25519Key();
  const botPublic = bs58.decode(bot.key.slice('ed25519:'.length));
  return [
    {
      name: 'viem LocalAccount',
      signer: evmSigner(account),
      id: account.address,
      verifies: (statement, signature) =>
        verifyMessage({ address: account.address, message: statement, signature: signature as `0x${string}` }),
    },
    {
      name: 'viem WalletClient over EIP-1193',
      signer: evmSigner(createWalletClient({ transport: custom(eip1193Provider(browser)) })),
      id: browser.address,
      verifies: (statement, signature) =>
        verifyMessage({ address: browser.address, message: statement, signature: signature as `0x${string}` }),
    },
    {
      name: 'Solana Keypair',
      signer: solanaSigner(keypair),
      id: keypair.publicKey.toBase58(),
      verifies: async (statement, signature) =>
        nodeVerifies(keypair.publicKey.toBytes(), statement, signature) &&
        naclVerifies(keypair.publicKey.toBytes(), statement, signature),
    },
    {
      name: 'delegated Ed25519 key',
      signer: ed25519StatementSigner(bot.secretKey),
      id: bot.key,
      verifies: async (statement, signature) =>
        nodeVerifies(botPublic, statement, signature) && naclVerifies(botPublic, statement, signature),
    },
  ];
}

const terms = {
  instrument: 'ETH-USD',
  side: 'short' as const,
  entry: { type: 'limit' as const, price: '3450.25' },
  stop: '3600',
  targets: ['3300', '3150.5'],
  sizePct: '1.5',
  expiresAt: new Date(CLOCK.getTime() + 86_400_000),
  note: 'Rejection at the weekly high — « fade » 📉',
};

describe('statements the publisher signs', () => {
  it('are canonical, carry the contract fields, and verify independently, for every type and signer kind', async () => {
    const { key } = await generateEd25519Key();
    for (const kind of await kinds()) {
      // Nothing is sent: the API's address is never reached by prepare.
      const publisher = createPublisher({
        baseUrl: 'http://127.0.0.1:9',
        providerId: PROVIDER,
        signer: kind.signer,
        log: LOG,
        now: () => CLOCK,
      });
      const open = await publisher.prepare.open(terms);
      const prepared: [SignedStatement, Record<string, unknown>][] = [
        [
          open,
          {
            ...terms,
            expiresAt: terms.expiresAt.toISOString(),
            type: 'signal.open',
            id: open.signalId,
          },
        ],
        [
          await publisher.prepare.update(open.signalId as string, { stop: null, targets: ['3000'], note: '' }),
          { type: 'signal.update', signal: open.signalId, stop: null, targets: ['3000'], note: '' },
        ],
        [
          await publisher.prepare.close(open.signalId as string, '33.3'),
          { type: 'signal.close', signal: open.signalId, closePct: '33.3' },
        ],
        [await publisher.prepare.cancel(open.signalId as string), { type: 'signal.cancel', signal: open.signalId }],
        [
          await publisher.prepare.delegateKey(key, { expiresAt: '2027-01-01T00:00:00Z' }),
          { type: 'key.delegate', key, expiresAt: '2027-01-01T00:00:00Z' },
        ],
        [await publisher.prepare.revokeKey({ key }), { type: 'key.revoke', key }],
      ];
      for (const [signed, fields] of prepared) {
        const label = `${kind.name}: ${signed.type}`;
        const { statement, signer, signature } = signed.body;
        const parsed = JSON.parse(statement) as Record<string, unknown>;
        // RFC 8785 as its author's implementation writes it: the same string, byte for byte.
        expect(canonicalize(parsed), label).toBe(statement);
        expect(parsed, label).toMatchObject({
          v: 1,
          log: LOG,
          provider: PROVIDER,
          issuedAt: CLOCK.toISOString(),
          ...fields,
        });
        expect(signed.providerId, label).toBe(PROVIDER);
        expect(signer, label).toBe(kind.id);
        expect(await kind.verifies(statement, signature), label).toBe(true);
        // The signature is over these bytes only.
        expect(await kind.verifies(statement.replace('"v":1', '"v":2'), signature), label).toBe(false);
        if (signed.type.startsWith('signal.')) {
          expect(parsed.id, label).toMatch(/^[A-Za-z0-9_-]{22}$/);
          expect(parsed.salt, label).toMatch(/^[A-Za-z0-9_-]{22}$/);
          expect(Buffer.from(parsed.salt as string, 'base64url')).toHaveLength(16);
          expect(signed.signalId, label).toBe(signed.type === 'signal.open' ? parsed.id : open.signalId);
        } else {
          // Key statements carry neither id nor salt, and name their key.
          expect(
            Object.keys(parsed).filter((name) => name === 'id' || name === 'salt'),
            label,
          ).toEqual([]);
          expect(signed.key, label).toBe(key);
        }
      }
    }
  });

  it('draw fresh ids and salts every time, and take the ids and salts given', async () => {
    const publisher = createPublisher({
      baseUrl: 'http://127.0.0.1:9',
      providerId: PROVIDER,
      signer: ed25519StatementSigner(nacl.sign.keyPair().secretKey),
      log: LOG,
    });
    const seen = new Set<string>();
    for (let i = 0; i < 100; i++) {
      const parsed = JSON.parse((await publisher.prepare.cancel('sig_1')).body.statement);
      seen.add(parsed.id).add(parsed.salt);
      // issuedAt is read from the clock: within a moment of now.
      expect(Math.abs(Date.parse(parsed.issuedAt) - Date.now())).toBeLessThan(5_000);
    }
    expect(seen.size).toBe(200);
    const chosen = await publisher.prepare.close('sig_1', '50', { id: 'close-1', salt: 'S'.repeat(22) });
    expect(JSON.parse(chosen.body.statement)).toMatchObject({ id: 'close-1', salt: 'S'.repeat(22), signal: 'sig_1' });
  });

  it('refuse an update that changes nothing before anything is signed', async () => {
    let signatures = 0;
    const publisher = createPublisher({
      baseUrl: 'http://127.0.0.1:9',
      providerId: PROVIDER,
      signer: {
        signerId: async () => 'ed25519:x',
        sign: async () => {
          signatures += 1;
          return 'x';
        },
      },
      log: LOG,
    });
    await expect(publisher.prepare.update('sig_1', {})).rejects.toThrow(/at least one/);
    await expect(publisher.update('sig_1', {})).rejects.toThrow(/at least one/);
    expect(signatures).toBe(0);
  });

  it('a prepared statement is plain JSON: stored and read back, it is the same body', async () => {
    const publisher = createPublisher({
      baseUrl: 'http://127.0.0.1:9',
      providerId: PROVIDER,
      signer: evmSigner(privateKeyToAccount(generatePrivateKey())),
      log: LOG,
    });
    const signed = await publisher.prepare.open({ ...terms, expiresAt: null });
    expect(JSON.parse(JSON.stringify(signed))).toEqual(signed);
  });
});
