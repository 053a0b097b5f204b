/**
 * Delegated keys (CONTRACT.md, Version 4, "Publishers and their keys"): a publisher wallet
 * delegates an Ed25519 key with a signed `key.delegate` statement, a wallet or the key itself ends
 * it with `key.revoke`, and anyone lists them. The statements are the credential (no
 * Authorization; one sent is ignored) and go to the log whole (public at once); the routes'
 * common steps and their order are procedures/statements/acceptance.ts's.
 */
import {
  DomainError,
  type PublisherKey,
  PublisherKeyDelegateInputSchema,
  PublisherKeyListSchema,
  type PublisherKeyRevoked,
  PublisherKeyRevokedSchema,
  PublisherKeyRevokeInputSchema,
  PublisherKeySchema,
} from '@signal/core';
import * as examples from '@signal/core/log-examples';
import {
  delegationRightAt,
  instantMs,
  type KeyDelegateStatement,
  type KeyRevokeStatement,
  keyLogEntry,
  revocationRightAt,
} from '@signal/core/statements';
import {
  delegatePublisherKey,
  listPublisherKeys,
  readProviderSigners,
  readPublisherKeyForUpdate,
  revokePublisherKey,
} from '@signal/db';
import type { Context } from '../context.js';
import { providerList } from '../provider-read.js';
import { statementRoute } from '../route-meta.js';
import { acceptStatement, awaitInclusion, type Replay } from '../statements/acceptance.js';
import { forbidden, STATEMENT_ORDER as ORDER } from '../statements/errors.js';
import { publicProcedure, router } from '../trpc.js';

/** A retry's answer: the first one, with the index of the entry it made (read from the log). */
const replayWithIndex =
  <A>(ctx: Context) =>
  async ({ answer, acceptance }: Replay): Promise<A> =>
    ({ ...(answer as object), logIndex: (await awaitInclusion(ctx, acceptance)).logIndex }) as A;

const iso = (instant: string) => new Date(instantMs(instant)).toISOString();

export const publisherKeysRouter = router({
  delegate: publicProcedure
    .meta(
      statementRoute({
        path: '/providers/{id}/publisher-keys',
        operationId: 'publisher-keys-delegate',
        tags: ['publishers'],
        summary: 'Delegate a key to sign for a provider',
        description:
          'Takes a `key.delegate` statement signed by a publisher wallet of the provider: the key ' +
          '(`ed25519:<base58>`) may then sign the provider’s signal statements from `issuedAt` until `expiresAt`, ' +
          'while that wallet stays a publisher. 201 with the key and the log index of the statement, which goes to ' +
          'the log whole. A key is delegated once: another delegation of it → 409 `IDEMPOTENCY_CONFLICT`. ' +
          ORDER,
        successStatus: 201,
        example: { request: examples.delegateKeyRequest, response: examples.publisherKey },
      }),
    )
    .input(PublisherKeyDelegateInputSchema)
    .output(PublisherKeySchema)
    .mutation(({ input, ctx }) =>
      acceptStatement<'key.delegate', PublisherKey>(ctx, input, {
        types: ['key.delegate'],
        replay: replayWithIndex(ctx),
        change: async ({ trx, read, signer, digest, receivedAt, checkSignature }) => {
          const statement = read.statement as KeyDelegateStatement;
          const signers = await readProviderSigners(trx, input.id);
          const right = delegationRightAt(signers, signer.id, receivedAt);
          if (!right.allowed) throw forbidden(signer.id, input.id, right);
          await checkSignature();
          const answer = {
            key: statement.key,
            providerId: input.id,
            wallet: signer.id,
            issuedAt: iso(statement.issuedAt),
            expiresAt: iso(statement.expiresAt),
            revokedAt: null,
          };
          const outcome = await delegatePublisherKey(
            trx,
            {
              key: statement.key,
              wallet: signer.id,
              issuedAt: new Date(answer.issuedAt),
              expiresAt: new Date(answer.expiresAt),
            },
            {
              digest,
              providerId: input.id,
              type: statement.type,
              answer,
              receivedAt,
              entry: keyEntry(input.id, receivedAt, read.text, signer.id, read.signature, 'key.delegate'),
              event: {
                type: 'publisher_key.delegated',
                data: { key: statement.key, wallet: signer.id, providerId: input.id },
              },
            },
          );
          if (outcome.kind === 'key-used') {
            throw new DomainError(
              'IDEMPOTENCY_CONFLICT',
              `${statement.key} was delegated for provider ${input.id} before: a key is delegated once`,
            );
          }
          return { acceptance: outcome.acceptance, answer: ({ logIndex }) => ({ ...answer, logIndex }) };
        },
      }),
    ),

  revoke: publicProcedure
    .meta(
      statementRoute(
        {
          path: '/providers/{id}/publisher-keys/{key}/revoke',
          operationId: 'publisher-keys-revoke',
          tags: ['publishers'],
          summary: 'Revoke a delegated key',
          description:
            'Takes a `key.revoke` statement for the path’s key (the statement’s `key` must be it), signed by a ' +
            'publisher wallet of the provider or by the key itself while it may sign: from the statement’s receipt on, ' +
            'the key signs nothing more. 200 with the log index of the revocation, which goes to the log whole. ' +
            'Idempotent: revoking a revoked key (by its wallet, a publisher or itself) → 200 with the first revoke’s ' +
            'answer and nothing appended; a key never delegated for the provider → 404 `NOT_FOUND` (after the ' +
            'signature check). ' +
            ORDER,
          example: {
            request: { ...examples.delegateKeyRequest, key: examples.publisherKey.key },
            response: examples.publisherKeyRevoked,
          },
        },
        ['NOT_FOUND'],
      ),
    )
    .input(PublisherKeyRevokeInputSchema)
    .output(PublisherKeyRevokedSchema)
    .mutation(({ input, ctx }) =>
      acceptStatement<'key.revoke', PublisherKeyRevoked>(ctx, input, {
        types: ['key.revoke'],
        checkPath: (read) => {
          if ((read.statement as KeyRevokeStatement).key !== pathKey(input.key)) {
            const message = 'must be the key of the path';
            throw new DomainError('VALIDATION_ERROR', `Invalid statement: statement.key: ${message}`, {
              issues: [{ path: ['statement', 'key'], message }],
            });
          }
        },
        replay: replayWithIndex(ctx),
        change: async ({ trx, read, signer, digest, receivedAt, checkSignature, done }) => {
          const { key } = read.statement as KeyRevokeStatement;
          const row = await readPublisherKeyForUpdate(trx, input.id, key);
          const signers = await readProviderSigners(trx, input.id);
          // A revoked key may still ask for its own revocation again (and gets the first answer).
          const selfAgain = row?.revokeAcceptance && signer.id === key;
          if (!selfAgain) {
            const right = revocationRightAt(signers, signer.id, key, receivedAt);
            if (!right.allowed) throw forbidden(signer.id, input.id, right);
          }
          await checkSignature();
          if (!row) throw new DomainError('NOT_FOUND', `${key} is not a key delegated for provider ${input.id}`);
          if (row.revokeAcceptance) {
            done({ acceptance: row.revokeAcceptance, answer: ({ logIndex }) => ({ key, revoked: true, logIndex }) });
          }
          const answer = { key, revoked: true as const };
          const acceptance = await revokePublisherKey(trx, key, {
            digest,
            providerId: input.id,
            type: 'key.revoke',
            answer,
            receivedAt,
            entry: keyEntry(input.id, receivedAt, read.text, signer.id, read.signature, 'key.revoke'),
            event: { type: 'publisher_key.revoked', data: { key, wallet: row.wallet, providerId: input.id } },
          });
          return { acceptance, answer: ({ logIndex }) => ({ ...answer, logIndex }) };
        },
      }),
    ),

  list: providerList({
    path: '/providers/{id}/publisher-keys',
    operationId: 'publisher-keys-list',
    summary: "A provider's delegated keys",
    description:
      'Every key delegated for the provider, oldest first, with the wallet that delegated it, its validity and ' +
      '`revokedAt`.',
    example: { request: { id: examples.publisherKey.providerId }, response: examples.publisherKeyList },
    answer: PublisherKeyListSchema,
    rows: async (db, id) => (await listPublisherKeys(db, id))?.map(({ revokeAcceptance: _, ...key }) => key),
  }),
});

/** The path's key: REST hands path parameters over as sent, and clients often percent-encode the `:`. */
function pathKey(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function keyEntry(
  provider: number,
  receivedAt: Date,
  statement: string,
  signer: string,
  signature: string,
  type: 'key.delegate' | 'key.revoke',
): Uint8Array {
  return new TextEncoder().encode(keyLogEntry({ provider, receivedAt, statement, signer, signature, type }));
}
