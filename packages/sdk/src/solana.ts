/**
 * Solana signers: a wallet in the wallet-adapter / wallet-standard shape (`publicKey` and
 * `signMessage(bytes)`, as `useWallet()` returns and injected wallets such as Phantom expose),
 * or a `@solana/web3.js` `Keypair` (servers, scripts, tests). The API verifies an ed25519
 * signature of the message's UTF-8 bytes, sent as base58 of its 64 bytes.
 *
 * `@solana/web3.js` is only a type here. Keypairs are signed with tweetnacl, loaded on first use:
 * a browser app signing through its wallet never downloads it (≈12 KiB gzip).
 */
import type { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import type { Signer } from './signer.types.js';

export type { Signer } from './signer.types.js';

/** A connected Solana wallet that can sign messages. */
export interface SolanaMessageWallet {
  /** A `PublicKey` (or anything with `toBase58()` or a base58 `toString()`); null while disconnected. */
  readonly publicKey: { toBase58?(): string; toString(): string } | null | undefined;
  /**
   * Signs raw bytes. Wallet adapters return the signature; injected wallets (Phantom,
   * Solflare) return `{ signature }`. Optional in the adapter's types: wallets that cannot
   * sign messages leave it out.
   */
  readonly signMessage?:
    | ((message: Uint8Array) => Promise<Uint8Array | { readonly signature: Uint8Array }>)
    | undefined;
}

export type SolanaWallet = SolanaMessageWallet | Keypair;

const SIGNATURE_BYTES = 64;

function isKeypair(wallet: SolanaWallet): wallet is Keypair {
  return 'secretKey' in wallet && wallet.secretKey instanceof Uint8Array;
}

function encodeSignature(signature: Uint8Array): string {
  if (signature.length !== SIGNATURE_BYTES) {
    throw new Error(`the wallet returned a ${signature.length}-byte signature; ed25519 signatures have 64`);
  }
  return bs58.encode(signature);
}

/** A signer over a Solana wallet or a `Keypair`. */
export function solanaSigner(wallet: SolanaWallet): Signer {
  const encoder = new TextEncoder();
  if (isKeypair(wallet)) {
    return {
      chain: 'solana',
      getAddress: async () => wallet.publicKey.toBase58(),
      async signMessage(message) {
        const { default: nacl } = await import('tweetnacl');
        return encodeSignature(nacl.sign.detached(encoder.encode(message), wallet.secretKey));
      },
    };
  }
  return {
    chain: 'solana',
    async getAddress() {
      const key = wallet.publicKey;
      if (!key) throw new Error('the Solana wallet is not connected (publicKey is null)');
      return key.toBase58 ? key.toBase58() : key.toString();
    },
    async signMessage(message) {
      if (!wallet.signMessage) throw new Error('this Solana wallet cannot sign messages (no signMessage)');
      const signed = await wallet.signMessage(encoder.encode(message));
      return encodeSignature(signed instanceof Uint8Array ? signed : signed.signature);
    },
  };
}
