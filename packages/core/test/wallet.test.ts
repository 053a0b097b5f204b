import { randomBytes } from 'node:crypto';
import { Keypair, PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../src/errors.js';
import { parseWallet, tryParseWallet } from '../src/wallet.js';

/** Runs `fn` and returns the DomainError it throws; fails the test if it does not throw one. */
function domainError(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a DomainError, but nothing was thrown');
}

function expectInvalid(input: string): void {
  const error = domainError(() => parseWallet(input));
  expect(error.code).toBe('INVALID_WALLET');
  expect(error.status).toBe(400);
  expect(tryParseWallet(input)).toBeNull();
}

const randomEvmAddress = () => privateKeyToAccount(generatePrivateKey()).address;

// The four mixed-case examples of EIP-55 itself.
const EIP55_VECTORS = [
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
];

describe('parseWallet: EVM', () => {
  it('accepts all-lowercase hex and canonicalises it to EIP-55', () => {
    for (let i = 0; i < 20; i++) {
      const checksummed = randomEvmAddress();
      const lower = checksummed.toLowerCase();
      expect(parseWallet(lower)).toEqual({ wallet: getAddress(lower), chain: 'evm' });
      expect(parseWallet(lower).wallet).toBe(checksummed);
    }
  });

  it('accepts all-uppercase hex (lowercase 0x) and canonicalises it to EIP-55', () => {
    for (let i = 0; i < 20; i++) {
      const checksummed = randomEvmAddress();
      const upper = `0x${checksummed.slice(2).toUpperCase()}`;
      expect(parseWallet(upper)).toEqual({ wallet: getAddress(checksummed.toLowerCase()), chain: 'evm' });
      expect(parseWallet(upper).wallet).toBe(checksummed);
    }
  });

  it('accepts the EIP-55 test vectors as they are', () => {
    for (const address of EIP55_VECTORS) {
      expect(parseWallet(address)).toEqual({ wallet: address, chain: 'evm' });
      expect(parseWallet(address.toLowerCase()).wallet).toBe(address);
    }
  });

  it('accepts mixed-case addresses with a correct checksum, unchanged', () => {
    for (let i = 0; i < 20; i++) {
      const address = randomEvmAddress();
      expect(parseWallet(address)).toEqual({ wallet: address, chain: 'evm' });
    }
  });

  it('maps every spelling of one address to the same canonical wallet', () => {
    const address = EIP55_VECTORS[0] as string;
    const spellings = [address, address.toLowerCase(), `0x${address.slice(2).toUpperCase()}`];
    expect(new Set(spellings.map((s) => parseWallet(s).wallet))).toEqual(new Set([address]));
  });

  it('accepts an address made only of digits (no letters, so no case to check)', () => {
    const digits = `0x${'1234567890'.repeat(4)}`;
    expect(parseWallet(digits)).toEqual({ wallet: getAddress(digits), chain: 'evm' });
  });

  it("rejects a mixed-case address with any one letter's case flipped", () => {
    // 30 random addresses: ≈15 letters each, so the count below clears 200 by about 17 standard
    // deviations (with 10 it averaged ≈210 and one CI run counted 199).
    const addresses = [...EIP55_VECTORS, ...Array.from({ length: 30 }, randomEvmAddress)];
    let checked = 0;
    for (const address of addresses) {
      const hex = address.slice(2);
      for (let i = 0; i < hex.length; i++) {
        const c = hex[i] as string;
        if (!/[a-fA-F]/.test(c)) continue;
        const flippedChar = c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
        const flipped = `${hex.slice(0, i)}${flippedChar}${hex.slice(i + 1)}`;
        // Flipping the only letter of one case makes the address all-lower or all-upper,
        // which carries no checksum and is legitimately accepted.
        if (flipped === flipped.toLowerCase() || flipped === flipped.toUpperCase()) continue;
        expectInvalid(`0x${flipped}`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(200);
  });

  it('rejects wrong lengths', () => {
    const hex = (EIP55_VECTORS[0] as string).slice(2).toLowerCase();
    expectInvalid(`0x${hex.slice(0, 39)}`);
    expectInvalid(`0x${hex}0`);
    expectInvalid(`0x${hex}${hex}`);
    expectInvalid('0x');
    expectInvalid('0x0');
  });

  it('rejects a missing 0x prefix and an uppercase 0X prefix', () => {
    const address = EIP55_VECTORS[0] as string;
    expectInvalid(address.slice(2));
    expectInvalid(address.slice(2).toLowerCase());
    expectInvalid(`0X${address.slice(2)}`);
    expectInvalid(`0X${address.slice(2).toLowerCase()}`);
    expectInvalid(`0X${address.slice(2).toUpperCase()}`);
    expectInvalid(`x${address.slice(2)}`);
    expectInvalid(`00${address.slice(2)}`);
  });

  it('rejects non-hex characters and surrounding whitespace', () => {
    const lower = (EIP55_VECTORS[0] as string).toLowerCase();
    expectInvalid(`${lower.slice(0, 41)}g`);
    expectInvalid(`${lower.slice(0, 41)}z`);
    expectInvalid(`${lower.slice(0, 10)} ${lower.slice(11)}`);
    expectInvalid(` ${lower}`);
    expectInvalid(`${lower} `);
    expectInvalid(`${lower}\n`);
    // Fullwidth digit: \d-style matchers with the u flag might let it through.
    expectInvalid(`${lower.slice(0, 41)}\uFF11`);
  });
});

describe('parseWallet: Solana', () => {
  it('accepts a tweetnacl keypair public key in base58, as given', () => {
    for (let i = 0; i < 20; i++) {
      const address = bs58.encode(nacl.sign.keyPair().publicKey);
      expect(parseWallet(address)).toEqual({ wallet: address, chain: 'solana' });
    }
  });

  it('accepts a @solana/web3.js Keypair public key', () => {
    const address = Keypair.generate().publicKey.toBase58();
    expect(parseWallet(address)).toEqual({ wallet: address, chain: 'solana' });
  });

  it('accepts 32 bytes with leading zeros (the shortest base58 forms)', () => {
    // 32 zero bytes are 32 '1' characters: PublicKey.default, the System Program.
    const allZero = '1'.repeat(32);
    expect(allZero).toBe(PublicKey.default.toBase58());
    expect(parseWallet(allZero)).toEqual({ wallet: allZero, chain: 'solana' });
    const someZero = new Uint8Array(32);
    someZero.set(randomBytes(16), 16);
    const address = bs58.encode(someZero);
    expect(parseWallet(address)).toEqual({ wallet: address, chain: 'solana' });
  });

  it('rejects base58 that decodes to 31 or 33 bytes', () => {
    for (let i = 0; i < 20; i++) {
      expectInvalid(bs58.encode(randomBytes(31)));
      expectInvalid(bs58.encode(randomBytes(33)));
      // Leading zero bytes keep the text short enough to pass any length-only pre-check.
      expectInvalid(bs58.encode(Buffer.concat([Buffer.alloc(2), randomBytes(31)])));
    }
    expectInvalid('1'.repeat(31));
    expectInvalid('1'.repeat(33));
  });

  it('rejects characters outside the base58 alphabet (0, O, I, l)', () => {
    const address = bs58.encode(nacl.sign.keyPair().publicKey);
    for (const bad of ['0', 'O', 'I', 'l', '+', '/', '=', '-', '_', ' ']) {
      expectInvalid(`${address.slice(0, 10)}${bad}${address.slice(11)}`);
      expectInvalid(`${bad}${address.slice(1)}`);
    }
  });

  it('does not treat the base58 of a valid key as EVM or vice versa', () => {
    const evm = randomEvmAddress();
    expect(parseWallet(evm).chain).toBe('evm');
    expect(parseWallet(bs58.encode(nacl.sign.keyPair().publicKey)).chain).toBe('solana');
  });
});

describe('parseWallet: anything else', () => {
  it('rejects the empty string', () => {
    expectInvalid('');
  });

  it('rejects very long strings quickly', () => {
    const started = performance.now();
    expectInvalid('1'.repeat(45));
    expectInvalid('1'.repeat(10_000));
    expectInvalid('z'.repeat(1_000_000));
    expectInvalid(`0x${'a'.repeat(1_000_000)}`);
    expectInvalid(bs58.encode(randomBytes(1_000)));
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('rejects other shapes', () => {
    for (const input of ['0x', 'hello', 'null', 'undefined', '💰', `${'1'.repeat(31)}\u0000`]) {
      expectInvalid(input);
    }
  });
});
