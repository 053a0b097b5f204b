/**
 * The demo seed's publisher keys, derived here from their documented recipe (docs/demo-app.md,
 * "Signals in the demo") with other libraries than the seed's: the EVM wallet's private key is
 * SHA-256 of `signal demo publisher wallet <id>` (a viem account), the bot key's Ed25519 seed is
 * SHA-256 of `signal demo bot key <id>` (tweetnacl).
 */
import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** The private key of provider `providerId`'s demo publisher wallet. */
export const demoWalletKey = (providerId: number): `0x${string}` =>
  `0x${sha256(`signal demo publisher wallet ${providerId}`).toString('hex')}`;

export function demoWallet(providerId: number): PrivateKeyAccount {
  return privateKeyToAccount(demoWalletKey(providerId));
}

export function demoBotKey(providerId: number): { key: string; secretKey: Uint8Array } {
  const pair = nacl.sign.keyPair.fromSeed(sha256(`signal demo bot key ${providerId}`));
  return { key: `ed25519:${bs58.encode(pair.publicKey)}`, secretKey: pair.secretKey };
}
