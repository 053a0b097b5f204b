/**
 * Who signs a statement: a wallet (the sign-in `Signer` of `@signal/sdk/evm` or
 * `@signal/sdk/solana`: a viem account or wallet client, a Solana wallet or `Keypair`) or a key
 * the wallet delegated (`ed25519:<base58>`, for bots). Each signs the statement's UTF-8 bytes as
 * the API checks them: EVM personal_sign, Ed25519 for the others. A Solana wallet must sign the
 * bytes themselves: a signature of Solana's off-chain message envelope (what a Ledger signs) is
 * refused for statements, so a Ledger user delegates a key instead.
 *
 * tweetnacl is loaded on first use, as in the Solana adapter.
 */
import bs58 from 'bs58';
import type { Signer } from './signer.types.js';

export interface StatementSigner {
  /** The body's `signer`: the wallet address, or `ed25519:<base58 of the public key>`. */
  signerId(): Promise<string>;
  /** The signature over the statement's UTF-8 bytes, as the contract encodes it (hex or base58). */
  sign(statement: string): Promise<string>;
}

/** A statement signer over a wallet's sign-in signer (`evmSigner(account)`, `solanaSigner(keypair)`, …). */
export function walletStatementSigner(wallet: Signer): StatementSigner {
  return { signerId: () => wallet.getAddress(), sign: (statement) => wallet.signMessage(statement) };
}

const ED25519_PREFIX = 'ed25519:';

/** A delegated key's name on the wire: `ed25519:` and the base58 of its 32-byte public key. */
export function ed25519KeyName(publicKey: Uint8Array): string {
  if (publicKey.length !== 32) throw new Error(`an Ed25519 public key has 32 bytes, not ${publicKey.length}`);
  return `${ED25519_PREFIX}${bs58.encode(publicKey)}`;
}

export interface Ed25519Key {
  /** `ed25519:<base58>`: what a `key.delegate` statement names and what the key signs as. */
  key: string;
  /** tweetnacl's 64-byte secret key (seed ‖ public key): keep it where the bot runs, never send it. */
  secretKey: Uint8Array;
}

/** A fresh Ed25519 key for a bot, from the platform's secure random source. */
export async function generateEd25519Key(): Promise<Ed25519Key> {
  const { default: nacl } = await import('tweetnacl');
  const pair = nacl.sign.keyPair();
  return { key: ed25519KeyName(pair.publicKey), secretKey: pair.secretKey };
}

/**
 * A statement signer over a delegated Ed25519 key: tweetnacl's 64-byte secret key (as
 * `generateEd25519Key` returns it, or a `Keypair`'s `secretKey`) or its 32-byte seed.
 */
export function ed25519StatementSigner(secretKey: Uint8Array): StatementSigner {
  if (secretKey.length !== 32 && secretKey.length !== 64) {
    throw new Error(`an Ed25519 secret key has 64 bytes (or a 32-byte seed), not ${secretKey.length}`);
  }
  const encoder = new TextEncoder();
  // Derived from the seed, so a 64-byte key whose public half is not its seed's cannot sign as another key.
  const pair = import('tweetnacl').then(({ default: nacl }) => {
    const derived = nacl.sign.keyPair.fromSeed(secretKey.subarray(0, 32));
    if (secretKey.length === 64 && bs58.encode(derived.publicKey) !== bs58.encode(secretKey.subarray(32))) {
      throw new Error("the secret key's public half is not its seed's public key");
    }
    return derived;
  });
  // Reported when the key is used, not as an unhandled rejection now.
  pair.catch(() => {});
  return {
    signerId: async () => ed25519KeyName((await pair).publicKey),
    async sign(statement) {
      const { default: nacl } = await import('tweetnacl');
      return bs58.encode(nacl.sign.detached(encoder.encode(statement), (await pair).secretKey));
    },
  };
}
