/**
 * Browser wallets, as a customer's app would connect them: the EVM wallets EIP-6963 announces
 * (each EIP-1193 provider through a viem wallet client) and the Solana wallets the Wallet
 * Standard registers (`wallet-discovery.ts`), the injected `window.ethereum` / `window.solana`
 * as fallbacks. Each becomes an SDK `Signer`.
 */
import type { Chain, Signer } from '@signal/sdk';
import { evmSigner } from '@signal/sdk/evm';
import { solanaSigner } from '@signal/sdk/solana';
import { createWalletClient, custom } from 'viem';
import { NoWalletError } from './api';
import { discoveredWallets, type WalletInfo } from './wallet-discovery';

export const CHAIN_LABEL: Record<Chain, string> = { evm: 'EVM', solana: 'Solana' };

export const WALLET_HINT: Record<Chain, string> = {
  evm: 'No EVM wallet in this browser: install one (MetaMask, Rabby, Coinbase Wallet, …).',
  solana: 'No Solana wallet in this browser: install one (Phantom, Solflare, Backpack, …).',
};

/** The wallets of each family in this browser. Read at render time: extensions announce late. */
export function installedWallets(): Record<Chain, WalletInfo[]> {
  return discoveredWallets();
}

/** The wallet that signed in last, per family, so signing out lets go of that one. */
const connected: Partial<Record<Chain, WalletInfo>> = {};

/**
 * A signer for the chosen wallet (by id; default the family's first). Nothing is signed yet:
 * the SDK asks for the signature when it signs in, with the family's sign-in message (SIWE or
 * SIWS) naming this page's host.
 */
export async function connectWallet(chain: Chain, walletId?: string): Promise<Signer> {
  const candidates = discoveredWallets()[chain];
  const wallet = candidates.find((w) => w.id === walletId) ?? candidates[0];
  if (!wallet) throw new NoWalletError(WALLET_HINT[chain]);
  connected[chain] = wallet;
  return signerOf(wallet);
}

/** The SDK signer of a discovered wallet (the publisher page signs statements with it, as sign-in does). */
export async function signerOf(wallet: WalletInfo): Promise<Signer> {
  if (wallet.kind === 'evm') {
    // No account: evmSigner asks the wallet (eth_requestAccounts) at each sign-in, so an account
    // switched in the wallet is the one that signs in next time.
    return evmSigner(createWalletClient({ transport: custom(wallet.provider) }));
  }
  const account = await wallet.connect();
  const publicKey = { toBase58: () => account.address, toString: () => account.address };
  return solanaSigner({ publicKey, signMessage: (message: Uint8Array) => account.signMessage(message) });
}

/** Lets go of the wallet where the wallet has a notion of it (Solana wallets do; EIP-1193 has none). */
export async function disconnectWallet(chain: Chain): Promise<void> {
  const wallet = connected[chain];
  delete connected[chain];
  if (wallet?.kind === 'solana') await wallet.disconnect();
}

/** `0x52908400…4169EE7` / `7Np4…Xz9q`: enough to recognise, short enough for a header. */
export function shortWallet(wallet: string): string {
  const head = wallet.startsWith('0x') ? 6 : 4;
  return wallet.length <= head + 6 ? wallet : `${wallet.slice(0, head)}…${wallet.slice(-4)}`;
}
