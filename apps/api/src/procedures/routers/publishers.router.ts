/**
 * A provider's publisher wallets (CONTRACT.md, Version 4, "Publishers and their keys"): added and
 * removed by operators (`providers:write`), listed publicly. Each effective change writes its row,
 * one `publisher.*` log entry and one `publisher.*` event in one transaction
 * (@signal/db's addPublisher/removePublisher); a repeat writes nothing. After the commit the log's
 * sequencer is kicked, so a checkpoint holding the entry follows within the second.
 */
import {
  DomainError,
  PublisherAddInputSchema,
  PublisherListSchema,
  PublisherRemovedSchema,
  PublisherSchema,
  PublisherWalletParamsSchema,
} from '@signal/core';
import * as examples from '@signal/core/log-examples';
import { parseWallet } from '@signal/core/wallet';
import { addPublisher, listPublishers, removePublisher } from '@signal/db';
import { providerList } from '../provider-read.js';
import { providerWriteProcedure } from '../service-auth.js';
import { providerNotFound, router } from '../trpc.js';
import { writeTransaction } from '../write-transaction.js';

export const publishersRouter = router({
  add: providerWriteProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/providers/{id}/publishers',
        tags: ['operators'],
        summary: 'Add a publisher wallet to a provider',
        description:
          'Makes the wallet (EVM or Solana, any accepted spelling) a publisher of the provider: it may then sign ' +
          'the provider’s statements (scope `providers:write`). 201 with the new publisher; already a publisher → ' +
          '200 with the same body, and nothing changes. Adding a removed wallet again makes a new row. Each ' +
          'addition appends a `publisher.added` entry to the public log and announces a `publisher.added` event. ' +
          'Archived providers take changes too.',
        protect: true,
        successStatus: 201,
        example: { request: examples.addPublisherRequest, response: examples.publisher },
      },
      errors: ['FORBIDDEN', 'INVALID_WALLET', 'PROVIDER_NOT_FOUND', 'RATE_LIMITED'],
      alsoAnswers: [{ status: 200, description: 'Already a publisher: the same body, nothing appended' }],
    })
    .input(PublisherAddInputSchema)
    .use(writeTransaction)
    .output(PublisherSchema)
    .mutation(async ({ input, ctx }) => {
      const { wallet, chain } = parseWallet(input.wallet);
      const outcome = await addPublisher(ctx.trx, { providerId: input.id, wallet, chain, now: ctx.services.now() });
      if (outcome.kind === 'provider-not-found') throw providerNotFound(input.id);
      if (outcome.kind === 'already') {
        // REST answers 201 (the route's successStatus) unless told otherwise.
        ctx.res.statusCode = 200;
        return outcome.publisher;
      }
      ctx.afterCommit(() => ctx.services.logSequencer.kick());
      return outcome.publisher;
    }),

  remove: providerWriteProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/providers/{id}/publishers/{wallet}',
        tags: ['operators'],
        summary: 'Remove a publisher wallet from a provider',
        description:
          'The wallet stops being a publisher of the provider (scope `providers:write`), and the keys it delegated ' +
          'stop with it. Idempotent: an already removed publisher → 200 with the same body, and nothing changes; a ' +
          'wallet that never was one → 404 `NOT_FOUND`. Each removal appends a `publisher.removed` log entry and ' +
          'announces a `publisher.removed` event.',
        protect: true,
        example: {
          request: { id: examples.publisher.providerId, wallet: examples.publisher.wallet },
          response: examples.publisherRemoved,
        },
      },
      errors: ['FORBIDDEN', 'INVALID_WALLET', 'PROVIDER_NOT_FOUND', 'NOT_FOUND', 'RATE_LIMITED'],
    })
    .input(PublisherWalletParamsSchema)
    .use(writeTransaction)
    .output(PublisherRemovedSchema)
    .mutation(async ({ input, ctx }) => {
      const { wallet } = parseWallet(input.wallet);
      const outcome = await removePublisher(ctx.trx, { providerId: input.id, wallet, now: ctx.services.now });
      if (outcome.kind === 'provider-not-found') throw providerNotFound(input.id);
      if (outcome.kind === 'never') {
        throw new DomainError('NOT_FOUND', `${wallet} was never a publisher of provider ${input.id}`);
      }
      if (outcome.kind === 'removed') ctx.afterCommit(() => ctx.services.logSequencer.kick());
      return { providerId: input.id, wallet, removed: true as const };
    }),

  list: providerList({
    path: '/providers/{id}/publishers',
    summary: "A provider's publisher wallets",
    description:
      'Every wallet that is or was a publisher of the provider, oldest first; removed ones carry `removedAt`. A ' +
      'wallet added again after a removal has a row per addition.',
    example: { request: { id: examples.publisher.providerId }, response: examples.publisherList },
    answer: PublisherListSchema,
    rows: listPublishers,
  }),
});
