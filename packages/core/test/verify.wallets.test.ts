/**
 * EIP-2098 compact EVM signatures and the Solana off-chain message envelope (Ledger). The
 * envelopes are built here byte by byte from the specification, independently of the code
 * under test, and signed with tweetnacl.
 */
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import {
  compactSignatureToSignature,
  parseSignature,
  serializeCompactSignature,
  signatureToCompactSignature,
  verifyMessage,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { buildAuthMessage } from '../src/message.js';
import { verifyEvmSignature, verifySolanaSignature } from '../src/verify.js';
import { freshNonce } from './support.js';

describe('EIP-2098 compact signatures', () => {
  it('accepts the 64-byte form of both parities, as viem reads it, and rejects the wrong parity', async () => {
    const parities = new Set<number>();
    for (let i = 0; i < 12; i++) {
      const account = privateKeyToAccount(generatePrivateKey());
      const message = buildAuthMessage(freshNonce());
      const full = await account.signMessage({ message });
      const compact = serializeCompactSignature(signatureToCompactSignature(parseSignature(full)));
      expect(compact.length).toBe(2 + 128);
      parities.add(parseSignature(full).yParity as number);
      expect(verifyEvmSignature(account.address, message, compact)).toBe(true);
      expect(verifyEvmSignature(account.address, message, compact.slice(2))).toBe(true);
      // viem agrees once the compact form is expanded (its verifyMessage takes 65 bytes only).
      const expanded = compactSignatureToSignature({
        r: `0x${compact.slice(2, 66)}`,
        yParityAndS: `0x${compact.slice(66)}`,
      });
      expect(await verifyMessage({ address: account.address, message, signature: expanded })).toBe(true);
      // The parity bit flipped recovers another key.
      const flipped = `0x${compact.slice(2, 66)}${(Number.parseInt(compact.slice(66, 68), 16) ^ 0x80).toString(16).padStart(2, '0')}${compact.slice(68)}`;
      expect(verifyEvmSignature(account.address, message, flipped)).toBe(false);
      expect(verifyEvmSignature(account.address, `${message}.`, compact)).toBe(false);
      expect(verifyEvmSignature(privateKeyToAccount(generatePrivateKey()).address, message, compact)).toBe(false);
    }
    // Twelve signatures all but surely cover both parities, so both bit values were exercised.
    expect(parities.size).toBe(2);
  });

  it('rejects 63 and 66-byte forms and odd digit counts around 64 bytes', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const message = 'x';
    const compact = serializeCompactSignature(
      signatureToCompactSignature(parseSignature(await account.signMessage({ message }))),
    );
    expect(verifyEvmSignature(account.address, message, compact.slice(0, -2))).toBe(false);
    expect(verifyEvmSignature(account.address, message, compact.slice(0, -1))).toBe(false);
    expect(verifyEvmSignature(account.address, message, `${compact}0`)).toBe(false);
  });
});

// ── Solana off-chain message envelope ─────────────────────────────────────────

const SIGNING_DOMAIN = Uint8Array.from([0xff, ...new TextEncoder().encode('solana offchain')]);
const u16le = (n: number) => Uint8Array.from([n & 0xff, n >> 8]);

/** Legacy v0: domain | version 0 | format | length u16 LE | body. */
function legacyEnvelope(body: Uint8Array, format: number, domain = SIGNING_DOMAIN, version = 0): Uint8Array {
  return Uint8Array.from([...domain, version, format, ...u16le(body.length), ...body]);
}

/** Extended v0: domain | version 0 | application domain | format | signer count | signers | length | body. */
function extendedEnvelope(
  body: Uint8Array,
  format: number,
  signers: Uint8Array[],
  applicationDomain = new Uint8Array(32),
): Uint8Array {
  return Uint8Array.from([
    ...SIGNING_DOMAIN,
    0,
    ...applicationDomain,
    format,
    signers.length,
    ...signers.flatMap((s) => [...s]),
    ...u16le(body.length),
    ...body,
  ]);
}

describe('Solana off-chain message envelope (Ledger)', () => {
  const keyPair = nacl.sign.keyPair();
  const address = bs58.encode(keyPair.publicKey);
  const sign = (bytes: Uint8Array) => bs58.encode(nacl.sign.detached(bytes, keyPair.secretKey));
  const message = buildAuthMessage(freshNonce());
  const body = new TextEncoder().encode(message);

  it('accepts the legacy and the extended layout around the exact message (format 0: ASCII)', () => {
    expect(verifySolanaSignature(address, message, sign(legacyEnvelope(body, 0)))).toBe(true);
    expect(verifySolanaSignature(address, message, sign(extendedEnvelope(body, 0, [keyPair.publicKey])))).toBe(true);
  });

  it('takes format 1 for text beyond restricted ASCII (a SIWE/SIWS text has newlines)', () => {
    const text = `example.com wants you to sign in with your Solana account:\n${address}\n\nNonce: ${freshNonce()}`;
    const bytes = new TextEncoder().encode(text);
    expect(verifySolanaSignature(address, text, sign(legacyEnvelope(bytes, 1)))).toBe(true);
    expect(verifySolanaSignature(address, text, sign(extendedEnvelope(bytes, 1, [keyPair.publicKey])))).toBe(true);
    expect(verifySolanaSignature(address, text, sign(legacyEnvelope(bytes, 0)))).toBe(false);
    const unicode = 'Sign in 🚀';
    expect(verifySolanaSignature(address, unicode, sign(legacyEnvelope(new TextEncoder().encode(unicode), 1)))).toBe(
      true,
    );
  });

  it('takes format 2 for a body beyond the hardware limit', () => {
    const long = 'a'.repeat(1300);
    const bytes = new TextEncoder().encode(long);
    expect(verifySolanaSignature(address, long, sign(legacyEnvelope(bytes, 2)))).toBe(true);
    expect(verifySolanaSignature(address, long, sign(legacyEnvelope(bytes, 0)))).toBe(false);
  });

  it('rejects an envelope around other text', () => {
    const other = new TextEncoder().encode(buildAuthMessage(freshNonce()));
    expect(verifySolanaSignature(address, message, sign(legacyEnvelope(other, 0)))).toBe(false);
    expect(verifySolanaSignature(address, message, sign(extendedEnvelope(other, 0, [keyPair.publicKey])))).toBe(false);
    const extra = new TextEncoder().encode(`${message} `);
    expect(verifySolanaSignature(address, message, sign(legacyEnvelope(extra, 0)))).toBe(false);
  });

  it('rejects a wrong signing domain, header version, format, length or signer list', () => {
    const wrongDomain = Uint8Array.from([0xfe, ...SIGNING_DOMAIN.subarray(1)]);
    expect(verifySolanaSignature(address, message, sign(legacyEnvelope(body, 0, wrongDomain)))).toBe(false);
    const noPrefixByte = SIGNING_DOMAIN.subarray(1);
    expect(verifySolanaSignature(address, message, sign(legacyEnvelope(body, 0, noPrefixByte)))).toBe(false);
    expect(verifySolanaSignature(address, message, sign(legacyEnvelope(body, 0, SIGNING_DOMAIN, 1)))).toBe(false);
    expect(verifySolanaSignature(address, message, sign(legacyEnvelope(body, 3)))).toBe(false);
    const badLength = legacyEnvelope(body, 0);
    badLength[18] = (badLength[18] as number) + 1;
    expect(verifySolanaSignature(address, message, sign(badLength))).toBe(false);
    const otherSigner = nacl.sign.keyPair().publicKey;
    expect(verifySolanaSignature(address, message, sign(extendedEnvelope(body, 0, [otherSigner])))).toBe(false);
    expect(
      verifySolanaSignature(address, message, sign(extendedEnvelope(body, 0, [keyPair.publicKey, otherSigner]))),
    ).toBe(false);
    // Another application's domain is another application's message.
    expect(
      verifySolanaSignature(
        address,
        message,
        sign(extendedEnvelope(body, 0, [keyPair.publicKey], new Uint8Array(32).fill(7))),
      ),
    ).toBe(false);
  });

  it('rejects an envelope signed by another key', () => {
    const other = nacl.sign.keyPair();
    const signature = bs58.encode(nacl.sign.detached(legacyEnvelope(body, 0), other.secretKey));
    expect(verifySolanaSignature(address, message, signature)).toBe(false);
    expect(verifySolanaSignature(bs58.encode(other.publicKey), message, signature)).toBe(true);
  });
});
