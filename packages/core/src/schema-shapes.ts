/**
 * The shapes several wire schemas repeat, written once: a timestamp, a bounded non-empty text,
 * a page size with its default, and the answer of a call that ends something (`{ id, revoked: true }`).
 */
import { z } from 'zod';
import { integerParam } from './query-params.js';

export const isoTimestamp = z.iso.datetime().describe('ISO 8601 timestamp, UTC');

/** Text of 1..`max` characters, with the contract's messages for either bound. */
export function boundedText(max: number) {
  return z.string().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
}

/** `limit` of a listing: `<items> per page, 1..max`, `fallback` when absent. */
export function pageLimitParam(items: string, max: number, fallback: number) {
  return integerParam(`${items} per page, 1..${max}`, 1, max).default(fallback);
}

/**
 * The page size of the lists internal services read in bulk (the event feed, a provider's
 * followers, a webhook's deliveries): up to 1,000 a page, 100 by default.
 */
export const serviceLimitParam = (items: string) => pageLimitParam(items, 1_000, 100);

/** The answer of a call that ends something: the id it ended and `<flag>: true`. */
export function endedSchema<const Flag extends string>(flag: Flag, description: string) {
  return z.object({ id: z.string().describe(description) }).extend({ [flag]: z.literal(true) } as {
    [K in Flag]: z.ZodLiteral<true>;
  });
}

/**
 * The answer of a create that makes a secret (a service key, a webhook's signing secret): `record`
 * as the reads show it, and the secret under `field`, which no answer but this one carries.
 */
export function withSecretShownOnce<Shape extends z.ZodRawShape, const Field extends string>(
  record: z.ZodObject<Shape>,
  field: Field,
  what: string,
  use: string,
) {
  return record.extend({ [field]: z.string().describe(`${what}, shown in this answer only: ${use}`) } as {
    [K in Field]: z.ZodString;
  });
}

/**
 * The input of a `PATCH /<resource>/{id}`: the path's `id` and a non-empty subset of the other
 * fields (each optional in `shape`); unknown fields are refused.
 */
export function patchSchema<Shape extends z.ZodRawShape>(shape: Shape) {
  return z
    .strictObject(shape)
    .refine((input) => Object.keys(input).some((key) => key !== 'id'), 'must change at least one field');
}

/**
 * A subscription's input (events.stream, signals.live): optional as a whole, so tRPC's documented
 * `subscribe(undefined)` is the same as `subscribe({})` (CONTRACT.md: "none, `undefined` and `{}`
 * are the same"); the resolver reads `input ?? {}`.
 */
export const subscriptionInput = <Shape extends z.ZodRawShape>(shape: Shape) => z.object(shape).optional();
