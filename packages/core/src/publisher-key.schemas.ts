/**
 * Wire schemas of the delegated-key routes (CONTRACT.md, Version 4, "Publishers and their keys",
 * "Signed statements"): the statement body they take, the key they answer with, the list.
 */
import { z } from 'zod';
import { isoTimestamp } from './schema-shapes.js';
import { ProviderIdParamsSchema } from './schemas.js';
import { StatementBodySchema } from './statements/statement.schemas.js';

const logIndex = z.number().int().nonnegative();

export const PublisherKeySchema = z.object({
  key: z.string().describe('The delegated key, `ed25519:<base58 of the 32-byte public key>`'),
  providerId: z.number().int().positive().describe('The provider it may sign for'),
  wallet: z.string().describe('The publisher wallet that delegated it (canonical)'),
  issuedAt: isoTimestamp.describe("The delegation statement's `issuedAt`: the key may sign from then on"),
  expiresAt: isoTimestamp.describe("The delegation statement's `expiresAt`: the key may sign until then (excluded)"),
  revokedAt: isoTimestamp
    .nullable()
    .describe('When the first `key.revoke` statement was accepted; null while not revoked'),
  logIndex: logIndex
    .nullable()
    .describe(
      "The log index of the `key.delegate` statement's entry. Always set in the delegation's answer (sent once the " +
        'entry is in a signed checkpoint); in a list, null for the instant between its acceptance and the next checkpoint',
    ),
});
export type PublisherKey = z.infer<typeof PublisherKeySchema>;

export const PublisherKeyListSchema = z.object({
  items: z
    .array(PublisherKeySchema)
    .describe('Every key delegated for the provider, oldest first, revoked ones included'),
});
export type PublisherKeyList = z.infer<typeof PublisherKeyListSchema>;

/** `POST /providers/{id}/publisher-keys`: the path's provider and a signed `key.delegate` statement. */
export const PublisherKeyDelegateInputSchema = ProviderIdParamsSchema.extend(StatementBodySchema.shape);
export type PublisherKeyDelegateInput = z.input<typeof PublisherKeyDelegateInputSchema>;

/** `POST /providers/{id}/publisher-keys/{key}/revoke`: the path's key must be the statement's. */
export const PublisherKeyRevokeInputSchema = PublisherKeyDelegateInputSchema.extend({
  key: z.string().describe('The key to revoke, `ed25519:<base58>` (the statement’s `key`)'),
});
export type PublisherKeyRevokeInput = z.input<typeof PublisherKeyRevokeInputSchema>;

export const PublisherKeyRevokedSchema = z.object({
  key: z.string().describe('The revoked key'),
  revoked: z.literal(true),
  logIndex: logIndex.describe("The log index of the key's first `key.revoke` statement"),
});
export type PublisherKeyRevoked = z.infer<typeof PublisherKeyRevokedSchema>;
