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
import { keccak256 } from 'viem';
import { decodeBase58 } from './base58.js';
import type { ParsedWallet } from './wallet.js';

/** 65 bytes (r ‖ s ‖ v) or EIP-2098's 64 (r ‖ yParityAndS), in hex. */
const SIGNATURE_HEX = /^(0x)?(?:[0-9a-fA-F]{128}|[0-9a-fA-F]{130})$/;
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{1,100}$/;

/** v byte → recovery bit, the same rule as viem's: 0/1 as they are, 27/28 shifted. */
function recoveryBit(v: number): 0 | 1 | null {
  if (v === 0 || v === 27) return 0;
  if (v === 1 || v === 28) return 1;
  return null;
}

/**
 * r ‖ s and the recovery bit of a 65-byte signature, or of an EIP-2098 compact one
 * (https://eips.ethereum.org/EIPS/eip-2098): 64 bytes, r then `yParityAndS`, whose top bit
 * is the y parity and whose other 255 bits are s. A compact signature can only carry a low s
 * (below 2^255), as every wallet produces since EIP-2.
 */
function splitSignature(bytes: Uint8Array): { rs: Uint8Array; bit: 0 | 1 } | null {
  if (bytes.length === 64) {
    const rs = new Uint8Array(bytes);
    const bit = ((rs[32] as number) >> 7) as 0 | 1;
    rs[32] = (rs[32] as number) & 0x7f;
    return { rs, bit };
  }
  const bit = recoveryBit(bytes[64] as number);
  return bit === null ? null : { rs: bytes.subarray(0, 64), bit };
}

/** The 20-byte address whose key signed the 32-byte `hash`, or null for a malformed signature. */
function recoverAddressBytes(hash: Uint8Array, signature: string): Uint8Array | null {
  if (!SIGNATURE_HEX.test(signature)) return null;
  // The pattern admits even-length hex only, which Buffer decodes natively (viem's hexToBytes
  // is a loop in JavaScript, ≈2 µs a signature).
  const split = splitSignature(Buffer.from(signature.startsWith('0x') ? signature.slice(2) : signature, 'hex'));
  if (!split) return null;
  try {
    const publicKey = secp256k1.ecdsaRecover(split.rs, split.bit, hash, false);
    return keccak256(publicKey.subarray(1), 'bytes').subarray(12);
  } catch {
    // r or s out of range, or no point recovers: not a signature of anyone.
    return null;
  }
}

/**
 * True when `signature` is an EIP-191 personal_sign of `message` by `address` (a canonical
 * 0x address): 65 bytes, or 64 in EIP-2098's compact form. Malformed input is simply not a
 * valid signature. Contract accounts are checked on chain by `verifyEvmContractSignature`.
 */
export function verifyEvmSignature(address: string, message: string, signature: string): boolean {
  const recovered = recoverAddressBytes(personalMessageHash(message), signature);
  return recovered !== null && Buffer.compare(recovered, Buffer.from(address.slice(2), 'hex')) === 0;
}

/**
 * EIP-191's personal_sign hash, keccak256("\x19Ethereum Signed Message:\n" + byte length +
 * message), over the message's UTF-8 bytes encoded once. viem's `hashMessage` gives the same
 * hash (the differential test holds the two together) by way of hex strings: the message
 * encoded, written as hex, and the hex read back into bytes, ≈5 µs for a 400-byte statement.
 */
export function personalMessageHash(message: string): Uint8Array {
  const body = Buffer.from(message, 'utf8');
  const prefix = Buffer.from(`\x19Ethereum Signed Message:\n${body.length}`, 'latin1');
  return keccak256(Buffer.concat([prefix, body], prefix.length + body.length), 'bytes');
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

/*
 * The Solana off-chain message envelope, which a Ledger device (and any wallet that signs
 * through one) signs instead of the raw text. Specification followed: "Off-chain message
 * signing", version 0 header
 * (https://github.com/anza-xyz/agave/blob/master/docs/src/proposals/off-chain-message-signing.md),
 * and its earlier layout as implemented in solana-labs' `sdk/src/offchain_message.rs` (v1.14+),
 * which Ledger's Solana app also signs:
 *
 *   legacy:   "\xffsolana offchain" | version 0 | format | length u16 LE | body
 *   extended: "\xffsolana offchain" | version 0 | application domain (32) | format |
 *             signer count | signers (32 each) | length u16 LE | body
 *
 * Format 0 is restricted ASCII (0x20–0x7e), 1 UTF-8 and 2 extended UTF-8; 0 and 1 fit the
 * hardware limit of 1232 bytes for preamble and body together, 2 takes a body up to 65535
 * bytes. An encoder picks the first format the body fits, and so do we: the envelope is
 * rebuilt from the text to sign, never parsed from the client, so there is nothing to
 * confuse. For the extended layout the application domain is 32 zero bytes (the default of
 * Ledger's signer kit, which has no application of ours to name) and the only signer is the
 * wallet itself.
 */
const OFFCHAIN_SIGNING_DOMAIN = Buffer.from('\xffsolana offchain', 'latin1');
const OFFCHAIN_HARDWARE_LIMIT = 1232;
const OFFCHAIN_MAX_BODY = 65_535;
const RESTRICTED_ASCII = /^[\x20-\x7e]*$/;

/** The envelope's message format for `body`, or null when no format can carry it. */
function offchainFormat(text: string, body: Uint8Array, preambleLength: number): 0 | 1 | 2 | null {
  if (body.length === 0) return null;
  const fitsHardware = preambleLength + body.length <= OFFCHAIN_HARDWARE_LIMIT;
  if (fitsHardware && RESTRICTED_ASCII.test(text)) return 0;
  if (fitsHardware) return 1;
  return body.length <= OFFCHAIN_MAX_BODY ? 2 : null;
}

/**
 * A version 0 envelope around `text`: the signing domain and the version byte, then `fill`
 * writes the rest of the `preamble`-byte header (format, length, …); null when the text cannot
 * be carried.
 */
function offchainEnvelope(
  text: string,
  preamble: number,
  fill: (header: Buffer, format: number, length: number) => void,
): Uint8Array | null {
  const body = Buffer.from(text, 'utf8');
  const format = offchainFormat(text, body, preamble);
  if (format === null) return null;
  const header = Buffer.alloc(preamble);
  OFFCHAIN_SIGNING_DOMAIN.copy(header, 0);
  header[16] = 0;
  fill(header, format, body.length);
  return Buffer.concat([header, body]);
}

/** The legacy version 0 envelope around `text`, or null when the text cannot be carried. */
function solanaOffchainLegacyEnvelope(text: string): Uint8Array | null {
  return offchainEnvelope(text, OFFCHAIN_SIGNING_DOMAIN.length + 1 + 1 + 2, (header, format, length) => {
    header[17] = format;
    header.writeUInt16LE(length, 18);
  });
}

/** The extended version 0 envelope (application domain of zeros, `signer` alone) around `text`. */
function solanaOffchainEnvelope(text: string, signer: Uint8Array): Uint8Array | null {
  return offchainEnvelope(text, OFFCHAIN_SIGNING_DOMAIN.length + 1 + 32 + 1 + 1 + 32 + 2, (header, format, length) => {
    // Bytes 17..48: the application domain, left zero.
    header[49] = format;
    header[50] = 1;
    header.set(signer, 51);
    header.writeUInt16LE(length, 83);
  });
}

/**
 * Runs `check` with `address`'s key and the 64 bytes of `signature` (base58); false for a
 * malformed signature, a small-order key, or anything that throws (an invalid curve point).
 */
function withEd25519(
  address: string,
  signature: string,
  check: (key: KeyObject, bytes: Uint8Array) => boolean,
): boolean {
  if (!BASE58.test(signature)) return false;
  const bytes = decodeBase58(signature);
  if (bytes === null || bytes.length !== 64) return false;
  try {
    const key = ed25519Key(address);
    return key !== null && check(key, bytes);
  } catch {
    // Not a valid curve point for a key, for instance.
    return false;
  }
}

/**
 * True when `signature` (base58, 64 bytes) is an ed25519 signature by `address` of the UTF-8
 * message, or of the message in either layout of the off-chain message envelope above.
 */
export function verifySolanaSignature(address: string, message: string, signature: string): boolean {
  return withEd25519(address, signature, (key, bytes) => {
    if (verifyEd25519(null, Buffer.from(message, 'utf8'), key, bytes)) return true;
    const legacy = solanaOffchainLegacyEnvelope(message);
    if (legacy && verifyEd25519(null, legacy, key, bytes)) return true;
    const extended = solanaOffchainEnvelope(message, bs58.decode(address));
    return extended !== null && verifyEd25519(null, extended, key, bytes);
  });
}

/**
 * True when `signature` (base58, 64 bytes) is an Ed25519 signature by `publicKey` (base58 of 32
 * bytes) of exactly the UTF-8 bytes of `message`, with no envelope: the signed statements, which
 * an auditor checks byte for byte, take nothing else.
 */
export function verifyEd25519Signature(publicKey: string, message: string, signature: string): boolean {
  return withEd25519(publicKey, signature, (key, bytes) =>
    verifyEd25519(null, Buffer.from(message, 'utf8'), key, bytes),
  );
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
