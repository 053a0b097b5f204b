/**
 * The public log's proofs as JSON (CONTRACT.md, "The log"): an entry's inclusion in a tree of a
 * given size, and the consistency of two tree sizes, both from the stored tiles. Any size up to
 * the log's size at the time of the request answers (every past checkpoint's). The checkpoint,
 * the key and the tiles are bytes, served by the host (pages/log-files.ts).
 */
import {
  ConsistencyProofQuerySchema,
  ConsistencyProofSchema,
  DomainError,
  InclusionProofQuerySchema,
  InclusionProofSchema,
} from '@signal/core';
import { proveTree, toBase64 } from '@signal/core/log';
import * as examples from '@signal/core/log-examples';
import { logTileCache, readLogSize, storedLogTiles } from '@signal/db';
import type { Context } from '../context.js';
import { publicRead } from '../route-meta.js';
import { proveInclusion } from '../statements/receipt.js';
import { publicProcedure, router } from '../trpc.js';

/** A 400 naming the parameter, as zod's refusals do. */
const outOfBounds = (field: string, message: string) =>
  new DomainError('VALIDATION_ERROR', `Invalid request: ${field}: ${message}`, {
    issues: [{ path: [field], message }],
  });

/**
 * The log's size when asking for `needed`: the served checkpoint's when it covers it (the tree
 * only grows, and every size up to it has stored tiles), else the database's, so a proof of a
 * known size reads nothing from the database once its tiles are cached.
 */
async function logSizeFor(services: Context['services'], needed: number): Promise<number> {
  const served = services.logSequencer.checkpoint()?.size ?? 0;
  return served >= needed ? served : readLogSize(services.database.db);
}

const LOG_ERRORS = ['RATE_LIMITED'] as const;

export const logRouter = router({
  inclusion: publicProcedure
    .meta({
      openapi: publicRead({
        path: '/log/proof/inclusion',
        tags: ['log'],
        summary: 'Inclusion proof of a log entry',
        description:
          'The proof that entry `index` is in the tree of `size` entries (0 ≤ index < size ≤ the log’s size: any ' +
          'past checkpoint’s size answers), with the entry’s leaf hash; check it against that checkpoint’s root ' +
          '(RFC 9162, as Go’s `tlog.CheckRecord`). Hashes are padded standard base64. Out of bounds → 400.',
        example: { request: { index: 1, size: 3 }, response: examples.inclusionProof },
      }),
      errors: [...LOG_ERRORS],
    })
    .input(InclusionProofQuerySchema)
    .output(InclusionProofSchema)
    .query(async ({ input, ctx }) => {
      const { db } = ctx.services.database;
      const treeSize = await logSizeFor(ctx.services, input.size);
      if (input.size > treeSize) throw outOfBounds('size', `must be at most the log's size, ${treeSize}`);
      if (input.index >= input.size) throw outOfBounds('index', `must be less than size (${input.size})`);
      const { leafHash, proof } = await proveInclusion(db, input.index, input.size);
      return { index: input.index, size: input.size, leafHash, proof };
    }),

  consistency: publicProcedure
    .meta({
      openapi: publicRead({
        path: '/log/proof/consistency',
        tags: ['log'],
        summary: 'Consistency proof between two log sizes',
        description:
          'The proof that the tree of `from` entries is a prefix of the tree of `to` entries (1 ≤ from ≤ to ≤ the ' +
          'log’s size); `from = to` → an empty proof. A monitor keeps its last checkpoint and checks each new one ' +
          'with it (as Go’s `tlog.CheckTree`). Hashes are padded standard base64. Out of bounds → 400.',
        example: { request: { from: 2, to: 3 }, response: examples.consistencyProof },
      }),
      errors: [...LOG_ERRORS],
    })
    .input(ConsistencyProofQuerySchema)
    .output(ConsistencyProofSchema)
    .query(async ({ input, ctx }) => {
      const { db } = ctx.services.database;
      const treeSize = await logSizeFor(ctx.services, input.to);
      if (input.to > treeSize) throw outOfBounds('to', `must be at most the log's size, ${treeSize}`);
      if (input.from > input.to) throw outOfBounds('from', `must be at most to (${input.to})`);
      const proof =
        input.from === input.to
          ? []
          : await proveTree(input.to, input.from, logTileCache(db).hashReader(input.to, storedLogTiles(db)));
      return { from: input.from, to: input.to, proof: proof.map(toBase64) };
    }),
});
