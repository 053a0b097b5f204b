import bs58 from 'bs58';
import { checksumAddress } from 'viem';
import { DomainError } from './errors.js';
import type { Chain } from './schemas.js';

export interface ParsedWallet {
  /** Canonical form: EIP-55 checksummed for EVM, the base58 text as given for Solana. */
  wallet: string;
  chain: Chain;
}

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
// base58 of 32 bytes is 32..44 characters; checking the alphabet and length first keeps
// the decoder away from arbitrarily long input.
const SOLANA_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/**
 * Parses a wallet address of either family into its canonical form, or throws
 * INVALID_WALLET. All-lowercase and all-uppercase EVM hex carry no checksum and are
 * accepted as they are; a mixed-case address must pass EIP-55, since a failed checksum
 * usually means a mistyped address.
 */
export function parseWallet(input: string): ParsedWallet {
  if (EVM_ADDRESS.test(input)) {
    const hex = input.slice(2);
    const lower = `0x${hex.toLowerCase()}` as const;
    const canonical = checksumAddress(lower);
    const unchecked = hex === hex.toLowerCase() || hex === hex.toUpperCase();
    if (!unchecked && canonical !== input) {
      throw new DomainError('INVALID_WALLET', 'EVM address fails its EIP-55 checksum');
    }
    return { wallet: canonical, chain: 'evm' };
  }
  if (SOLANA_ADDRESS.test(input) && bs58.decode(input).length === 32) {
    return { wallet: input, chain: 'solana' };
  }
  throw new DomainError(
    'INVALID_WALLET',
    'wallet must be an EVM address (0x followed by 40 hex digits) or a Solana address (base58 of 32 bytes)',
  );
}

/** Like parseWallet, but answers null instead of throwing. */
export function tryParseWallet(input: string): ParsedWallet | null {
  try {
    return parseWallet(input);
  } catch {
    return null;
  }
}
