/// <reference types="vite/client" />
import type { EIP1193Provider } from 'viem';

/**
 * What the app needs from an injected Solana wallet (Phantom, Solflare, Backpack all expose
 * this at `window.solana`): connect, then the wallet-adapter shape `@signal/sdk/solana` signs with.
 */
export interface InjectedSolanaWallet {
  readonly publicKey: { toBase58(): string; toString(): string } | null;
  connect(): Promise<unknown>;
  disconnect?(): Promise<void>;
  signMessage(message: Uint8Array, display?: 'utf8' | 'hex'): Promise<Uint8Array | { signature: Uint8Array }>;
}

declare global {
  interface Window {
    /** EIP-1193 provider of an injected EVM wallet (MetaMask, Rabby, Coinbase Wallet, …). */
    ethereum?: EIP1193Provider;
    solana?: InjectedSolanaWallet;
  }
  interface ImportMetaEnv {
    /** The API's origin when the app is not served by the API itself (default: the page's origin). */
    readonly VITE_SIGNAL_API_URL?: string;
    /** The log's verifier key to check the record against, pinned at build time (else: pinned on first use). */
    readonly VITE_SIGNAL_LOG_KEY?: string;
  }
}
