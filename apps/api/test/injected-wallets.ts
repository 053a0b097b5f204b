/**
 * Browser wallets for the demo app's tests, injected into the page the way extensions inject
 * theirs: `window.ethereum` (EIP-1193) and `window.solana` (the wallet-adapter shape Phantom
 * exposes). Keys stay in Node, where they really sign: a viem local account for personal_sign,
 * a tweetnacl keypair for ed25519. The page reaches them through functions exposed by
 * playwright; the injected objects only translate. Like a user, a test can make the wallet
 * decline the next request (EIP-1193's code 4001) or switch to a new key.
 */
import bs58 from 'bs58';
import type { Page } from 'playwright-core';
import nacl from 'tweetnacl';
import { type Hex, isHex } from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';

export interface InjectedWallet {
  /** The current account: EIP-55 address or base58 public key. */
  readonly address: string;
  /** Messages signed so far (UTF-8 text), oldest first. */
  readonly signed: string[];
  /** The next signature request is declined with code 4001, as when the user clicks "Reject". */
  rejectNext(): void;
  /** Replaces the key, like switching to another account in the wallet. */
  newAccount(): void;
  /**
   * Signs with the current key from Node, not through the page: the same wallet on another
   * device. The signature is in the API's encoding (hex for EVM, base58 for Solana); it is not
   * recorded in `signed` and ignores `rejectNext`.
   */
  signElsewhere(message: string): Promise<string>;
}

/** What an exposed function answers the page: a result, or a refusal the page throws as 4001. */
type Answer<T> = { ok: T } | { rejected: true };

function createWallet<Key>(
  make: () => Key,
  addressOf: (key: Key) => string,
  sign: (key: Key, message: Uint8Array) => Promise<string | number[]>,
) {
  let key = make();
  let reject = false;
  const signed: string[] = [];
  const wallet: InjectedWallet = {
    get address() {
      return addressOf(key);
    },
    signed,
    rejectNext() {
      reject = true;
    },
    newAccount() {
      key = make();
    },
    async signElsewhere(message) {
      const signature = await sign(key, new TextEncoder().encode(message));
      return typeof signature === 'string' ? signature : bs58.encode(Uint8Array.from(signature));
    },
  };
  const signFor = async (message: Uint8Array): Promise<Answer<string | number[]>> => {
    if (reject) {
      reject = false;
      return { rejected: true };
    }
    signed.push(new TextDecoder().decode(message));
    return { ok: await sign(key, message) };
  };
  return { wallet, signFor };
}

/** The page side: plain functions with no closure over Node values (they are serialised). */
function installInjectedWallets() {
  type Answer = { ok: unknown } | { rejected: true };
  // The page's window; this package compiles without the DOM library.
  const page = globalThis as unknown as Record<string, unknown>;
  const bridge = page as Record<string, (...args: unknown[]) => Promise<Answer>>;
  const unwrap = async (answer: Promise<Answer>) => {
    const result = await answer;
    if ('rejected' in result) throw Object.assign(new Error('User rejected the request.'), { code: 4001 });
    return result.ok;
  };
  const accounts = async () => [await unwrap(bridge.__walletEvmAddress!())];
  page.ethereum = {
    isMetaMask: false,
    async request({ method, params }: { method: string; params?: unknown[] }) {
      switch (method) {
        case 'eth_requestAccounts':
        case 'eth_accounts':
          return accounts();
        case 'eth_chainId':
          return '0x1';
        case 'personal_sign':
          return unwrap(bridge.__walletEvmSign!(params?.[0], params?.[1]));
        default:
          throw Object.assign(new Error(`${method} is not supported by the test wallet`), { code: 4200 });
      }
    },
    on() {},
    removeListener() {},
  };
  type Key = { toBase58(): string; toString(): string };
  const solana: { publicKey: Key | null; isConnected: boolean; [name: string]: unknown } = {
    publicKey: null,
    isConnected: false,
    async connect() {
      const text = (await unwrap(bridge.__walletSolanaConnect!())) as string;
      solana.publicKey = { toBase58: () => text, toString: () => text };
      solana.isConnected = true;
      return { publicKey: solana.publicKey };
    },
    async disconnect() {
      solana.publicKey = null;
      solana.isConnected = false;
    },
    async signMessage(message: Uint8Array) {
      const signature = (await unwrap(bridge.__walletSolanaSign!(Array.from(message)))) as number[];
      return { signature: Uint8Array.from(signature), publicKey: solana.publicKey };
    },
  };
  page.solana = solana;
}

/** Injects both wallets into every document the page loads (reloads included). */
export async function injectWallets(page: Page): Promise<{ evm: InjectedWallet; solana: InjectedWallet }> {
  const evm = createWallet<PrivateKeyAccount>(
    () => privateKeyToAccount(generatePrivateKey()),
    (account) => account.address,
    (account, message) => account.signMessage({ message: { raw: message } }),
  );
  const solana = createWallet(
    () => nacl.sign.keyPair(),
    (pair) => bs58.encode(pair.publicKey),
    async (pair, message) => Array.from(nacl.sign.detached(message, pair.secretKey)),
  );
  await page.exposeFunction('__walletEvmAddress', () => ({ ok: evm.wallet.address }));
  await page.exposeFunction('__walletEvmSign', (data: Hex, address: string) => {
    // personal_sign's params are the message as hex and the account that must sign it.
    if (!isHex(data) || address.toLowerCase() !== evm.wallet.address.toLowerCase()) {
      throw new Error(`personal_sign for ${address}, but the wallet holds ${evm.wallet.address}`);
    }
    return evm.signFor(Buffer.from(data.slice(2), 'hex'));
  });
  await page.exposeFunction('__walletSolanaConnect', () => ({ ok: solana.wallet.address }));
  await page.exposeFunction('__walletSolanaSign', (bytes: number[]) => solana.signFor(Uint8Array.from(bytes)));
  await page.addInitScript(installInjectedWallets);
  return { evm: evm.wallet, solana: solana.wallet };
}

/**
 * The page side of discoverable wallets: each EVM wallet answers EIP-6963's
 * `eip6963:requestProvider` with `eip6963:announceProvider` (and announces once on load); each
 * Solana wallet registers through the Wallet Standard (`wallet-standard:register-wallet`, and
 * again on `wallet-standard:app-ready`) with `standard:connect`, `standard:disconnect` and
 * `solana:signMessage`. Every request goes to the Node-side key of that wallet.
 */
function installDiscoverableWallets(wallets: { names: string[]; icon: string }) {
  type Answer = { ok: unknown } | { rejected: true };
  const page = globalThis as unknown as Record<string, unknown> & {
    addEventListener(type: string, listener: (event: { detail?: unknown }) => void): void;
    dispatchEvent(event: unknown): boolean;
    CustomEvent: new (type: string, init: { detail: unknown }) => unknown;
    Event: new (type: string) => unknown;
  };
  const bridge = page as unknown as Record<string, (...args: unknown[]) => Promise<Answer>>;
  const unwrap = async (answer: Promise<Answer>) => {
    const result = await answer;
    if ('rejected' in result) throw Object.assign(new Error('User rejected the request.'), { code: 4001 });
    return result.ok;
  };
  wallets.names.forEach((name, index) => {
    const provider = {
      async request({ method, params }: { method: string; params?: unknown[] }) {
        switch (method) {
          case 'eth_requestAccounts':
          case 'eth_accounts':
            return [await unwrap(bridge.__discoverableEvmAddress!(index))];
          case 'eth_chainId':
            return '0x1';
          case 'personal_sign':
            return unwrap(bridge.__discoverableEvmSign!(index, params?.[0], params?.[1]));
          default:
            throw Object.assign(new Error(`${method} is not supported by the test wallet`), { code: 4200 });
        }
      },
      on() {},
      removeListener() {},
    };
    const info = {
      uuid: `00000000-0000-4000-8000-00000000000${index}`,
      name: `${name} EVM`,
      icon: wallets.icon,
      rdns: `test.${name.toLowerCase()}`,
    };
    const announce = () =>
      page.dispatchEvent(
        new page.CustomEvent('eip6963:announceProvider', { detail: Object.freeze({ info, provider }) }),
      );
    page.addEventListener('eip6963:requestProvider', announce);
    announce();

    const chains = ['solana:mainnet'];
    let accounts: unknown[] = [];
    const wallet = {
      version: '1.0.0',
      name: `${name} Solana`,
      icon: wallets.icon,
      chains,
      get accounts() {
        return accounts;
      },
      features: {
        'standard:connect': {
          version: '1.0.0',
          async connect() {
            const address = (await unwrap(bridge.__discoverableSolanaAddress!(index))) as string;
            const bytes = (await unwrap(bridge.__discoverableSolanaKey!(index))) as number[];
            accounts = [{ address, publicKey: Uint8Array.from(bytes), chains, features: ['solana:signMessage'] }];
            return { accounts };
          },
        },
        'standard:disconnect': {
          version: '1.0.0',
          async disconnect() {
            accounts = [];
          },
        },
        'standard:events': { version: '1.0.0', on: () => () => {} },
        'solana:signMessage': {
          version: '1.0.0',
          async signMessage(...inputs: { account: unknown; message: Uint8Array }[]) {
            const outputs = [];
            for (const input of inputs) {
              const signature = (await unwrap(
                bridge.__discoverableSolanaSign!(index, Array.from(input.message)),
              )) as number[];
              outputs.push({ signedMessage: input.message, signature: Uint8Array.from(signature) });
            }
            return outputs;
          },
        },
      },
    };
    const callback = ({ register }: { register: (w: unknown) => void }) => register(wallet);
    page.dispatchEvent(new page.CustomEvent('wallet-standard:register-wallet', { detail: callback }));
    page.addEventListener('wallet-standard:app-ready', (event) =>
      callback(event.detail as { register: (w: unknown) => void }),
    );
  });
}

/** A 1×1 PNG as a data: URI, the only kind of icon EIP-6963 and the Wallet Standard allow. */
const ICON =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/**
 * Several wallets of each family, announced as EIP-6963 providers and Wallet Standard wallets
 * (named `${name} EVM` / `${name} Solana`), each with its own key in Node; no `window.ethereum`
 * or `window.solana`. Returns them by name.
 */
export async function injectDiscoverableWallets(
  page: Page,
  names: string[],
  /** EVM private keys by wallet name (the demo's publisher wallets); the others get fresh ones. */
  evmKeys: Record<string, Hex> = {},
): Promise<Record<string, { evm: InjectedWallet; solana: InjectedWallet }>> {
  const made = names.map((name) => ({
    evm: createWallet<PrivateKeyAccount>(
      () => privateKeyToAccount(evmKeys[name] ?? generatePrivateKey()),
      (account) => account.address,
      (account, message) => account.signMessage({ message: { raw: message } }),
    ),
    solanaKey: nacl.sign.keyPair(),
  }));
  const solana = made.map(({ solanaKey }) =>
    createWallet(
      () => solanaKey,
      (pair) => bs58.encode(pair.publicKey),
      async (pair, message) => Array.from(nacl.sign.detached(message, pair.secretKey)),
    ),
  );
  const evmAt = (index: number) => (made[index] as (typeof made)[number]).evm;
  const solanaAt = (index: number) => solana[index] as (typeof solana)[number];
  await page.exposeFunction('__discoverableEvmAddress', (index: number) => ({ ok: evmAt(index).wallet.address }));
  await page.exposeFunction('__discoverableEvmSign', (index: number, data: Hex, address: string) => {
    const wallet = evmAt(index);
    if (!isHex(data) || address.toLowerCase() !== wallet.wallet.address.toLowerCase()) {
      throw new Error(`personal_sign for ${address}, but the wallet holds ${wallet.wallet.address}`);
    }
    return wallet.signFor(Buffer.from(data.slice(2), 'hex'));
  });
  await page.exposeFunction('__discoverableSolanaAddress', (index: number) => ({ ok: solanaAt(index).wallet.address }));
  await page.exposeFunction('__discoverableSolanaKey', (index: number) => ({
    ok: Array.from(bs58.decode(solanaAt(index).wallet.address)),
  }));
  await page.exposeFunction('__discoverableSolanaSign', (index: number, bytes: number[]) =>
    solanaAt(index).signFor(Uint8Array.from(bytes)),
  );
  await page.addInitScript(installDiscoverableWallets, { names, icon: ICON });
  return Object.fromEntries(names.map((name, i) => [name, { evm: evmAt(i).wallet, solana: solanaAt(i).wallet }]));
}
