/**
 * Real wallets for the tests, one per signer kind the SDK adapts: keys are generated per test
 * and really sign; the "browser" wallets are the shapes wallets expose, backed by those keys.
 */
import type { Signer } from '@signal/sdk';
import { evmSigner } from '@signal/sdk/evm';
import { type SolanaMessageWallet, solanaSigner } from '@signal/sdk/solana';
import { Keypair } from '@solana/web3.js';
import nacl from 'tweetnacl';
import { createWalletClient, custom, type EIP1193RequestFn, type Hex, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

/**
 * An EIP-1193 provider, as a browser extension injects it, backed by a local account: it
 * answers the account requests and signs personal_sign payloads with the real key.
 */
export function eip1193Provider(account: LocalAccount) {
  const methods: string[] = [];
  const request = (async ({ method, params }: { method: string; params?: unknown }) => {
    methods.push(method);
    switch (method) {
      case 'eth_accounts':
      case 'eth_requestAccounts':
        return [account.address];
      case 'eth_chainId':
        return '0x1';
      case 'personal_sign': {
        const [data, address] = params as [Hex, string];
        if (address.toLowerCase() !== account.address.toLowerCase()) {
          throw Object.assign(new Error('unknown account'), { code: 4100 });
        }
        return account.signMessage({ message: { raw: data } });
      }
      default:
        throw Object.assign(new Error(`method ${method} is not supported`), { code: 4200 });
    }
  }) as EIP1193RequestFn;
  return { request, methods };
}

export interface TestSigner {
  chain: 'evm' | 'solana';
  /** The address as the wallet reports it. */
  address: string;
  signer: Signer;
}

export const signerKinds: { kind: string; make: () => TestSigner }[] = [
  {
    kind: 'EVM LocalAccount',
    make() {
      const account = privateKeyToAccount(generatePrivateKey());
      return { chain: 'evm', address: account.address, signer: evmSigner(account) };
    },
  },
  {
    kind: 'EVM WalletClient over EIP-1193 (account set)',
    make() {
      const account = privateKeyToAccount(generatePrivateKey());
      const client = createWalletClient({ account: account.address, transport: custom(eip1193Provider(account)) });
      return { chain: 'evm', address: account.address, signer: evmSigner(client) };
    },
  },
  {
    kind: 'EVM WalletClient over EIP-1193 (no account: eth_requestAccounts)',
    make() {
      const account = privateKeyToAccount(generatePrivateKey());
      const client = createWalletClient({ transport: custom(eip1193Provider(account)) });
      return { chain: 'evm', address: account.address, signer: evmSigner(client) };
    },
  },
  {
    kind: 'Solana Keypair',
    make() {
      const keypair = Keypair.generate();
      return { chain: 'solana', address: keypair.publicKey.toBase58(), signer: solanaSigner(keypair) };
    },
  },
  {
    kind: 'Solana wallet-adapter shape (signMessage → bytes)',
    make() {
      const keypair = Keypair.generate();
      const wallet: SolanaMessageWallet = {
        publicKey: keypair.publicKey,
        signMessage: async (message) => nacl.sign.detached(message, keypair.secretKey),
      };
      return { chain: 'solana', address: keypair.publicKey.toBase58(), signer: solanaSigner(wallet) };
    },
  },
  {
    kind: 'Solana injected-wallet shape (signMessage → { signature }, toString() key)',
    make() {
      const keypair = Keypair.generate();
      const address = keypair.publicKey.toBase58();
      const wallet = {
        publicKey: { toString: () => address },
        signMessage: async (message: Uint8Array) => ({
          signature: nacl.sign.detached(message, keypair.secretKey),
          publicKey: keypair.publicKey,
        }),
      };
      return { chain: 'solana', address, signer: solanaSigner(wallet) };
    },
  },
];

/** Wraps a signer to count the signatures it is asked for. */
export function countingSigner(inner: Signer) {
  const counter = { signatures: 0 };
  const signer: Signer = {
    chain: inner.chain,
    getAddress: () => inner.getAddress(),
    async signMessage(message) {
      counter.signatures += 1;
      return inner.signMessage(message);
    },
  };
  return Object.assign(counter, { signer });
}
