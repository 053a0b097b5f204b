import type { Chain } from './wire.types.js';

/**
 * What sign-in needs from a wallet. The adapters in `@signal/sdk/evm` and `@signal/sdk/solana`
 * build one from what users already hold; anything else (a hardware wallet, a remote KMS) can
 * implement it directly.
 */
export interface Signer {
  /** The wallet family, which decides how the API checks the signature. */
  readonly chain: Chain;
  /**
   * The wallet address: EVM `0x` + 40 hex digits, Solana base58. Asked at every sign-in, so a
   * browser wallet that connects (or switches account) later is picked up.
   */
  getAddress(): Promise<string>;
  /**
   * Signs the UTF-8 text of `message` and returns the signature as the contract encodes it:
   * EVM personal_sign hex, Solana base58 of the 64 ed25519 bytes.
   */
  signMessage(message: string): Promise<string>;
}
