/**
 * The publisher's side: statements built by the SDK (`@signal/sdk/statements`: RFC 8785
 * canonical JSON, opaque ids, 128-bit salts), signed by the connected wallet (personal_sign for
 * EVM, signMessage for Solana: the SDK's sign-in signer, as `walletStatementSigner` wraps it),
 * and POSTed to the statement routes. What a refusal means, in words.
 */
import { isSignalApiError, type Signer } from '@signal/sdk';
import {
  cancelStatement,
  closeStatement,
  openStatement,
  type SignalChanges,
  type SignalTerms,
  signStatement,
  updateStatement,
  walletStatementSigner,
} from '@signal/sdk/statements';
import { describeProblem, isUserRejection } from './api';
import { logOrigin, postStatement, type StatementAnswer } from './signals';

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

let origin: Promise<string> | undefined;
/** The log's name (`LOG_ORIGIN`), which every statement carries; read once. */
const logName = () => {
  origin ??= logOrigin().catch((error) => {
    origin = undefined;
    throw error;
  });
  return origin;
};

export async function openSignal(wallet: PublisherWallet, provider: number, terms: SignalTerms) {
  const built = openStatement({ log: await logName(), provider }, terms);
  return postStatement(provider, await signStatement(built, walletStatementSigner(wallet.signer)));
}

export async function changeSignal(
  wallet: PublisherWallet,
  provider: number,
  signal: string,
  change: Change,
): Promise<StatementAnswer> {
  const scope = { log: await logName(), provider };
  const built =
    change.type === 'update'
      ? updateStatement(scope, signal, change.changes)
      : change.type === 'close'
        ? closeStatement(scope, signal, change.closePct)
        : cancelStatement(scope, signal);
  return postStatement(provider, await signStatement(built, walletStatementSigner(wallet.signer)), signal);
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
export function receiptLine(answer: StatementAnswer): string {
  const size = answer.receipt.checkpoint.split('\n')[1] ?? '?';
  return `log entry ${answer.receipt.logIndex}, in the signed checkpoint of ${size} entries`;
}
