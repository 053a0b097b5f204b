/**
 * Query parameters that REST sends as text and tRPC as JSON: one parse for both, strict about
 * spelling (the contract refuses `1e1`, `0x10`, ` 5`), shared by every schema that takes them.
 */
import { z } from 'zod';

const DECIMAL_DIGITS = /^[0-9]+$/;

/**
 * An integer that REST sends as plain decimal digits in a query or path, and tRPC sends as a
 * JSON number. Digits become a number before validation; anything else (`1e1`, `0x10`, `1.5`,
 * empty) is left as a string and fails as "expected number". A preprocess rather than
 * `z.coerce` because coercion would accept exactly the spellings the contract rejects.
 * The cast only narrows the static input type to `number` for typed clients.
 */
export function integerParam(description: string, min: number, max: number) {
  return z
    .preprocess(
      (value) => (typeof value === 'string' && DECIMAL_DIGITS.test(value) ? Number(value) : value),
      z
        .number({
          // Missing: zod's own message, as for every other missing field.
          error: (issue) => (issue.input === undefined ? undefined : 'must be an integer in plain decimal digits'),
        })
        .int('must be an integer')
        .min(min, `must be at least ${min}`)
        .max(max, `must be at most ${max}`),
    )
    .describe(description) as unknown as z.ZodType<number, number>;
}

/** A plain decimal: optional minus, digits, optional fraction; no exponent, no `+`, no spaces. */
const PLAIN_DECIMAL = /^-?[0-9]{1,15}(\.[0-9]{1,15})?$/;

/**
 * A decimal number (`-12.5`, `0.25`, `3`) in a query (text) or over tRPC (a finite JSON
 * number), within [min, max] when given. Text must be a plain decimal of at most 15 digits on
 * either side of the point: `1e3`, `+5`, `.5`, `Infinity`, `NaN` or an empty value are refused.
 */
export function decimalParam(description: string, bounds: { min?: number; max?: number } = {}) {
  let number = z.number({
    error: (issue) =>
      issue.input === undefined ? undefined : 'must be a plain decimal number such as -12.5 (no exponent)',
  });
  if (bounds.min !== undefined) number = number.min(bounds.min, `must be at least ${bounds.min}`);
  if (bounds.max !== undefined) number = number.max(bounds.max, `must be at most ${bounds.max}`);
  return z
    .preprocess((value) => (typeof value === 'string' && PLAIN_DECIMAL.test(value) ? Number(value) : value), number)
    .describe(description) as unknown as z.ZodType<number, number>;
}
