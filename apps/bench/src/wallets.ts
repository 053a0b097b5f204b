/**
 * Bench wallets of both families, signing on native paths (libsecp256k1, OpenSSL Ed25519) so
 * that tens of thousands of sign-in messages are ready in seconds; and the bare verification
 * a hand-written handler would do, which is both the raw ceiling and the baseline's verifier.
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign,
  verify,
} from 'node:crypto';
import bs58 from 'bs58';
import secp256k1 from 'secp256k1';
import { checksumAddress, hashMessage, keccak256 } from 'viem';

export interface BenchWallet {
  chain: 'evm' | 'solana';
  /** Canonical address, as the service stores it. */
  address: string;
  sign(message: string): string;
}

/** A new random EVM wallet, or the one of `privateKey` (32 bytes, e.g. kept by a cached bench database). */
export function evmWallet(from?: Buffer): BenchWallet & { privateKey: Buffer } {
  let privateKey: Buffer;
  if (from) privateKey = from;
  else {
    do privateKey = randomBytes(32);
    while (!secp256k1.privateKeyVerify(privateKey));
  }
  const publicKey = secp256k1.publicKeyCreate(privateKey, false);
  const address = checksumAddress(
    `0x${Buffer.from(keccak256(publicKey.subarray(1), 'bytes').subarray(12)).toString('hex')}`,
  );
  return {
    chain: 'evm',
    address,
    privateKey,
    sign(message) {
      // personal_sign: r || s || v with v = 27 + recovery id.
      const { signature, recid } = secp256k1.ecdsaSign(hashMessage(message, 'bytes'), privateKey);
      return `0x${Buffer.from(signature).toString('hex')}${(27 + recid).toString(16)}`;
    },
  };
}

/** PKCS#8 DER of an Ed25519 private key, before its 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** A new random Solana wallet, or the one of a 32-byte `seed` (e.g. kept by a cached bench database). */
export function solanaWallet(seed?: Buffer): BenchWallet {
  const { publicKey, privateKey } = seed
    ? (() => {
        const key = createPrivateKey({
          key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
          format: 'der',
          type: 'pkcs8',
        });
        return { privateKey: key, publicKey: createPublicKey(key) };
      })()
    : generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
  return {
    chain: 'solana',
    address: bs58.encode(raw),
    sign: (message) => bs58.encode(sign(null, Buffer.from(message, 'utf8'), privateKey)),
  };
}

/** EIP-191 personal_sign check straight on libsecp256k1: hash, recover, keccak, compare. */
export function bareVerifyEvm(address: string, message: string, signature: string): boolean {
  return evmSignatureRecovers(address, hashMessage(message, 'bytes'), signature);
}

/**
 * Whether the 65-byte `r || s || v` `signature` (hex, `0x` optional) over the 32-byte `digest`
 * recovers to `address` on libsecp256k1: recover the public key, keccak it, compare the last 20
 * bytes. The one raw EVM check: both the baseline's verifier and `statement-rows`' raw one.
 */
export function evmSignatureRecovers(address: string, digest: Uint8Array, signature: string): boolean {
  const bytes = Buffer.from(signature.startsWith('0x') ? signature.slice(2) : signature, 'hex');
  if (bytes.length !== 65) return false;
  const v = bytes[64] as number;
  try {
    const publicKey = secp256k1.ecdsaRecover(bytes.subarray(0, 64), v >= 27 ? v - 27 : v, digest, false);
    const recovered = Buffer.from(keccak256(publicKey.subarray(1), 'bytes').subarray(12));
    return recovered.equals(Buffer.from(address.slice(2), 'hex'));
  } catch {
    return false;
  }
}

const solanaKeys = new Map<string, KeyObject>();

/** Ed25519 on OpenSSL with the wallet's KeyObject built once. */
export function bareVerifySolana(address: string, message: string, signature: string): boolean {
  let key = solanaKeys.get(address);
  if (!key) {
    const x = Buffer.from(bs58.decode(address)).toString('base64url');
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    solanaKeys.set(address, key);
  }
  try {
    return verify(null, Buffer.from(message, 'utf8'), key, bs58.decode(signature));
  } catch {
    return false;
  }
}
