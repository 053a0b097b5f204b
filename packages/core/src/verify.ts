/**
 * Server-side signature verification on the fast native paths: libsecp256k1 (the
 * `secp256k1` package) for EVM recovery and Node's OpenSSL Ed25519 for Solana. viem and
 * tweetnacl stay the reference implementations; the differential test holds both to the
 * same verdict on a corpus of valid and invalid signatures.
 */
import { createPublicKey, type KeyObject, verify as verifyEd25519 } from 'node:crypto';
import { createRequire } from 'node:module';
import bs58 from 'bs58';
import secp256k1 from 'secp256k1';
import { hashMessage, hexToBytes, keccak256 } from 'viem';
import type { ParsedWallet } from './wallet.js';

const SIGNATURE_HEX = /^(0x)?[0-9a-fA-F]{130}$/;
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{1,100}$/;

/** v byte → recovery bit, the same rule as viem's: 0/1 as they are, 27/28 shifted. */
function recoveryBit(v: number): 0 | 1 | null {
  if (v === 0 || v === 27) return 0;
  if (v === 1 || v === 28) return 1;
  return null;
}

/**
 * True when `signature` is an EIP-191 personal_sign of `message` by `address`
 * (a canonical 0x address). Malformed input is simply not a valid signature.
 */
export function verifyEvmSignature(address: string, message: string, signature: string): boolean {
  if (!SIGNATURE_HEX.test(signature)) return false;
  const bytes = hexToBytes(`0x${signature.length === 132 ? signature.slice(2) : signature}`);
  const bit = recoveryBit(bytes[64] as number);
  if (bit === null) return false;
  let publicKey: Uint8Array;
  try {
    publicKey = secp256k1.ecdsaRecover(bytes.subarray(0, 64), bit, hashMessage(message, 'bytes'), false);
  } catch {
    // r or s out of range, or no point recovers: not a signature of anyone.
    return false;
  }
  const recovered = keccak256(publicKey.subarray(1), 'bytes').subarray(12);
  const expected = hexToBytes(address as `0x${string}`);
  return Buffer.compare(recovered, expected) === 0;
}

// Building a KeyObject costs more than the verification itself, so verified wallets keep
// theirs. Bounded so that a stream of distinct wallets cannot grow memory without limit.
const ED25519_KEY_CACHE_SIZE = 10_000;
const ed25519Keys = new Map<string, KeyObject>();

/**
 * Encodings (sign bit ignored) of the Ed25519 points of small order, canonical or not, as in
 * libsodium's blocklist. Under such a "public key" a crafted signature verifies for any
 * message, and nobody holds its private key, so no signature by it is accepted.
 */
const SMALL_ORDER_KEYS = [
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0100000000000000000000000000000000000000000000000000000000000000',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
];

function hasSmallOrder(raw: Uint8Array): boolean {
  const unsigned = Buffer.from(raw);
  unsigned[31] = (unsigned[31] as number) & 0x7f;
  return SMALL_ORDER_KEYS.includes(unsigned.toString('hex'));
}

function ed25519Key(address: string): KeyObject | null {
  let key = ed25519Keys.get(address);
  if (key) return key;
  const raw = bs58.decode(address);
  if (hasSmallOrder(raw)) return null;
  key = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') },
    format: 'jwk',
  });
  if (ed25519Keys.size >= ED25519_KEY_CACHE_SIZE) {
    const oldest = ed25519Keys.keys().next().value;
    if (oldest !== undefined) ed25519Keys.delete(oldest);
  }
  ed25519Keys.set(address, key);
  return key;
}

/** True when `signature` (base58, 64 bytes) is an ed25519 signature of the UTF-8 message. */
export function verifySolanaSignature(address: string, message: string, signature: string): boolean {
  if (!BASE58.test(signature)) return false;
  const bytes = bs58.decode(signature);
  if (bytes.length !== 64) return false;
  try {
    const key = ed25519Key(address);
    return key !== null && verifyEd25519(null, Buffer.from(message, 'utf8'), key, bytes);
  } catch {
    // Not a valid curve point for a key, for instance.
    return false;
  }
}

/** Verifies a signature by a parsed (canonical) wallet of either family. */
export function verifyWalletSignature(wallet: ParsedWallet, message: string, signature: string): boolean {
  return wallet.chain === 'evm'
    ? verifyEvmSignature(wallet.wallet, message, signature)
    : verifySolanaSignature(wallet.wallet, message, signature);
}

/**
 * Which secp256k1 the EVM path runs on: `native` (libsecp256k1 through the package's prebuilt
 * or compiled binding) or `js`, the pure-JS elliptic fallback the package loads, without a
 * word, when the binding cannot load (an unsupported platform, a failed build), which makes
 * every EVM sign-in many times slower. The server names it at start and warns on `js`.
 */
export function secp256k1Backend(): 'native' | 'js' {
  // The package's entry is `try { require('./bindings') } catch { require('./elliptic') }`:
  // it is native exactly when what it exported is what its bindings module exports.
  const require = createRequire(import.meta.url);
  try {
    return require('secp256k1/bindings') === secp256k1 ? 'native' : 'js';
  } catch {
    return 'js';
  }
}
