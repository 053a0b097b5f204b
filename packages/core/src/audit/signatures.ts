/**
 * A statement's signature checked without Node built-ins (the browser's `verifySignal` and the
 * audit CLI share it): EVM wallets by EIP-191 `personal_sign` recovery on @noble/curves'
 * secp256k1 (65-byte signatures with v 27/28 or 0/1, and EIP-2098's 64-byte compact form, as
 * the server takes them), Solana wallets and delegated keys by Ed25519 over exactly the
 * statement's UTF-8 bytes. A contract wallet's signature (EIP-1271, EIP-6492) needs a chain:
 * without an `EvmChainCheck` it is `unchecked`, never taken as valid.
 */

import * as mod from '@noble/curves/abstract/modular';
import { ed25519 } from '@noble/curves/ed25519';
import { secp256k1 } from '@noble/curves/secp256k1';
import { sha256 } from '@noble/hashes/sha2';
import { keccak_256 } from '@noble/hashes/sha3';
import bs58 from 'bs58';
import { bytesEqual, utf8 } from '../log/bytes.js';

/**
 * The hash and Ed25519 the checks run on: @noble's by default (everywhere); the bin passes
 * node:crypto's, several times faster. Both must give the same answers (the tests run both).
 */
export interface AuditCrypto {
  sha256(data: Uint8Array): Uint8Array;
  /**
   * SHA-256 of `data` written to `out` at `at` (32 bytes), for the log's two million hashes:
   * optional, `sha256` copied there without it. The bin's writes node:crypto's digest with no
   * Buffer per hash.
   */
  sha256Into?(data: Uint8Array, out: Uint8Array, at: number): void;
  ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean;
}

/** `crypto`'s hash into a buffer (its `sha256Into`, else its `sha256` copied). */
export function hashInto(crypto: AuditCrypto): (data: Uint8Array, out: Uint8Array, at: number) => void {
  if (crypto.sha256Into) return crypto.sha256Into.bind(crypto);
  return (data, out, at) => out.set(crypto.sha256(data), at);
}

export const nobleCrypto: AuditCrypto = {
  sha256: (data) => sha256(data),
  // zip215: false is RFC 8032's strict verification, as OpenSSL's (the server's) is.
  ed25519Verify: (publicKey, message, signature) => ed25519.verify(signature, message, publicKey, { zip215: false }),
};

/** What a signature check may use: a chain for contract wallets, a faster crypto. */
export interface SignatureChecks {
  evmChain?: EvmChainCheck;
  crypto?: AuditCrypto;
}

/** Checks a contract wallet's signature on chain (e.g. viem's `publicClient.verifyMessage`). */
export interface EvmChainCheck {
  verifyMessage(address: string, message: string, signature: string): Promise<boolean>;
}

export type SignerKind = 'evm' | 'solana' | 'ed25519';

/** `valid`; `invalid`; `unchecked`: an EVM signature that is not the wallet key's and no chain to ask. */
export type SignatureVerdict = 'valid' | 'invalid' | 'unchecked';

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,88}$/;
const ED25519_PREFIX = 'ed25519:';

function hexBytes(hex: string): Uint8Array | null {
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(hex)) return null;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function toHexString(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** EIP-55: the address's checksummed spelling. */
export function checksumEvmAddress(address: string): string {
  const lower = address.slice(2).toLowerCase();
  const hash = toHexString(keccak_256(utf8(lower)));
  let out = '0x';
  for (let i = 0; i < lower.length; i++) out += Number.parseInt(hash[i]!, 16) >= 8 ? lower[i]!.toUpperCase() : lower[i];
  return out;
}

function base58Bytes(text: string, length: number): Uint8Array | null {
  if (!BASE58.test(text)) return null;
  try {
    const bytes = bs58.decode(text);
    return bytes.length === length ? bytes : null;
  } catch {
    return null;
  }
}

/**
 * The signer's kind when it is spelled canonically (an EIP-55 EVM address, a base58 Solana
 * wallet of 32 bytes, `ed25519:<base58 of 32 bytes>`), else null: the log and the signal
 * reads name signers canonically, so another spelling is itself a fault.
 */
export function canonicalSignerKind(signer: string): SignerKind | null {
  if (EVM_ADDRESS.test(signer)) return checksumEvmAddress(signer) === signer ? 'evm' : null;
  if (signer.startsWith(ED25519_PREFIX)) {
    return base58Bytes(signer.slice(ED25519_PREFIX.length), 32) ? 'ed25519' : null;
  }
  return base58Bytes(signer, 32) ? 'solana' : null;
}

/** EIP-191: keccak256("\x19Ethereum Signed Message:\n" + byte length + message). */
function personalMessageHash(message: string): Uint8Array {
  const bytes = utf8(message);
  const prefix = utf8(`\x19Ethereum Signed Message:\n${bytes.length}`);
  const all = new Uint8Array(prefix.length + bytes.length);
  all.set(prefix);
  all.set(bytes, prefix.length);
  return keccak_256(all);
}

/** A signature's (r, s) as 64 bytes and its recovery bit, from the 65- or 64-byte (EIP-2098) form; null when malformed. */
function splitEvmSignature(signature: string): { compact: Uint8Array; recovery: number } | null {
  if (!signature.startsWith('0x')) return null;
  const bytes = hexBytes(signature.slice(2));
  if (!bytes || (bytes.length !== 65 && bytes.length !== 64)) return null;
  if (bytes.length === 65) {
    const v = bytes[64]!;
    const recovery = v >= 27 ? v - 27 : v;
    return recovery === 0 || recovery === 1 ? { compact: bytes.slice(0, 64), recovery } : null;
  }
  // EIP-2098: the top bit of s is the y parity.
  const compact = bytes.slice();
  const recovery = compact[32]! >> 7;
  compact[32] = compact[32]! & 0x7f;
  return { compact, recovery };
}

const N = secp256k1.CURVE.n;
const G = secp256k1.ProjectivePoint.BASE;
/**
 * Ed25519's base point with a table of window 4 (512 points) instead of @noble's 8 (4,096):
 * the page that checks one signal verifies one checkpoint signature and few statement
 * signatures with @noble's Ed25519 (the bin has node:crypto's), so building the larger table
 * cost more than it saved (Node: the first verification 56 → 11 ms CPU, each later one about
 * 0.1 ms more: ahead until some 450 verifications). The same verdicts: the table only speeds up
 * multiplying the base point.
 */
ed25519.ExtendedPoint.BASE._setWindowSize(4);
/**
 * Public keys already recovered, by address (a provider signs with few wallets, many times), and
 * how many signatures each has checked: its table of multiples (window 8, 4,224 points, about
 * nine multiplications' work) is built only at the TABLE_AFTER_USES-th, so the few statements of
 * one signal (the browser's `verifySignal`) never pay for it and an audit's thousands soon do.
 */
const knownKeys = new Map<string, { point: InstanceType<typeof secp256k1.ProjectivePoint>; uses: number }>();
const TABLE_AFTER_USES = 8;

function bigintOf(bytes: Uint8Array): bigint {
  return BigInt(`0x${toHexString(bytes) || '0'}`);
}

/**
 * With the signer's public key known: does (r, s, recovery) recover to it? The same verdict as
 * recovering (R = s⁻¹·(z·G + r·P)… read the other way: u1·G + u2·P must be the nonce point,
 * with x = r and the recovery bit as its y parity), with no square root to find and, once the
 * key has its table of multiples (`knownKeys`), several times faster.
 */
function recoversTo(
  point: InstanceType<typeof secp256k1.ProjectivePoint>,
  hash: Uint8Array,
  compact: Uint8Array,
  recovery: number,
): boolean {
  const r = bigintOf(compact.subarray(0, 32));
  const s = bigintOf(compact.subarray(32, 64));
  if (r <= 0n || r >= N || s <= 0n || s >= N) return false;
  const z = bigintOf(hash) % N;
  const w = mod.invert(s, N);
  const u1 = (z * w) % N;
  const u2 = (r * w) % N;
  // The constant-time multiply: @noble/curves 1.9's multiplyUnsafe gave other points for
  // these scalars once windows were set (checked against multiply).
  const nonce = (u1 === 0n ? secp256k1.ProjectivePoint.ZERO : G.multiply(u1)).add(point.multiply(u2));
  if (nonce.equals(secp256k1.ProjectivePoint.ZERO)) return false;
  const { x, y } = nonce.toAffine();
  // x ≥ n (probability ~2⁻¹²⁸) would need recovery bits 2 and 3, which no wallet writes.
  return x === r && Number(y & 1n) === recovery;
}

/** Is this 65- or 64-byte signature of `message` made by the key of `address` (EIP-191 recovery)? */
function recoversToAddress(address: string, message: string, signature: string): boolean {
  const split = splitEvmSignature(signature);
  if (!split) return false;
  const hash = personalMessageHash(message);
  const known = knownKeys.get(address);
  if (known) {
    if (++known.uses === TABLE_AFTER_USES) known.point._setWindowSize(8);
    return recoversTo(known.point, hash, split.compact, split.recovery);
  }
  try {
    const point = secp256k1.Signature.fromCompact(split.compact).addRecoveryBit(split.recovery).recoverPublicKey(hash);
    const recovered = keccak_256(point.toRawBytes(false).slice(1)).slice(12);
    if (!bytesEqual(recovered, hexBytes(address.slice(2))!)) return false;
    if (knownKeys.size >= 1_000) knownKeys.clear();
    knownKeys.set(address, { point, uses: 1 });
    return true;
  } catch {
    return false;
  }
}

/** Ed25519 over the message's UTF-8 bytes; `publicKey` and `signature` base58 (32 and 64 bytes). */
function verifyEd25519(publicKey: string, message: string, signature: string, crypto: AuditCrypto): boolean {
  const key = base58Bytes(publicKey, 32);
  const sig = base58Bytes(signature, 64);
  if (!key || !sig) return false;
  try {
    return crypto.ed25519Verify(key, utf8(message), sig);
  } catch {
    return false;
  }
}

/** Is `signature` `signer`'s over the statement's UTF-8 bytes? See `SignatureVerdict`. */
export async function checkSignature(
  signer: string,
  statement: string,
  signature: string,
  checks: SignatureChecks = {},
): Promise<SignatureVerdict> {
  const { evmChain, crypto = nobleCrypto } = checks;
  const kind = canonicalSignerKind(signer);
  if (kind === null) return 'invalid';
  if (kind === 'ed25519') {
    return verifyEd25519(signer.slice(ED25519_PREFIX.length), statement, signature, crypto) ? 'valid' : 'invalid';
  }
  if (kind === 'solana') return verifyEd25519(signer, statement, signature, crypto) ? 'valid' : 'invalid';
  if (recoversToAddress(signer, statement, signature)) return 'valid';
  // Not the wallet key's: a contract wallet's signature, or a wrong one; only a chain can tell.
  if (!/^0x(?:[0-9a-fA-F]{2})+$/.test(signature)) return 'invalid';
  if (!evmChain) return 'unchecked';
  return (await evmChain.verifyMessage(signer, statement, signature)) ? 'valid' : 'invalid';
}
