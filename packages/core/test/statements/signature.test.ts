/**
 * Statement signatures by signer kind, made by independent implementations: viem accounts
 * (`signMessage`, EIP-191, and EIP-2098's compact form), @solana/web3.js Keypairs signed with
 * tweetnacl, node:crypto Ed25519 keys as delegated keys. Every tampering is refused: any one byte
 * of the statement changed, another signer named, one bit of the signature flipped, a Solana
 * off-chain envelope instead of the bytes.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { type Hex, parseSignature, serializeCompactSignature, signatureToCompactSignature } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { ChainUnavailableError, createEvmChainVerifier } from '../../src/evm-chain.js';
import {
  checkStatementSignature,
  parseStatementSigner,
  type StatementSigner,
  verifyStatementSignature,
  verifyStatementSignatureLocally,
} from '../../src/statements/index.js';
import { text, valid } from './support.js';

const statement = text(valid['signal.open']());

/** The statement with the character at `index` replaced by another of the same class (the JSON stays plausible). */
function tamper(at: number): string {
  const char = statement[at] as string;
  const other = char === 'a' ? 'b' : char === '0' ? '1' : char === '"' ? "'" : 'a';
  return statement.slice(0, at) + other + statement.slice(at + 1);
}

/** Every way to change what was signed, or who signed it, is refused. */
function expectTamperingRefused(
  signer: StatementSigner,
  signature: string,
  other: StatementSigner,
  flip: (s: string) => string,
) {
  expect(verifyStatementSignatureLocally(signer, statement, signature)).toBe(true);
  for (let at = 0; at < statement.length; at++) {
    expect(verifyStatementSignatureLocally(signer, tamper(at), signature), `byte ${at}`).toBe(false);
  }
  expect(verifyStatementSignatureLocally(signer, `${statement} `, signature)).toBe(false);
  expect(verifyStatementSignatureLocally(other, statement, signature)).toBe(false);
  expect(verifyStatementSignatureLocally(signer, statement, flip(signature))).toBe(false);
  expect(verifyStatementSignatureLocally(signer, statement, '')).toBe(false);
}

const flipHex = (signature: string) =>
  signature.slice(0, 10) + (signature[10] === '0' ? '1' : '0') + signature.slice(11);
function flipBase58(signature: string): string {
  const bytes = bs58.decode(signature);
  bytes[5] = (bytes[5] as number) ^ 1;
  return bs58.encode(bytes);
}

describe('EVM wallets (personal_sign)', () => {
  const account = privateKeyToAccount(generatePrivateKey());
  const other = parseStatementSigner(privateKeyToAccount(generatePrivateKey()).address);
  const signer = parseStatementSigner(account.address.toLowerCase());

  it("verifies viem's signMessage of the statement, 65 bytes and EIP-2098's 64, and refuses every tampering", async () => {
    const signature = await account.signMessage({ message: statement });
    expectTamperingRefused(signer, signature, other, flipHex);
    const compact = serializeCompactSignature(signatureToCompactSignature(parseSignature(signature as Hex)));
    expect(compact.length).toBe(2 + 128);
    expect(verifyStatementSignatureLocally(signer, statement, compact)).toBe(true);
    expect(verifyStatementSignatureLocally(signer, statement, signature.slice(2))).toBe(true);
    // The bytes are the text's UTF-8: a signature of its hex, or of its raw bytes as hex, is another message.
    const ofRawHex = await account.signMessage({ message: { raw: `0x${Buffer.from(statement).toString('hex')}` } });
    expect(ofRawHex).toBe(signature);
    const ofHexText = await account.signMessage({ message: Buffer.from(statement).toString('hex') });
    expect(verifyStatementSignatureLocally(signer, statement, ofHexText)).toBe(false);
  });

  it('passes a signature that does not recover to the chain hook, and only then', async () => {
    // A node that is not there: the hook is reached, and its failure is not mistaken for "invalid".
    const deadNode = createEvmChainVerifier({ rpcUrl: 'http://127.0.0.1:9/', timeoutMs: 2_000 });
    const signature = await account.signMessage({ message: statement });
    await expect(verifyStatementSignature(signer, statement, signature, { evmChain: deadNode })).resolves.toBe(true);
    await expect(verifyStatementSignature(signer, tamper(3), signature, { evmChain: deadNode })).rejects.toBeInstanceOf(
      ChainUnavailableError,
    );
    await expect(verifyStatementSignature(signer, tamper(3), signature)).resolves.toBe(false);
    await expect(checkStatementSignature(signer, tamper(3), signature)).rejects.toMatchObject({
      code: 'INVALID_SIGNATURE',
    });
    await expect(checkStatementSignature(signer, statement, signature)).resolves.toBeUndefined();
  });
});

describe('Solana wallets (Ed25519 of the bytes)', () => {
  const keypair = Keypair.generate();
  const signer = parseStatementSigner(keypair.publicKey.toBase58());
  const other = parseStatementSigner(Keypair.generate().publicKey.toBase58());

  it('verifies a Keypair signature made with tweetnacl, and refuses every tampering', () => {
    const signature = bs58.encode(nacl.sign.detached(Buffer.from(statement, 'utf8'), keypair.secretKey));
    expect(signer.kind).toBe('solana');
    expectTamperingRefused(signer, signature, other, flipBase58);
  });

  it("refuses the off-chain message envelope that sign-in takes: the statement's bytes are what is signed", () => {
    const body = Buffer.from(statement, 'utf8');
    const header = Buffer.alloc(20);
    Buffer.from('\xffsolana offchain', 'latin1').copy(header, 0);
    header[17] = 1;
    header.writeUInt16LE(body.length, 18);
    const signature = bs58.encode(nacl.sign.detached(Buffer.concat([header, body]), keypair.secretKey));
    expect(verifyStatementSignatureLocally(signer, statement, signature)).toBe(false);
  });
});

describe('delegated keys (ed25519:<base58>)', () => {
  function nodeKey() {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
    return { id: `ed25519:${bs58.encode(raw)}`, privateKey };
  }

  it("verifies node:crypto's Ed25519 signature, and refuses every tampering", () => {
    const key = nodeKey();
    const signature = bs58.encode(sign(null, Buffer.from(statement, 'utf8'), key.privateKey));
    expectTamperingRefused(parseStatementSigner(key.id), signature, parseStatementSigner(nodeKey().id), flipBase58);
  });

  it('verifies tweetnacl keys too, and a signature in hex is no signature', () => {
    const pair = nacl.sign.keyPair();
    const signer = parseStatementSigner(`ed25519:${bs58.encode(pair.publicKey)}`);
    const bytes = nacl.sign.detached(Buffer.from(statement, 'utf8'), pair.secretKey);
    expect(verifyStatementSignatureLocally(signer, statement, bs58.encode(bytes))).toBe(true);
    expect(verifyStatementSignatureLocally(signer, statement, Buffer.from(bytes).toString('hex'))).toBe(false);
  });

  it('refuses a key of small order, under which a crafted signature verifies for any message', () => {
    const identity = new Uint8Array(32);
    identity[0] = 1;
    const signer = parseStatementSigner(`ed25519:${bs58.encode(identity)}`);
    // R = identity, S = 0: valid for every message under the identity key in a lax verifier.
    const forged = new Uint8Array(64);
    forged[0] = 1;
    expect(verifyStatementSignatureLocally(signer, statement, bs58.encode(forged))).toBe(false);
  });
});
