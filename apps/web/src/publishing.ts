/**
 * The publisher's side: the SDK's publisher (`createPublisher` of `@signal/sdk/publisher`, the
 * publisher of `client.publisher(providerId, signer)`, loaded with this page only) builds each
 * statement (RFC 8785 canonical JSON, an opaque id, a 128-bit salt), has the connected wallet sign
 * it (personal_sign for EVM, signMessage for Solana: the sign-in signer) and sends it, retrying
 * the same signed bytes when an answer is lost. What a refusal means, in words.
 */
import { isSignalApiError, type SignalStatementAnswer, type Signer } from '@signal/sdk';
import { createPublisher, type SignalChanges, type SignalTerms } from '@signal/sdk/publisher';
import { API_URL, describeProblem, isUserRejection } from './api';

export type Change =
  | { type: 'update'; changes: SignalChanges }
  | { type: 'close'; closePct: string }
  | { type: 'cancel' };

/** A wallet connected to publish: the signer, and the address it signs as. */
export interface PublisherWallet {
  name: string;
  address: string;
  signer: Signer;
}

const publisherFor = (wallet: PublisherWallet, providerId: number) =>
  createPublisher({ baseUrl: API_URL, providerId, signer: wallet.signer });

export const openSignal = (wallet: PublisherWallet, provider: number, terms: SignalTerms) =>
  publisherFor(wallet, provider).open(terms);

export function changeSignal(
  wallet: PublisherWallet,
  provider: number,
  signal: string,
  change: Change,
): Promise<SignalStatementAnswer> {
  const publisher = publisherFor(wallet, provider);
  if (change.type === 'update') return publisher.update(signal, change.changes);
  if (change.type === 'close') return publisher.close(signal, change.closePct);
  return publisher.cancel(signal);
}

/** What a refused or failed statement means for the person who signed it. */
export function describePublishProblem(error: unknown): string {
  if (isUserRejection(error)) return 'Your wallet declined to sign, so nothing was sent.';
  if (isSignalApiError(error)) {
    const field = error.issues[0]?.path.filter((part) => part !== 'statement').join('.');
    switch (error.code) {
      case 'FORBIDDEN':
        return `This wallet may not sign for this provider (${error.message}). Only its publisher wallets and the keys they delegated can.`;
      case 'INVALID_SIGNATURE':
        return 'The signature does not check out for this wallet, so the statement was refused.';
      case 'SIGNAL_CLOSED':
        return 'This signal is no longer open (closed, cancelled or expired): it takes no more changes.';
      case 'SIGNAL_NOT_FOUND':
        return 'No such signal for this provider.';
      case 'VALIDATION_ERROR':
        return `Refused: ${error.issues[0]?.message ?? error.message}${field ? ` (${field})` : ''}.`;
      default:
        break;
    }
  }
  const problem = describeProblem(error);
  return `${problem.title}. ${problem.detail}`;
}

/** The sentence that says where the statement went: the log entry and the checkpoint holding it. */
export function receiptLine(answer: SignalStatementAnswer): string {
  const size = answer.receipt.checkpoint.split('\n')[1] ?? '?';
  return `log entry ${answer.receipt.logIndex}, in the signed checkpoint of ${size} entries`;
}
