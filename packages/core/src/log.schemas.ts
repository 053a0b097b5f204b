/**
 * Wire schemas of the public log's JSON routes and of the publisher routes (CONTRACT.md, Version
 * 4: "The log", "Publishers and their keys"). The log's own formats (checkpoints, tiles, entry
 * bundles) are bytes, in @signal/core/log.
 */
import { z } from 'zod';
import { integerParam } from './query-params.js';
import { isoTimestamp } from './schema-shapes.js';
import { ChainSchema, ProviderIdParamsSchema } from './schemas.js';

/** The largest tree size a query may name: JavaScript's safe integers (the tree math's bound). */
const MAX_LOG_SIZE = Number.MAX_SAFE_INTEGER;

/** A tree size in an answer (a query's is `logSize`'s). */
const treeSize = z.number().int().positive();
/** A tree size a query names, from `min` to the largest the tree math takes. */
const logSize = (description: string, min: number) => integerParam(description, min, MAX_LOG_SIZE);

const base64Hash = z.string().describe('A SHA-256 hash, padded standard base64 (44 characters)');
const proof = z
  .array(base64Hash)
  .describe("The proof's hashes in RFC 9162's order (as Go's sumdb/tlog builds and checks them)");

export const InclusionProofQuerySchema = z.object({
  index: logSize('The entry, 0 ≤ index < size', 0),
  size: logSize("A tree size, 1 ≤ size ≤ the log's size (any past checkpoint's)", 1),
});
export type InclusionProofQuery = z.input<typeof InclusionProofQuerySchema>;

export const InclusionProofSchema = z.object({
  index: z.number().int().nonnegative().describe('The entry'),
  size: treeSize.describe('The tree size the proof is for'),
  leafHash: base64Hash.describe("The entry's leaf hash, SHA-256(0x00 ‖ entry), padded standard base64"),
  proof,
});
export type InclusionProof = z.infer<typeof InclusionProofSchema>;

export const ConsistencyProofQuerySchema = z.object({
  from: logSize('The older tree size, 1 ≤ from ≤ to', 1),
  to: logSize("The newer tree size, from ≤ to ≤ the log's size", 1),
});
export type ConsistencyProofQuery = z.input<typeof ConsistencyProofQuerySchema>;

export const ConsistencyProofSchema = z.object({
  from: treeSize.describe('The older tree size'),
  to: treeSize.describe('The newer tree size'),
  proof: proof.describe('The consistency proof, RFC 9162 order; empty when from = to'),
});
export type ConsistencyProof = z.infer<typeof ConsistencyProofSchema>;

export const PublisherSchema = z.object({
  providerId: z.number().int().positive().describe('The provider'),
  wallet: z.string().describe('The publisher wallet, canonical (EIP-55 for EVM, as given for Solana)'),
  chain: ChainSchema,
  addedAt: isoTimestamp.describe('When this wallet became a publisher (this row: adding it again makes a new one)'),
  removedAt: isoTimestamp.nullable().describe('When it was removed; null while it is a publisher'),
});
export type Publisher = z.infer<typeof PublisherSchema>;

export const PublisherListSchema = z.object({
  items: z.array(PublisherSchema).describe('Every publisher row of the provider, oldest first, removed ones included'),
});
export type PublisherList = z.infer<typeof PublisherListSchema>;

export const PublisherAddInputSchema = ProviderIdParamsSchema.extend({
  wallet: z.string().describe('The wallet to make a publisher (any accepted spelling: EVM or Solana)'),
});
export type PublisherAddInput = z.input<typeof PublisherAddInputSchema>;

export const PublisherWalletParamsSchema = ProviderIdParamsSchema.extend({
  wallet: z.string().describe('A publisher wallet of the provider (any accepted spelling of its address)'),
});
export type PublisherWalletParams = z.input<typeof PublisherWalletParamsSchema>;

export const PublisherRemovedSchema = z.object({
  providerId: z.number().int().positive().describe('The provider'),
  wallet: z.string().describe('The canonical wallet that is no longer a publisher'),
  removed: z.literal(true),
});
export type PublisherRemoved = z.infer<typeof PublisherRemovedSchema>;
