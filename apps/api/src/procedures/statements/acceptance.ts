/**
 * What every statement route does around its own change (CONTRACT.md, Version 4, "Signed
 * statements"), in the contract's order:
 * 1. `readStatement`: body, JSON, canonical form, schema, `log`, `provider` (400);
 * 2. the byte-identical retry: the body's digest already accepted → the first answer, 200, and
 *    nothing appended (before the skew and permission checks: a retry after a minute still works);
 * 3. `issuedAt` within SIGNAL_MAX_SKEW_SECONDS (400), the signer's format (400 INVALID_WALLET),
 *    the limits (429, counted before the database checks: the signer's when the signature holds
 *    as far as it can be told without a chain, else the client address's, so that a forgery
 *    naming a publisher spends the forger's budget, never the publisher's);
 * 4. in one transaction, with the provider locked (404 when unknown or archived): the route's
 *    permission (403), signature (401) and reuse (409) checks and its writes, at `receivedAt`;
 *    a concurrent duplicate that committed first is found there and answered as a retry;
 * 5. after the commit, the sequencer is kicked and the answer waits (in memory, woken by the
 *    process's one log watcher) until the entry is in a signed checkpoint.
 */
import { createHash } from 'node:crypto';
import { DomainError } from '@signal/core';
import {
  checkIssuedAt,
  checkStatementSignature,
  parseStatementSigner,
  type ReadStatement,
  readStatement,
  type StatementSigner,
  type StatementType,
  verifyStatementSignatureLocally,
} from '@signal/core/statements';
import { type Database, findSignedStatement, type LogAcceptance, lockProviderForStatement } from '@signal/db';
import type { Kysely, Transaction } from 'kysely';
import type { Context, LogInclusion } from '../context.js';
import { countStatement } from '../rate-limit.js';
import { awaitReplicaAfterWrite } from '../read-replica.js';
import { providerNotFound } from '../trpc.js';

/** How long an answer waits for its entry to be in a signed checkpoint (promised within 1 s). */
const INCLUSION_WAIT_MS = 15_000;

/** The digest a byte-identical retry is recognised by: SHA-256 over the body's three strings. */
export function statementDigest(body: { statement: string; signer: string; signature: string }): string {
  return createHash('sha256')
    .update(JSON.stringify([body.statement, body.signer, body.signature]))
    .digest('hex');
}

/** Waits for the entry's inclusion in a signed checkpoint; a 503 when the log does not get there in time. */
export async function awaitInclusion(ctx: Context, acceptance: LogAcceptance): Promise<LogInclusion> {
  const inclusion = await ctx.services.logSequencer.waitFor(acceptance, { maxWaitMs: INCLUSION_WAIT_MS });
  if (!inclusion) {
    throw new DomainError(
      'SERVICE_UNAVAILABLE',
      'The statement was accepted, but the log did not sign a checkpoint holding it in time; send the same body again for its answer',
    );
  }
  return inclusion;
}

/** The route's own part, run in the transaction once the provider is locked. */
export interface StatementChange<T extends StatementType, A> {
  trx: Transaction<Database>;
  read: ReadStatement<T>;
  signer: StatementSigner;
  digest: string;
  receivedAt: Date;
  /** Throws 401 INVALID_SIGNATURE unless the signature holds: call it after the permission check. */
  checkSignature: () => Promise<void>;
  /**
   * Ends the change with a 200 and nothing written (a repeated revoke): the answer of an earlier
   * entry, built once it is in a checkpoint (waited for after the transaction, never inside it).
   */
  done: (earlier: StatementOutcome<A>) => never;
}

/** An accepted change: the entry it appended, and its answer once the entry is in a checkpoint. */
export interface StatementOutcome<A> {
  acceptance: LogAcceptance;
  /** The answer once the entry is in a checkpoint (a signal's reads the signal and the proof). */
  answer: (inclusion: LogInclusion) => A | Promise<A>;
}

/** A first answer as replayed: the stored answer with the index of the entry it made. */
export interface Replay {
  answer: unknown;
  acceptance: LogAcceptance;
  /** The statement's digest (what its first answer is kept under). */
  digest: string;
}

/** What a statement route does beyond the common steps, in their order. */
interface StatementRoute<T extends StatementType, A> {
  types: readonly T[];
  /** A check of the read statement against the path beyond `provider` (a revoke's key). */
  checkPath?: (read: ReadStatement<T>) => void;
  /** The change: permission, signature, reuse, writes; the route's success status is set already. */
  change: (change: StatementChange<T, A>) => Promise<StatementOutcome<A>>;
  /** The answer of a retry from its stored first answer (status 200). */
  replay: (replay: Replay) => Promise<A>;
}

class Answered<A> {
  constructor(readonly earlier: StatementOutcome<A>) {}
}

/**
 * Runs a statement route (see the file's comment) on its input, the path's provider (`id`) and
 * the body; sets the status and returns the answer's data.
 */
export async function acceptStatement<T extends StatementType, A>(
  ctx: Context,
  input: { id: number },
  route: StatementRoute<T, A>,
): Promise<A> {
  const providerId = input.id;
  const { config, database, logSequencer, now, evmChain } = ctx.services;
  const read = readStatement(input, { origin: logSequencer.origin, providerId, types: route.types });
  route.checkPath?.(read);
  const digest = statementDigest({ statement: read.text, signer: read.signer, signature: read.signature });
  const retry = async (db: Kysely<Database>) => {
    const first = await findSignedStatement(db, digest);
    return first && { answer: first.answer, acceptance: first.acceptance, digest };
  };
  const earlier = await retry(database.db);
  if (earlier) {
    ctx.res.statusCode = 200;
    return route.replay(earlier);
  }
  checkIssuedAt(read.statement, now().getTime(), config.signalMaxSkewSeconds);
  const signer = parseStatementSigner(read.signer);
  // The signature as far as it can be checked without a chain: it decides whose budget the
  // attempt spends; its verdict is answered in the contract's order, in the transaction.
  const locallyValid = verifyStatementSignatureLocally(signer, read.text, read.signature);
  await countStatement(ctx, signer.id, locallyValid);

  const outcome = await database.db.transaction().execute(async (trx) => {
    if (!(await lockProviderForStatement(trx, providerId))) throw providerNotFound(providerId);
    const concurrent = await retry(trx);
    if (concurrent) return { kind: 'retry' as const, replay: concurrent };
    try {
      const accepted = await route.change({
        trx,
        read,
        signer,
        digest,
        receivedAt: now(),
        checkSignature: async () => {
          if (!locallyValid) {
            await checkStatementSignature(signer, read.text, read.signature, evmChain ? { evmChain } : {});
          }
        },
        done: (earlier) => {
          throw new Answered(earlier);
        },
      });
      return { kind: 'accepted' as const, accepted };
    } catch (error) {
      // A change that answers without writing (a repeated revoke): the transaction commits nothing.
      if (error instanceof Answered)
        return { kind: 'answered' as const, earlier: error.earlier as StatementOutcome<A> };
      throw error;
    }
  });
  if (outcome.kind === 'retry') {
    ctx.res.statusCode = 200;
    return route.replay(outcome.replay);
  }
  if (outcome.kind === 'answered') {
    ctx.res.statusCode = 200;
    return outcome.earlier.answer(await awaitInclusion(ctx, outcome.earlier.acceptance));
  }
  logSequencer.kick();
  await awaitReplicaAfterWrite(ctx);
  return outcome.accepted.answer(await awaitInclusion(ctx, outcome.accepted.acceptance));
}
