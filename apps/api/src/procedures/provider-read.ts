/**
 * A public read of one provider's records (`GET /providers/{id}/…`), stated once: rate limited
 * like every public read, tagged `providers`, the provider's id its input, and 404
 * PROVIDER_NOT_FOUND when `read` finds no such provider (unknown, or archived). A route names
 * its path and words, its answer's schema and its read.
 */
import { ProviderIdParamsSchema } from '@signal/core';
import type { z } from 'zod';
import type { CacheMeta } from './cache-meta.js';
import type { Context } from './context.js';
import { readLimitedProcedure } from './rate-limit.js';
import { publicRead, type Words } from './route-meta.js';
import { providerNotFound } from './trpc.js';

interface ProviderRead<Answer extends z.ZodType> extends Omit<Words, 'tags'> {
  /** Its caching policy, when the answer may be cached (cache-policy.ts). */
  cache?: CacheMeta;
  answer: Answer;
  /** The provider's records; null or undefined when there is no such provider. */
  read: (ctx: Context, id: number) => Promise<z.input<Answer> | null | undefined>;
}

export function providerRead<Answer extends z.ZodType>({ cache, answer, read, ...openapi }: ProviderRead<Answer>) {
  return readLimitedProcedure
    .meta({
      ...(cache && { cache }),
      openapi: publicRead({ ...openapi, tags: ['providers'] }),
      errors: ['PROVIDER_NOT_FOUND', 'RATE_LIMITED'],
    })
    .input(ProviderIdParamsSchema)
    .output(answer)
    .query(async ({ input, ctx }) => {
      const found = await read(ctx, input.id);
      if (found === null || found === undefined) throw providerNotFound(input.id);
      // `read` is typed against the answer's schema; tRPC cannot relate a generic schema's
      // input to its own output type until the route names the schema.
      return found as never;
    });
}

interface ProviderList<Answer extends z.ZodType> extends Omit<ProviderRead<Answer>, 'read'> {
  /** The provider's rows, as the answer's items; null or undefined when there is no such provider. */
  rows: (
    db: Context['services']['database']['db'],
    id: number,
  ) => Promise<(z.input<Answer> extends { items: infer Items } ? Items : never) | null | undefined>;
}

/** A provider's rows answered as `{ items }`; its description ends with the archived case. */
export function providerList<Answer extends z.ZodType>({ rows, description, ...spec }: ProviderList<Answer>) {
  return providerRead({
    ...spec,
    description: `${description} Archived providers answer 404 as for the provider.`,
    read: async (ctx, id) => {
      const items = await rows(ctx.services.database.db, id);
      return items && ({ items } as z.input<Answer>);
    },
  });
}
