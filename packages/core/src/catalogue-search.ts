/**
 * The catalogue's filters (CONTRACT.md, Version 3, "A catalogue to search"): the query
 * parameters of `GET /providers` that narrow the list, each optional, combined with AND. One
 * definition for the router, the OpenAPI document, the SDK and the cursor, which carries them.
 */
import { z } from 'zod';
import { decimalParam, integerParam } from './query-params.js';
import { boundedText } from './schema-shapes.js';

export const MAX_SEARCH_LENGTH = 100;

// Names cannot hold control characters (Unicode Cc), so a search with one matches nothing; it
// is refused instead, which also keeps NUL (which PostgreSQL text cannot carry) off the wire.
const CONTROL = /\p{Cc}/u;

/** Every filter, by its query parameter name. */
export const ProviderFilterShape = {
  q: boundedText(MAX_SEARCH_LENGTH)
    .refine((text) => !CONTROL.test(text), 'must not contain control characters')
    .describe(
      `Name search, 1..${MAX_SEARCH_LENGTH} characters: providers whose name contains this text, ignoring the case of ` +
        'ASCII letters; `%`, `_` and `\\` are plain characters',
    )
    .optional(),
  minRoi30dPct: decimalParam(
    'Only providers whose roi30dPct is at least this (a plain decimal such as -12.5); one without the figure fails',
  ).optional(),
  maxDrawdownPct: decimalParam('Only providers whose maxDrawdownPct is at most this (a decimal ≥ 0)', {
    min: 0,
  }).optional(),
  minWinRate: decimalParam('Only providers whose winRate is at least this (a decimal 0..1)', {
    min: 0,
    max: 1,
  }).optional(),
  minTradingDays: integerParam(
    'Only providers with at least this many points in their published series, tradingDays (an integer ≥ 0)',
    0,
    Number.MAX_SAFE_INTEGER,
  ).optional(),
  minFollowers: integerParam(
    'Only providers with at least this many followers (an integer ≥ 0)',
    0,
    Number.MAX_SAFE_INTEGER,
  ).optional(),
};

export const PROVIDER_FILTER_FIELDS = Object.keys(ProviderFilterShape) as (keyof typeof ProviderFilterShape)[];
export type ProviderFilterField = (typeof PROVIDER_FILTER_FIELDS)[number];

export const ProviderFiltersSchema = z.object(ProviderFilterShape);
/** The filters of one listing: only the ones given are present. */
export type ProviderFilters = z.infer<typeof ProviderFiltersSchema>;

/** The filters present in a parsed request, and nothing else, in a fixed key order. */
export function pickProviderFilters(input: Partial<Record<ProviderFilterField, unknown>>): ProviderFilters {
  const filters: Record<string, unknown> = {};
  for (const field of PROVIDER_FILTER_FIELDS) if (input[field] !== undefined) filters[field] = input[field];
  return filters as ProviderFilters;
}

/** True when both name the same filters with the same values. */
export function sameProviderFilters(a: ProviderFilters, b: ProviderFilters): boolean {
  return PROVIDER_FILTER_FIELDS.every((field) => a[field] === b[field]);
}
