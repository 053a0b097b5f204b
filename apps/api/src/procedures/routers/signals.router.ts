/**
 * Signals (CONTRACT.md, Version 4, "Signals"; docs/signals.md): open, update, close and cancel
 * by signed statements (the steps and their order: procedures/statements/acceptance.ts), and the
 * reads by provider, by id and for the signed-in follower. Every statement goes to the log by its
 * commitment; its answer waits until the entry is in a signed checkpoint and carries the receipt.
 * The Signal itself is made in one place, @signal/db's `readSignals`, for every reader.
 */
import {
  DomainError,
  MySignalsQuerySchema,
  ProviderSignalsQuerySchema,
  SignalListSchema,
  SignalOpenInputSchema,
  SignalParamsSchema,
  SignalSchema,
  type SignalStatementAnswer,
  SignalStatementAnswerSchema,
  type SignalStatus,
  SignalUpdateInputSchema,
} from '@signal/core';
import * as examples from '@signal/core/signal-examples';
import {
  closeFits,
  instantMs,
  type ReadStatement,
  type SignalCloseStatement,
  type SignalOpenStatement,
  subtractDec,
} from '@signal/core/statements';
import {
  isLiveProvider,
  listFollowedSignalKeys,
  listProviderSignalKeys,
  readRevealDelaySeconds,
  readSignalState,
  readSignals,
} from '@signal/db';
import { readLimitedProcedure } from '../rate-limit.js';
import { publicRead, signedInRead, statementRoute } from '../route-meta.js';
import { fullFor, invalidQuery, openCursor, pageOf, parseStatuses, sealCursor } from '../signal-paging.js';
import { signalReader } from '../signal-reader.js';
import { acceptStatement } from '../statements/acceptance.js';
import { STATEMENT_ORDER, signalClosed, signalNotFound } from '../statements/errors.js';
import { AFTER_SIGNATURE, checkSignerAndId, recordSignal, replayAnswer } from '../statements/signal-statements.js';
import { authedProcedure, providerNotFound, publicProcedure, router } from '../trpc.js';

const UPDATE_TYPES = ['signal.update', 'signal.close', 'signal.cancel'] as const;

export const signalsRouter = router({
  open: publicProcedure
    .meta(
      statementRoute({
        path: '/providers/{id}/signals',
        operationId: 'signals-open',
        tags: ['signals'],
        summary: 'Open a signal',
        description:
          'Takes a `signal.open` statement signed by a publisher wallet of the provider or a key it delegated. ' +
          '201 with the signal (as a reader who may see its content) and its receipt: the log index of its entry ' +
          '(`{"commitment","provider","receivedAt","signal","type","v":1}`: the content is not in the log), a signed ' +
          'checkpoint holding it and the inclusion proof. `publishedAt` is the server’s clock at acceptance; ' +
          '`revealAt` adds the provider’s `revealDelaySeconds` at that moment and never moves. ' +
          STATEMENT_ORDER +
          AFTER_SIGNATURE,
        successStatus: 201,
        example: { request: examples.openSignalRequest, response: examples.signalAnswer },
      }),
    )
    .input(SignalOpenInputSchema)
    .output(SignalStatementAnswerSchema)
    .mutation(({ input, ctx }) =>
      acceptStatement<'signal.open', SignalStatementAnswer>(ctx, input, {
        types: ['signal.open'],
        replay: replayAnswer(ctx),
        change: async (change) => {
          await checkSignerAndId(input.id, change);
          const statement = change.read.statement as SignalOpenStatement;
          const delay = await readRevealDelaySeconds(change.trx, input.id);
          const publishedAt = change.receivedAt;
          return recordSignal(ctx, input.id, change, {
            kind: 'open',
            publishedAt,
            revealAt: new Date(publishedAt.getTime() + delay * 1000),
            expiresAt: statement.expiresAt === null ? null : new Date(instantMs(statement.expiresAt)),
          });
        },
      }),
    ),

  update: publicProcedure
    .meta(
      statementRoute(
        {
          path: '/providers/{id}/signals/{signalId}/updates',
          operationId: 'signals-update',
          tags: ['signals'],
          summary: 'Update, close or cancel a signal',
          description:
            'Takes a `signal.update` (`stop`, `targets`, `note`: each named one replaces the current one; at least ' +
            'one), `signal.close` (`closePct`: that share of the original size is closed, 0 < x ≤ `openPct`; ' +
            '`openPct` reaching 0 closes the signal) or `signal.cancel` statement whose `signal` is the path’s ' +
            'signalId, signed as an open is. 201 with the signal after it and its receipt. ' +
            STATEMENT_ORDER +
            AFTER_SIGNATURE +
            ' Then: an unknown signal → 404 `SIGNAL_NOT_FOUND`; a signal closed, cancelled or expired at the ' +
            'statement’s receipt → 409 `SIGNAL_CLOSED`; a `closePct` beyond `openPct` → 400 naming ' +
            '`["statement","closePct"]`. These come after the signature so that no one but a signer learns a ' +
            'signal’s `openPct` before its reveal.',
          successStatus: 201,
          example: {
            request: examples.closeSignalRequest,
            response: { ...examples.signalAnswer, signal: examples.signal },
          },
        },
        ['SIGNAL_NOT_FOUND', 'SIGNAL_CLOSED'],
      ),
    )
    .input(SignalUpdateInputSchema)
    .output(SignalStatementAnswerSchema)
    .mutation(({ input, ctx }) =>
      acceptStatement<(typeof UPDATE_TYPES)[number], SignalStatementAnswer>(ctx, input, {
        types: UPDATE_TYPES,
        checkPath: (read: ReadStatement<(typeof UPDATE_TYPES)[number]>) => {
          if (read.statement.signal !== input.signalId) {
            const message = 'must be the signal of the path';
            throw new DomainError('VALIDATION_ERROR', `Invalid statement: statement.signal: ${message}`, {
              issues: [{ path: ['statement', 'signal'], message }],
            });
          }
        },
        replay: replayAnswer(ctx),
        change: async (change) => {
          await checkSignerAndId(input.id, change);
          const statement = change.read.statement;
          const state = await readSignalState(change.trx, input.id, input.signalId);
          if (!state) throw signalNotFound(input.id, input.signalId);
          if (state.status !== 'open') throw signalClosed(input.signalId, state.status);
          if (state.expiresAt !== null && state.expiresAt.getTime() <= change.receivedAt.getTime()) {
            throw signalClosed(input.signalId, 'expired');
          }
          if (statement.type === 'signal.cancel') {
            return recordSignal(ctx, input.id, change, { kind: 'change', status: 'cancelled' });
          }
          if (statement.type === 'signal.close') {
            const { closePct } = statement as SignalCloseStatement;
            if (!closeFits(closePct, state.openPct)) {
              const message = `must be at most the signal's openPct, ${state.openPct}`;
              throw new DomainError('VALIDATION_ERROR', `Invalid statement: statement.closePct: ${message}`, {
                issues: [{ path: ['statement', 'closePct'], message }],
              });
            }
            const openPct = subtractDec(state.openPct, closePct);
            return recordSignal(ctx, input.id, change, {
              kind: 'change',
              openPct,
              ...(openPct === '0' ? { status: 'closed' as const } : {}),
            });
          }
          return recordSignal(ctx, input.id, change, { kind: 'change' });
        },
      }),
    ),

  get: readLimitedProcedure
    .meta({
      openapi: publicRead({
        path: '/providers/{id}/signals/{signalId}',
        operationId: 'signals-get',
        tags: ['signals'],
        summary: 'A signal',
        description:
          'The signal with its statements in log order. Before `revealAt`, `content` and each statement’s ' +
          '`statement`, `signer` and `signature` are null except for a user who follows the provider now (Bearer ' +
          'token) and a service key with `signals:read` (or `ADMIN_KEY`); a key without that scope sees the ' +
          'public’s view. The answer depends on the reader: `Cache-Control: no-store`. A signal shows once its ' +
          'open is in the log’s tree (within a second of its acceptance), each statement once it is. Unknown or ' +
          'archived provider → 404 `PROVIDER_NOT_FOUND`; unknown signal → 404 `SIGNAL_NOT_FOUND`.',
        example: { request: { id: 5, signalId: examples.signal.id }, response: examples.unrevealedSignal },
      }),
      errors: ['PROVIDER_NOT_FOUND', 'SIGNAL_NOT_FOUND', 'RATE_LIMITED'],
      credential: 'optional',
    })
    .input(SignalParamsSchema)
    .output(SignalSchema)
    .query(async ({ input, ctx }) => {
      const reader = await signalReader(ctx);
      const full = await fullFor(ctx, reader, input.id);
      const [signal] = await readSignals(
        ctx.services.database.db,
        { keys: [{ providerId: input.id, id: input.signalId }] },
        { full, now: ctx.services.now() },
      );
      if (signal) return signal;
      const live = await isLiveProvider(ctx.services.database.db, input.id);
      throw live ? signalNotFound(input.id, input.signalId) : providerNotFound(input.id);
    }),

  list: readLimitedProcedure
    .meta({
      openapi: publicRead({
        path: '/providers/{id}/signals',
        operationId: 'signals-list',
        tags: ['signals'],
        summary: "A provider's signals",
        description:
          'Newest first by `publishedAt` (ties: the open’s log index, descending), by cursor, with no total; ' +
          '`status` keeps a comma list of `open`, `closed`, `cancelled`, `expired` (expiry judged now). Content as ' +
          'for a single signal (the reader decides; `Cache-Control: no-store`). A cursor keeps its `status`; ' +
          'another `status` with it → 400. Unknown or archived provider → 404.',
        example: { request: { id: 5, limit: 20, status: 'open,closed' }, response: examples.signalList },
      }),
      errors: ['PROVIDER_NOT_FOUND', 'RATE_LIMITED'],
      credential: 'optional',
    })
    .input(ProviderSignalsQuerySchema)
    .output(SignalListSchema)
    .query(async ({ input, ctx }) => {
      const kind = `signals:${input.id}`;
      const { cursors } = ctx.services;
      const requested = parseStatuses(input.status)?.join(',');
      const position = openCursor(cursors, kind, input.cursor);
      if (input.cursor !== undefined && requested !== undefined && requested !== position.statuses) {
        throw invalidQuery(
          'cursor',
          `was issued for status=${position.statuses ?? '(all)'}; send it alone or with the same status`,
        );
      }
      const statuses = position.statuses ?? requested;
      const reader = await signalReader(ctx);
      const now = ctx.services.now();
      const page = await listProviderSignalKeys(ctx.services.database.db, input.id, {
        limit: input.limit,
        now,
        ...(position.after ? { after: position.after } : {}),
        ...(statuses ? { statuses: statuses.split(',') as SignalStatus[] } : {}),
      });
      if (!page) throw providerNotFound(input.id);
      const full = page.keys.length > 0 && (await fullFor(ctx, reader, input.id));
      return { items: await pageOf(ctx, page, full), nextCursor: sealCursor(cursors, kind, page.next, statuses) };
    }),

  mine: authedProcedure
    .meta(
      signedInRead({
        path: '/me/signals',
        tags: ['signals'],
        summary: 'Signals of the providers the signed-in user follows',
        description:
          'The signals of the providers the user follows now, newest first (as a provider’s list), with their ' +
          'content before the reveal too; by cursor, no total. A service key → 403. Archived providers’ signals ' +
          'are left out.',
        example: { request: { limit: 20 }, response: { items: [examples.signal], nextCursor: null } },
      }),
    )
    .input(MySignalsQuerySchema)
    .output(SignalListSchema)
    .query(async ({ input, ctx }) => {
      // A cursor is bound to its user: another user's is refused like a forged one.
      const kind = `my-signals:${ctx.auth.userId}`;
      const { cursors } = ctx.services;
      const { after } = openCursor(cursors, kind, input.cursor);
      const page = await listFollowedSignalKeys(ctx.services.database.db, ctx.auth.userId, {
        limit: input.limit,
        now: ctx.services.now(),
        ...(after ? { after } : {}),
      });
      // Every provider in the page is one the user follows now.
      return { items: await pageOf(ctx, page, true), nextCursor: sealCursor(cursors, kind, page.next) };
    }),
});
