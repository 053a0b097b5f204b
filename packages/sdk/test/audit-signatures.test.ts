/**
 * The audit's browser-safe signature checks (`checkSignature` of @signal/sdk/audit, on @noble)
 * against independent implementations: EIP-191 recovery by libsecp256k1 (the server's
 * `verifyEvmSignature`) and Ed25519 by node:crypto (OpenSSL), on signatures made by viem and
 * node:crypto, genuine and mangled, in every form the server takes (v 27/28 or 0/1, EIP-2098's
 * 64 bytes), including the second and later signatures of a wallet, which take the known-key path
 * (without its table of multiples, then with it from its eighth check on).
 */
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { verifyEd25519Signature, verifyEvmSignature } from '@signal/core/verify';
import { checkSignature } from '@signal/sdk/audit';
import bs58 from 'bs58';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';

function forms(signature: string): string[] {
  const v = Number.parseInt(signature.slice(130, 132), 16);
  const r = signature.slice(2, 66);
  const s = signature.slice(66, 130);
  const compactS = (Number.parseInt(s.slice(0, 1), 16) | ((v - 27) << 3)).toString(16) + s.slice(1);
  const flip = (hex: string, at: number) =>
    hex.slice(0, at) + (Number.parseInt(hex[at]!, 16) ^ 1).toString(16) + hex.slice(at + 1);
  return [
    signature,
    `0x${r}${s}${(v - 27).toString(16).padStart(2, '0')}`,
    `0x${r}${compactS}`,
    `0x${r}${s}${(v === 27 ? 28 : 27).toString(16)}`,
    flip(signature, 40),
    flip(signature, 100),
    `0x${r}${s}`,
  ];
}

describe('checkSignature', () => {
  it('agrees with libsecp256k1 on EVM signatures, genuine and mangled, first and later ones', async () => {
    const wallets = [0, 1, 2].map(() => privateKeyToAccount(generatePrivateKey()));
    let valid = 0;
    let checked = 0;
    for (let i = 0; i < 40; i++) {
      const wallet = wallets[i % 3]!;
      const message = `{"i":${i},"salt":"${randomBytes(16).toString('base64url')}"}`;
      for (const signature of forms(await wallet.signMessage({ message }))) {
        for (const signer of [wallet.address, wallets[(i + 1) % 3]!.address]) {
          const expected = verifyEvmSignature(signer, message, signature);
          const verdict = await checkSignature(signer, message, signature);
          expect(verdict === 'valid', `${signer} ${signature}`).toBe(expected);
          if (expected) valid++;
          checked++;
        }
      }
    }
    // At least 65 bytes with v 27/28 or 0/1, and 64 bytes, by its own wallet (and r‖s without v
    // where its top bit happens to be the parity, as EIP-2098 reads it).
    expect(valid).toBeGreaterThanOrEqual(40 * 3);
    expect(checked).toBe(40 * 7 * 2);
  });

  it('answers unchecked for an EVM signature that is not the key’s (a contract wallet’s, or wrong), invalid for no signature', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const other = privateKeyToAccount(generatePrivateKey());
    expect(await checkSignature(wallet.address, 'm', await other.signMessage({ message: 'm' }))).toBe('unchecked');
    expect(await checkSignature(wallet.address, 'm', 'not hex')).toBe('invalid');
    // A chain, when given, decides.
    const chain = { verifyMessage: async () => true };
    expect(
      await checkSignature(wallet.address, 'm', await other.signMessage({ message: 'm' }), { evmChain: chain }),
    ).toBe('valid');
    // A signer not spelled canonically (lowercase) is refused: the log names signers canonically.
    expect(await checkSignature(wallet.address.toLowerCase(), 'm', await wallet.signMessage({ message: 'm' }))).toBe(
      'invalid',
    );
  });

  it('agrees with node:crypto on Ed25519 (delegated keys and Solana wallets), genuine and mangled', async () => {
    for (let i = 0; i < 30; i++) {
      const { publicKey, privateKey } = generateKeyPairSync('ed25519');
      const raw = bs58.encode(Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url'));
      const message = `statement ${i} ${randomBytes(8).toString('hex')}`;
      const signature = sign(null, Buffer.from(message), privateKey);
      const mangled = Buffer.from(signature);
      mangled[i % 64] = mangled[i % 64]! ^ 1;
      for (const sig of [signature, mangled]) {
        const encoded = bs58.encode(sig);
        const expected = verifyEd25519Signature(raw, message, encoded);
        expect((await checkSignature(`ed25519:${raw}`, message, encoded)) === 'valid').toBe(expected);
        expect((await checkSignature(raw, message, encoded)) === 'valid').toBe(expected);
      }
    }
  });
});
