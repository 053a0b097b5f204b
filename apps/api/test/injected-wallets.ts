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
