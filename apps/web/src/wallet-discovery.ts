/**
 * Finding the wallets a browser has, so a user with several extensions chooses which signs in:
 * - EVM: EIP-6963 (https://eips.ethereum.org/EIPS/eip-6963). Each wallet answers an
 *   `eip6963:requestProvider` event with `eip6963:announceProvider` carrying its name, icon,
 *   rdns and its own EIP-1193 provider; `window.ethereum` (one wallet, whichever injected last)
 *   is the fallback for wallets that predate it.
 * - Solana: the Wallet Standard's registration protocol (`@wallet-standard/app`'s `getWallets`
 *   speaks the same events): the app dispatches `wallet-standard:app-ready` with a `register`
 *   function, and wallets that load later dispatch `wallet-standard:register-wallet` with a
 *   callback that calls it. Wallets with `standard:connect` and `solana:signMessage` qualify;
 *   `window.solana` is the fallback.
 * Written out rather than imported: the two protocols are a few events each.
 */
import type { EIP1193Provider } from 'viem';

export interface EvmWalletInfo {
  kind: 'evm';
  id: string;
  name: string;
  icon: string | undefined;
  provider: EIP1193Provider;
}

/** The parts of a Wallet Standard wallet this app uses. */
export interface StandardWallet {
  name: string;
  icon?: string;
  chains: readonly string[];
  accounts: readonly StandardAccount[];
  features: Record<string, unknown>;
}
export interface StandardAccount {
  address: string;
  publicKey: Uint8Array;
  chains: readonly string[];
  features: readonly string[];
}
interface ConnectFeature {
  connect(input?: { silent?: boolean }): Promise<{ accounts: readonly StandardAccount[] }>;
}
interface DisconnectFeature {
  disconnect(): Promise<void>;
}
interface SignMessageFeature {
  signMessage(
    ...inputs: { account: StandardAccount; message: Uint8Array }[]
  ): Promise<readonly { signedMessage: Uint8Array; signature: Uint8Array }[]>;
}

export interface SolanaWalletInfo {
  kind: 'solana';
  id: string;
  name: string;
  icon: string | undefined;
  /** The account to sign with, after asking the wallet to connect this site. */
  connect(): Promise<{ address: string; signMessage(message: Uint8Array): Promise<Uint8Array> }>;
  disconnect(): Promise<void>;
}

export type WalletInfo = EvmWalletInfo | SolanaWalletInfo;

interface Eip6963Detail {
  info: { uuid: string; name: string; icon: string; rdns: string };
  provider: EIP1193Provider;
}

const evmWallets = new Map<string, EvmWalletInfo>();
const standardWallets = new Set<StandardWallet>();
const listeners = new Set<() => void>();
const changed = () => {
  for (const listener of listeners) listener();
};

/** Image URLs wallets announce: data: URIs only (EIP-6963 says so), never a request elsewhere. */
const safeIcon = (icon: string | undefined) => (icon?.startsWith('data:image/') ? icon : undefined);

function onAnnounce(event: Event) {
  const detail = (event as CustomEvent<Eip6963Detail>).detail;
  if (!detail?.info?.uuid || !detail.provider) return;
  const { uuid, name, icon, rdns } = detail.info;
  // One entry per wallet: a wallet announcing again (page re-requested) replaces itself.
  evmWallets.set(rdns || uuid, {
    kind: 'evm',
    id: `eip6963:${rdns || uuid}`,
    name,
    icon: safeIcon(icon),
    provider: detail.provider,
  });
  changed();
}

function register(...wallets: StandardWallet[]) {
  for (const wallet of wallets) standardWallets.add(wallet);
  changed();
  return () => {
    for (const wallet of wallets) standardWallets.delete(wallet);
    changed();
  };
}

let started = false;

/** Starts listening (once) and asks every wallet present to announce itself. */
export function startWalletDiscovery(): void {
  if (started) return;
  started = true;
  window.addEventListener('eip6963:announceProvider', onAnnounce);
  window.dispatchEvent(new Event('eip6963:requestProvider'));
  const api = { register };
  window.addEventListener('wallet-standard:register-wallet', (event) => {
    const callback = (event as CustomEvent<(api: { register: typeof register }) => void>).detail;
    if (typeof callback === 'function') callback(api);
  });
  window.dispatchEvent(new CustomEvent('wallet-standard:app-ready', { detail: api }));
}

/** Re-runs a component when a wallet appears (extensions announce late). */
export function onWalletsChanged(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function solanaFromStandard(wallet: StandardWallet): SolanaWalletInfo | undefined {
  const connect = wallet.features['standard:connect'] as ConnectFeature | undefined;
  const sign = wallet.features['solana:signMessage'] as SignMessageFeature | undefined;
  const disconnect = wallet.features['standard:disconnect'] as DisconnectFeature | undefined;
  if (!connect || !sign || !wallet.chains.some((chain) => chain.startsWith('solana:'))) return undefined;
  return {
    kind: 'solana',
    id: `standard:${wallet.name}`,
    name: wallet.name,
    icon: safeIcon(wallet.icon),
    async connect() {
      const { accounts } = await connect.connect();
      const account = accounts.find((a) => a.chains.some((chain) => chain.startsWith('solana:'))) ?? accounts[0];
      if (!account) throw new Error(`${wallet.name} connected no account`);
      return {
        address: account.address,
        async signMessage(message) {
          const [output] = await sign.signMessage({ account, message });
          if (!output) throw new Error(`${wallet.name} returned no signature`);
          return output.signature;
        },
      };
    },
    async disconnect() {
      await disconnect?.disconnect().catch(() => {});
    },
  };
}

/** The wallets of each family this browser has now, in the order they made themselves known. */
export function discoveredWallets(): { evm: EvmWalletInfo[]; solana: SolanaWalletInfo[] } {
  const evm = [...evmWallets.values()];
  if (evm.length === 0 && window.ethereum) {
    evm.push({ kind: 'evm', id: 'injected', name: 'Browser wallet', icon: undefined, provider: window.ethereum });
  }
  const solana = [...standardWallets].map(solanaFromStandard).filter((w): w is SolanaWalletInfo => w !== undefined);
  const injected = window.solana;
  if (solana.length === 0 && injected) {
    solana.push({
      kind: 'solana',
      id: 'injected',
      name: 'Browser wallet',
      icon: undefined,
      async connect() {
        if (!injected.publicKey) await injected.connect();
        const key = injected.publicKey;
        if (!key) throw new Error('the wallet connected no account');
        return {
          address: key.toBase58(),
          async signMessage(message) {
            const signed = await injected.signMessage(message, 'utf8');
            return signed instanceof Uint8Array ? signed : signed.signature;
          },
        };
      },
      async disconnect() {
        await injected.disconnect?.().catch(() => {});
      },
    });
  }
  return { evm, solana };
}
