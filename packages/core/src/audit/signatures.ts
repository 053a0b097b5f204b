/**
 * A statement's signature checked without Node built-ins (the browser's `verifySignal` and the
 * audit CLI share it): EVM wallets by EIP-191 `personal_sign` recovery on @noble/curves'
 * secp256k1 (65-byte signatures with v 27/28 or 0/1, and EIP-2098's 64-byte compact form, as
 * the server takes them), Solana wallets and delegated keys by Ed25519 over exactly the
 * statement's UTF-8 bytes. A contract wallet's signature (EIP-1271, EIP-6492) needs a chain:
 * without an `EvmChainCheck` it is `unchecked`, never taken as valid.
 */
import { ed25519 } from '@noble/curves/ed25519';
import { secp256k1 } from '@noble/curves/secp256k1';
import { keccak_256 } from '@noble/hashes/sha3';
import bs58 from 'bs58';
import { bytesEqual, utf8 } from '../log/bytes.js';

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

/** The address (20 bytes) whose key made this 65- or 64-byte signature of `message`, or null. */
function recoverEvmAddress(message: string, signature: string): Uint8Array | null {
  if (!signature.startsWith('0x')) return null;
  const bytes = hexBytes(signature.slice(2));
  if (!bytes || (bytes.length !== 65 && bytes.length !== 64)) return null;
  let compact: Uint8Array;
  let recovery: number;
  if (bytes.length === 65) {
    const v = bytes[64]!;
    recovery = v >= 27 ? v - 27 : v;
    if (recovery !== 0 && recovery !== 1) return null;
    compact = bytes.slice(0, 64);
  } else {
    // EIP-2098: the top bit of s is the y parity.
    compact = bytes.slice();
    recovery = compact[32]! >> 7;
    compact[32] = compact[32]! & 0x7f;
  }
  try {
    const point = secp256k1.Signature.fromCompact(compact)
      .addRecoveryBit(recovery)
      .recoverPublicKey(personalMessageHash(message));
    const uncompressed = point.toRawBytes(false);
    return keccak_256(uncompressed.slice(1)).slice(12);
  } catch {
    return null;
  }
}

/** Ed25519 over the message's UTF-8 bytes; `publicKey` and `signature` base58 (32 and 64 bytes). */
function verifyEd25519(publicKey: string, message: string, signature: string): boolean {
  const key = base58Bytes(publicKey, 32);
  const sig = base58Bytes(signature, 64);
  if (!key || !sig) return false;
  try {
    // zip215: false is RFC 8032's strict verification, as OpenSSL's (the server's) is.
    return ed25519.verify(sig, utf8(message), key, { zip215: false });
  } catch {
    return false;
  }
}

/** Is `signature` `signer`'s over the statement's UTF-8 bytes? See `SignatureVerdict`. */
export async function checkSignature(
  signer: string,
  statement: string,
  signature: string,
  evmChain?: EvmChainCheck,
): Promise<SignatureVerdict> {
  const kind = canonicalSignerKind(signer);
  if (kind === null) return 'invalid';
  if (kind === 'ed25519')
    return verifyEd25519(signer.slice(ED25519_PREFIX.length), statement, signature) ? 'valid' : 'invalid';
  if (kind === 'solana') return verifyEd25519(signer, statement, signature) ? 'valid' : 'invalid';
  const recovered = recoverEvmAddress(statement, signature);
  if (recovered && bytesEqual(recovered, hexBytes(signer.slice(2))!)) return 'valid';
  // Not the wallet key's: a contract wallet's signature, or a wrong one; only a chain can tell.
  if (!/^0x(?:[0-9a-fA-F]{2})+$/.test(signature)) return 'invalid';
  if (!evmChain) return 'unchecked';
  return (await evmChain.verifyMessage(signer, statement, signature)) ? 'valid' : 'invalid';
}
