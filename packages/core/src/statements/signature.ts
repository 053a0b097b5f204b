/**
 * A statement's signature, over its UTF-8 bytes exactly as sent, by signer kind: EVM wallets
 * `personal_sign` (EIP-191) recovered locally with libsecp256k1, and when that fails, smart
 * contract wallets (EIP-1271, EIP-6492) through the chain verifier the server passes in, with
 * the sign-in's bounds; Solana wallets and delegated keys Ed25519 on OpenSSL. Unlike sign-in,
 * a Solana wallet's signature of the off-chain message envelope is not taken: an auditor checks
 * a statement's bytes and nothing else.
 */
import { DomainError } from '../errors.js';
import type { EvmChainVerifier } from '../evm-chain.js';
import { verifyEd25519Signature, verifyEvmSignature } from '../verify.js';
import type { StatementSigner } from './checks.js';
import { ED25519_KEY_PREFIX } from './fields.js';

export interface StatementSignatureOptions {
  /**
   * Checks EVM signatures that do not recover to the signer on chain (contract wallets); it
   * throws `ChainUnavailableError` (503) when the node cannot say. Without it, only signatures
   * by the wallet's own key are taken.
   */
  evmChain?: EvmChainVerifier;
}

/** True when `signature` is `signer`'s over `statement`, checked without any network call. */
export function verifyStatementSignatureLocally(
  signer: StatementSigner,
  statement: string,
  signature: string,
): boolean {
  switch (signer.kind) {
    case 'evm':
      return verifyEvmSignature(signer.id, statement, signature);
    case 'solana':
      return verifyEd25519Signature(signer.id, statement, signature);
    case 'ed25519':
      return verifyEd25519Signature(signer.id.slice(ED25519_KEY_PREFIX.length), statement, signature);
  }
}

/** True when `signature` is `signer`'s over `statement`, a contract wallet's included when a chain verifier is given. */
export async function verifyStatementSignature(
  signer: StatementSigner,
  statement: string,
  signature: string,
  options: StatementSignatureOptions = {},
): Promise<boolean> {
  if (verifyStatementSignatureLocally(signer, statement, signature)) return true;
  if (signer.kind !== 'evm' || !options.evmChain) return false;
  return options.evmChain.verifyMessage(signer.id, statement, signature);
}

/** Like `verifyStatementSignature`, but a wrong signature throws 401 INVALID_SIGNATURE. */
export async function checkStatementSignature(
  signer: StatementSigner,
  statement: string,
  signature: string,
  options: StatementSignatureOptions = {},
): Promise<void> {
  if (!(await verifyStatementSignature(signer, statement, signature, options))) {
    throw new DomainError('INVALID_SIGNATURE', `the signature is not ${signer.id}'s over the statement's bytes`);
  }
}
