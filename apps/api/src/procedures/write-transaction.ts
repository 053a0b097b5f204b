/**
 * `writeTransaction`: a procedure middleware that runs the rest of the procedure in one database
 * transaction (`ctx.trx`) and gives it `Idempotency-Key` support (CONTRACT.md, Version 3). Any
 * write procedure can use it, after its credential middleware and its `.input()`:
 *
 *   scopedProcedure('providers:write').input(Body).use(writeTransaction).output(Answer)
 *     .mutation(({ ctx }) => change(ctx.trx, ...))      // every write on ctx.trx
 *
 * - Without the header: the procedure's writes commit together, or none of them (an error, a
 *   failed answer check: rollback).
 * - With `Idempotency-Key` on a procedure whose meta says `idempotent: true` (1..255 printable
 *   ASCII characters, else 400; other procedures ignore the header): the key is claimed in
 *   the same transaction (idempotency.queries.ts), per credential (service key, or user of a
 *   wallet token). A retry with the same key, procedure and request within 24 h gets the first
 *   answer again, and nothing runs; another procedure or request → 409 IDEMPOTENCY_CONFLICT. A
 *   retry that arrives while the first runs waits for it (its claim waits on the first one's row
 *   lock), then gets its answer; if the first failed, it rolled back and the retry runs. A failure
 *   is not remembered: it changed nothing.
 * - Once committed, a write waits (bounded) for the read replica to replay it, so that the next
 *   public read on any server shows it (read-replica.ts).
 * - `ctx.afterCommit(fn)`: `fn` runs once the transaction has committed (never after a rollback),
 *   before the answer: a write that appended to the log kicks the log's sequencer there.
 */
import { createHash } from 'node:crypto';
import { DomainError } from '@signal/core';
import { claimIdempotencyKey, type Database, recordIdempotentAnswer } from '@signal/db';
import { middlewareMarker } from '@trpc/server/unstable-core-do-not-import';
import type { Transaction } from 'kysely';
import type { Context } from './context.js';
import { awaitReplicaAfterWrite } from './read-replica.js';
import type { ServiceKeyIdentity } from './service-credential.js';
import { middleware } from './trpc.js';

/** How long a key's first answer is kept (the maintenance job purges older ones). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 3_600_000;

/** What an Idempotency-Key may be (the OpenAPI document declares the same pattern). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** The request's Idempotency-Key, undefined when absent; a malformed one is a 400. */
function idempotencyKey(ctx: Context): string | undefined {
  const value = ctx.req.headers['idempotency-key'];
  if (value === undefined) return undefined;
  if (typeof value === 'string' && IDEMPOTENCY_KEY_PATTERN.test(value)) return value;
  const message = 'must be 1 to 255 printable ASCII characters';
  throw new DomainError('VALIDATION_ERROR', `Invalid Idempotency-Key header: ${message}`, {
    issues: [{ path: ['headers', 'Idempotency-Key'], message }],
  });
}

/** Whose key it is: the service key's id, or the wallet token's user. */
function credentialOf(ctx: Context & { serviceKey?: ServiceKeyIdentity; auth?: { userId: number } }): string {
  if (ctx.serviceKey) return `key:${ctx.serviceKey.id}`;
  if (ctx.auth) return `user:${ctx.auth.userId}`;
  throw new Error('writeTransaction with Idempotency-Key needs a credential middleware before it');
}

/** JSON with object keys sorted: the same request in any key order has the same digest. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_, inner) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

/** A first answer as kept for replays: its success status and its data. */
interface StoredAnswer {
  status: number;
  data: unknown;
}

/** Thrown inside the transaction to roll it back when the procedure failed (its result is returned). */
const ROLLBACK = Symbol('rollback');

export const writeTransaction = middleware(async ({ ctx, path, meta, getRawInput, next }) => {
  // Only where the procedure's meta says so (the routes the contract names); elsewhere ignored.
  const key = meta?.idempotent ? idempotencyKey(ctx) : undefined;
  const claim = key && {
    credential: credentialOf(ctx),
    key,
    route: path,
    requestHash: createHash('sha256')
      .update(canonicalJson((await getRawInput()) ?? null))
      .digest('base64url'),
  };
  const { db } = ctx.services.database;
  let result!: Awaited<ReturnType<typeof next<{ trx: Transaction<Database>; afterCommit: AfterCommit }>>>;
  let replay: string | undefined;
  const committed: (() => void)[] = [];
  const afterCommit: AfterCommit = (fn) => {
    committed.push(fn);
  };
  try {
    await db.transaction().execute(async (trx) => {
      if (claim) {
        const now = ctx.services.now();
        const outcome = await claimIdempotencyKey(trx, {
          ...claim,
          now,
          expiredBefore: new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS),
        });
        if (outcome.kind === 'conflict') {
          throw idempotencyConflict();
        }
        if (outcome.kind === 'replay') {
          replay = outcome.answer;
          return;
        }
      }
      result = await next({ ctx: { trx, afterCommit } });
      if (!result.ok) throw ROLLBACK;
      // The status too: a procedure may answer another success status than its route's (an
      // already-linked wallet is a 200 where a new link is a 201), and a replay repeats it.
      if (claim) {
        const answer: StoredAnswer = { status: ctx.res.statusCode, data: result.data ?? null };
        await recordIdempotentAnswer(trx, claim, JSON.stringify(answer));
      }
    });
  } catch (error) {
    if (error !== ROLLBACK) throw error;
    return result;
  }
  if (replay !== undefined) {
    const answer = JSON.parse(replay) as StoredAnswer;
    ctx.res.statusCode = answer.status;
    return { ok: true as const, data: answer.data, marker: middlewareMarker };
  }
  for (const fn of committed) fn();
  await awaitReplicaAfterWrite(ctx);
  return result;
});

/** Runs `fn` once the write's transaction has committed. */
export type AfterCommit = (fn: () => void) => void;

/** The Idempotency-Key was used with another body or route (or its first request still runs). */
export const idempotencyConflict = () =>
  new DomainError(
    'IDEMPOTENCY_CONFLICT',
    'This Idempotency-Key was used with another request (another body or route); use a new key',
  );
