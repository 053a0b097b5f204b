/**
 * Browser wallets, as a customer's app would connect them: an injected EIP-1193 provider
 * (`window.ethereum`) through a viem wallet client, or an injected Solana wallet
 * (`window.solana`) in the wallet-adapter shape. Both become an SDK `Signer`.
 */
import type { Chain, Signer } from '@signal/sdk';
import { evmSigner } from '@signal/sdk/evm';
import { solanaSigner } from '@signal/sdk/solana';
import { createWalletClient, custom } from 'viem';
import { NoWalletError } from './api';

export const CHAIN_LABEL: Record<Chain, string> = { evm: 'EVM', solana: 'Solana' };

export const WALLET_HINT: Record<Chain, string> = {
  evm: 'No EVM wallet in this browser: install one that injects window.ethereum (MetaMask, Rabby, …).',
  solana: 'No Solana wallet in this browser: install one that injects window.solana (Phantom, Solflare, …).',
};

/** Which wallet families this browser has. Read at render time: extensions inject late. */
export function installedWallets(): Record<Chain, boolean> {
  return { evm: Boolean(window.ethereum), solana: Boolean(window.solana) };
}

/**
 * A signer for the chosen family. Nothing is asked of the wallet yet: the SDK asks for the
 * account and the signature when it signs in.
 */
export async function connectWallet(chain: Chain): Promise<Signer> {
  if (chain === 'evm') {
    const provider = window.ethereum;
    if (!provider) throw new NoWalletError(WALLET_HINT.evm);
    // No account: evmSigner asks the wallet (eth_requestAccounts) at each sign-in, so an account
    // switched in the wallet is the one that signs in next time.
    return evmSigner(createWalletClient({ transport: custom(provider) }));
  }
  const wallet = window.solana;
  if (!wallet) throw new NoWalletError(WALLET_HINT.solana);
  // Injected Solana wallets expose publicKey only once connected (the user approves this site).
  if (!wallet.publicKey) await wallet.connect();
  return solanaSigner(wallet);
}

/** Lets go of the wallet where the wallet has a notion of it (Solana wallets do; EIP-1193 has none). */
export async function disconnectWallet(chain: Chain): Promise<void> {
  if (chain === 'solana') await window.solana?.disconnect?.().catch(() => {});
}

/** `0x52908400…4169EE7` / `7Np4…Xz9q`: enough to recognise, short enough for a header. */
export function shortWallet(wallet: string): string {
  const head = wallet.startsWith('0x') ? 6 : 4;
  return wallet.length <= head + 6 ? wallet : `${wallet.slice(0, head)}…${wallet.slice(-4)}`;
}
