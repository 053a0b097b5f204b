/**
 * What the signal statement routes (the signals router) share inside acceptance.ts's steps:
 * the permission at `receivedAt`, the signature and the id's reuse, in that order; the
 * commitment, the log entry (`{"commitment","provider","receivedAt","signal","type","v":1}`) and
 * the rows; and the answer once the entry is in a signed checkpoint (the signal as that statement
 * left it, for a reader who may see its content, and the receipt), for a first answer and a retry.
 */
import { DomainError, type Signal, type SignalReceipt, type SignalStatementAnswer } from '@signal/core';
import {
  type SignalStatement,
  type SignalStatementType,
  signalIdOf,
  signalLogEntry,
  signerRightAt,
  statementCommitment,
} from '@signal/core/statements';
import {
  type FirstAnswer,
  keepFirstAnswer,
  readProviderSigners,
  readSignals,
  recordSignalStatement,
  type SignalChange,
  signalStatementIdUsed,
} from '@signal/db';
import type { Context, LogInclusion } from '../context.js';
import { awaitInclusion, type Replay, type StatementChange } from '../statements/acceptance.js';
import { forbidden, statementIdUsed } from '../statements/errors.js';
import { receiptOf } from '../statements/receipt.js';

export const AFTER_SIGNATURE =
  ' After the signature: an `id` another signal statement of the provider used → 409 `IDEMPOTENCY_CONFLICT`.';

/**
 * The answer of an accepted statement: the signal as that statement left it (its statements up to
 * this one), as a reader who may see its content, and the receipt. The first answer's receipt and
 * instant are kept (`keepFirstAnswer`), so a retry answers the same body byte for byte however
 * the log has grown since (its signal's expiry judged at that instant too).
 */
export async function statementAnswer(
  ctx: Context,
  digest: string,
  inclusion: LogInclusion,
): Promise<SignalStatementAnswer> {
  const { db } = ctx.services.database;
  const at = ctx.services.now().toISOString();
  // The signal read beside the receipt and its keeping: the keeping is one round trip more on
  // the answer's path (apps/bench/LAB-NOTES.md, "The kept first answer").
  let mine: FirstAnswer | undefined;
  const [kept, signal] = await Promise.all([
    receiptOf(db, inclusion).then((receipt) => {
      mine = { receipt, at };
      return keepFirstAnswer(db, digest, mine);
    }),
    signalAt(ctx, inclusion.logIndex, at),
  ]);
  // Ours was kept (the very object back), else an earlier answer's: two may share a millisecond.
  if (kept === mine) return { signal, receipt: kept.receipt as SignalReceipt };
  return { signal: await signalAt(ctx, inclusion.logIndex, kept.at), receipt: kept.receipt as SignalReceipt };
}

/** The signal as the statement at `logIndex` left it, its expiry judged at `at`. */
async function signalAt(ctx: Context, logIndex: number, at: string): Promise<Signal> {
  const signals = await readSignals(
    ctx.services.database.db,
    { logIndexes: [logIndex] },
    { full: true, now: new Date(at) },
  );
  const signal = signals.get(logIndex);
  // Only when the provider was archived between the statement and its answer.
  if (!signal) throw new DomainError('PROVIDER_NOT_FOUND', 'the provider of this signal was archived');
  return signal;
}

/** The part every signal statement shares after the route's own checks: the commitment, the entry, the rows. */
export async function recordSignal<T extends SignalStatementType>(
  ctx: Context,
  providerId: number,
  { trx, read, signer, digest, receivedAt }: StatementChange<T, SignalStatementAnswer>,
  change: SignalChange,
) {
  const statement = read.statement as SignalStatement;
  const signalId = signalIdOf(statement);
  const commitment = statementCommitment(read.text);
  const entry = signalLogEntry({
    commitment,
    provider: providerId,
    receivedAt,
    signal: signalId,
    type: statement.type,
  });
  const acceptance = await recordSignalStatement(
    trx,
    {
      providerId,
      id: statement.id,
      signalId,
      type: statement.type,
      statement: read.text,
      signer: signer.id,
      signature: read.signature,
      commitment,
    },
    change,
    {
      digest,
      providerId,
      type: statement.type,
      answer: { providerId, signalId },
      receivedAt,
      entry: new TextEncoder().encode(entry),
    },
  );
  return { acceptance, answer: (inclusion: LogInclusion) => statementAnswer(ctx, digest, inclusion) };
}

/** Permission at `receivedAt` (403), the signature (401), then the id's reuse (409). */
export async function checkSignerAndId<T extends SignalStatementType>(
  providerId: number,
  { trx, read, signer, receivedAt, checkSignature }: StatementChange<T, SignalStatementAnswer>,
): Promise<void> {
  const right = signerRightAt(await readProviderSigners(trx, providerId), signer.id, receivedAt);
  if (!right.allowed) throw forbidden(signer.id, providerId, right);
  await checkSignature();
  const { id } = read.statement as SignalStatement;
  if (await signalStatementIdUsed(trx, providerId, id)) throw statementIdUsed(providerId, id);
}

/** A retry's answer: the kept first answer, or (when the first was never built) this one, kept. */
export const replayAnswer =
  (ctx: Context) =>
  async ({ answer, acceptance, digest }: Replay): Promise<SignalStatementAnswer> => {
    const first = (answer as { first?: FirstAnswer }).first;
    if (!first) return statementAnswer(ctx, digest, await awaitInclusion(ctx, acceptance));
    const receipt = first.receipt as SignalReceipt;
    return { signal: await signalAt(ctx, receipt.logIndex, first.at), receipt };
  };
