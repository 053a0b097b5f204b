/**
 * The operator's side of the catalogue (CONTRACT.md, Version 3): provider writes
 * (`providers:write`) and published performance (`stats:write`); the public chart of what is
 * published is read in providers.router.ts with the other public reads. Writes run in
 * writeTransaction (one transaction, Idempotency-Key, events in the same transaction, and the
 * replica caught up before the answer).
 */
import {
  DomainError,
  type EventDraft,
  PerformancePublishInputSchema,
  ProviderArchivedSchema,
  ProviderCreateBodySchema,
  ProviderIdParamsSchema,
  ProviderPatchInputSchema,
  ProviderStatsSchema,
  ProviderWriteSchema,
} from '@signal/core';
import * as examples from '@signal/core/examples';
import type { Database } from '@signal/db';
import {
  appendEvents,
  createProvider,
  isPublication,
  type ProviderWriteOutcome,
  publishPerformance,
  updateProvider,
} from '@signal/db';
import type { Kysely, Transaction } from 'kysely';
import { providerWriteProcedure, scopedProcedure } from '../service-auth.js';
import { providerNotFound, router } from '../trpc.js';
import { writeTransaction } from '../write-transaction.js';

/**
 * Applies `patch` to provider `id` in the write's transaction and records its events; 404
 * PROVIDER_NOT_FOUND when there is no such provider.
 */
async function patchProvider(
  trx: Transaction<Database>,
  id: number,
  patch: Parameters<typeof updateProvider>[2],
  now: Date,
): Promise<ProviderWriteOutcome['provider']> {
  const outcome = await updateProvider(trx, id, patch, now);
  if (outcome === 'provider-not-found') throw providerNotFound(id);
  await recordChanges(trx, outcome);
  return outcome.provider;
}

/** The largest body of a publication: 1,000 points (CONTRACT.md). */
const PUBLISH_BODY_BYTES = 64 * 1024;

/** The provider.* events of a write, in the order of its changes; none when nothing changed. */
function recordChanges(trx: Kysely<Database>, outcome: ProviderWriteOutcome): Promise<void> {
  const providerId = outcome.provider.id;
  return appendEvents(
    trx,
    outcome.changes.map((change) => ({ type: `provider.${change}`, data: { providerId } }) satisfies EventDraft),
  );
}

export const providerWritesRouter = router({
  create: providerWriteProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/providers',
        tags: ['operators'],
        summary: 'Create a provider',
        description:
          'Adds a provider to the catalogue (scope `providers:write`). `name` is trimmed, then 1..100 characters ' +
          'without control characters; `description` at most 2,000 characters or null; `avatarUrl` an absolute ' +
          'https URL of at most 2,048 characters or null; `revealDelaySeconds` (0..2,592,000, default 0) how long ' +
          'its signals are for followers only; any other field → 400. With `Idempotency-Key`, a retry ' +
          'within 24 h returns the first answer and creates nothing.',
        protect: true,
        successStatus: 201,
        example: { request: examples.createProviderRequest, response: examples.providerWrite },
      },
      errors: ['FORBIDDEN', 'IDEMPOTENCY_CONFLICT', 'RATE_LIMITED'],
      idempotent: true,
    })
    .input(ProviderCreateBodySchema)
    .use(writeTransaction)
    .output(ProviderWriteSchema)
    .mutation(async ({ input, ctx }) => {
      const outcome = await createProvider(ctx.trx, { ...input, now: ctx.services.now() });
      await recordChanges(ctx.trx, outcome);
      return outcome.provider;
    }),

  update: providerWriteProcedure
    .meta({
      openapi: {
        method: 'PATCH',
        path: '/providers/{id}',
        tags: ['operators'],
        summary: 'Edit, archive or restore a provider',
        description:
          'Changes any non-empty subset of `name`, `description`, `avatarUrl`, `revealDelaySeconds` (rules as at ' +
          'creation; a new delay applies to signals published from then on) and ' +
          '`archived` (scope `providers:write`). `archived: true` archives as DELETE does; `archived: false` ' +
          'restores the provider as it was, followers included; without `archived` an archived provider stays ' +
          'archived. Works on archived providers.',
        protect: true,
        example: {
          request: { id: examples.providerWrite.id, name: 'Swift Edge Quant II', archived: false },
          response: { ...examples.providerWrite, name: 'Swift Edge Quant II' },
        },
      },
      errors: ['FORBIDDEN', 'PROVIDER_NOT_FOUND', 'RATE_LIMITED'],
    })
    .input(ProviderPatchInputSchema)
    .use(writeTransaction)
    .output(ProviderWriteSchema)
    .mutation(({ input: { id, ...patch }, ctx }) => patchProvider(ctx.trx, id, patch, ctx.services.now())),

  archive: providerWriteProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/providers/{id}',
        tags: ['operators'],
        summary: 'Archive a provider',
        description:
          'Hides the provider from every public read (list, detail, stats, performance: 404), from ' +
          '`/me/following` and `followingCount`; it cannot be followed. Its follow rows and series are kept, so ' +
          '`PATCH {"archived": false}` restores it as it was. Idempotent (scope `providers:write`).',
        protect: true,
        example: {
          request: { id: examples.providerWrite.id },
          response: { id: examples.providerWrite.id, archived: true },
        },
      },
      errors: ['FORBIDDEN', 'PROVIDER_NOT_FOUND', 'RATE_LIMITED'],
    })
    .input(ProviderIdParamsSchema)
    .use(writeTransaction)
    .output(ProviderArchivedSchema)
    .mutation(async ({ input, ctx }) => {
      await patchProvider(ctx.trx, input.id, { archived: true }, ctx.services.now());
      return { id: input.id, archived: true as const };
    }),

  publish: scopedProcedure('stats:write')
    .meta({
      openapi: {
        method: 'POST',
        path: '/providers/{id}/performance',
        tags: ['operators'],
        summary: 'Publish performance',
        description:
          'The signal pipeline publishes daily NAV points (at most 1,000, upserted by date; dates from 1900-01-01, ' +
          'none in the future; nav a finite number in [1e-9, 1e15], deposits and withdrawals taken out) and/or ' +
          'signal counters (scope `stats:write`). The body is a JSON object (`{}` publishes nothing; `[]`, `null`, ' +
          'a string or a number → 400). Every figure is derived ' +
          'again from the whole stored series, as of its last date. Answers the Stats. Bodies up to 64 KiB. ' +
          'Archived providers take publications too. With `Idempotency-Key`, a retry within 24 h returns the first ' +
          'answer and changes nothing.',
        protect: true,
        example: { request: examples.publishPerformanceRequest, response: examples.providerStats },
      },
      errors: ['FORBIDDEN', 'PROVIDER_NOT_FOUND', 'IDEMPOTENCY_CONFLICT', 'RATE_LIMITED'],
      maxBodyBytes: PUBLISH_BODY_BYTES,
      idempotent: true,
    })
    .input(PerformancePublishInputSchema)
    .use(writeTransaction)
    .output(ProviderStatsSchema)
    .mutation(async ({ input, ctx }) => {
      const now = ctx.services.now();
      const today = now.toISOString().slice(0, 10);
      const future = (input.points ?? []).flatMap((point, index) =>
        point.date > today
          ? [{ path: ['points', index, 'date'], message: `must not be after today (${today}, UTC)` }]
          : [],
      );
      if (future.length > 0) {
        throw new DomainError('VALIDATION_ERROR', 'Invalid request: points: dates in the future', { issues: future });
      }
      const stats = await publishPerformance(ctx.trx, {
        providerId: input.id,
        points: input.points,
        signals: input.signals,
        now,
      });
      if (stats === 'provider-not-found') throw providerNotFound(input.id);
      if (isPublication(input)) {
        await appendEvents(ctx.trx, [{ type: 'provider.stats.updated', data: { providerId: input.id } }]);
      }
      return stats;
    }),
});
