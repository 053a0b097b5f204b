/**
 * EVM signers from viem: a `LocalAccount` (private key, mnemonic: servers, scripts, tests) or a
 * `WalletClient` (browser wallets over EIP-1193, WalletConnect, …). Both sign with personal_sign
 * and return the 65-byte signature as hex, which is what the API verifies.
 *
 * viem is only a type here: the adapter calls methods of the objects it is given, so this entry
 * adds no viem code to a bundle that does not already have it.
 */
import type { Address, LocalAccount, WalletClient } from 'viem';
import type { Signer } from './signer.types.js';

export type { Signer } from './signer.types.js';

/** A viem account or wallet client that can sign messages. */
export type EvmWallet = LocalAccount | WalletClient;

function isLocalAccount(wallet: EvmWallet): wallet is LocalAccount {
  return wallet.type === 'local';
}

/**
 * A signer over a viem `LocalAccount` or `WalletClient`. A wallet client without an account is
 * asked for its addresses (`eth_requestAccounts`) at sign-in and signs with the first.
 */
export function evmSigner(wallet: EvmWallet): Signer {
  if (isLocalAccount(wallet)) {
    return {
      chain: 'evm',
      getAddress: async () => wallet.address,
      signMessage: (message) => wallet.signMessage({ message }),
    };
  }
  const client = wallet;
  // The address of the sign-in under way: the signature must come from the account the nonce
  // was issued for, even if the user switches accounts in between.
  let requested: Address | undefined;
  const address = async (): Promise<Address> => {
    if (client.account) return client.account.address;
    const [first] = await client.requestAddresses();
    if (!first) throw new Error('the wallet returned no address');
    requested = first;
    return first;
  };
  return {
    chain: 'evm',
    getAddress: address,
    signMessage: async (message) =>
      client.signMessage({ account: client.account ?? requested ?? (await address()), message }),
  };
}
