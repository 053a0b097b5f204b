/**
 * Wire schemas of the operator's side of the catalogue (CONTRACT.md, Version 3: "Operators'
 * writes to the catalogue" and "Performance published by the signal pipeline"): provider writes,
 * published performance, and the public performance chart.
 */
import { z } from 'zod';
import { PERFORMANCE_WINDOWS } from './performance.js';
import { patchSchema } from './schema-shapes.js';
import { isoDate, ProviderIdParamsSchema, ProviderSchema } from './schemas.js';

const providerId = ProviderIdParamsSchema.shape.id;

export const MAX_PROVIDER_NAME_LENGTH = 100;
export const MAX_PROVIDER_DESCRIPTION_LENGTH = 2000;
export const MAX_AVATAR_URL_LENGTH = 2048;
export const MAX_PUBLISHED_POINTS = 1000;
/** The int4 columns' limit, for signal counts. */
const MAX_INT4 = 2_147_483_647;

const CONTROL_CHARACTER = /\p{Cc}/u;
/** Length in characters (code points), as people count them, not UTF-16 units. */
const characters = (text: string) => [...text].length;

const providerName = z
  .string()
  .trim()
  .refine((name) => characters(name) >= 1, 'must not be empty (after trimming white space)')
  .refine(
    (name) => characters(name) <= MAX_PROVIDER_NAME_LENGTH,
    `must be at most ${MAX_PROVIDER_NAME_LENGTH} characters`,
  )
  .refine((name) => !CONTROL_CHARACTER.test(name), 'must not contain control characters')
  .describe(
    `Display name: surrounding white space trimmed, then 1..${MAX_PROVIDER_NAME_LENGTH} characters, no control characters`,
  );

const providerDescription = z
  .string()
  .refine(
    (text) => characters(text) <= MAX_PROVIDER_DESCRIPTION_LENGTH,
    `must be at most ${MAX_PROVIDER_DESCRIPTION_LENGTH} characters`,
  )
  .nullable()
  .describe(`What the provider trades (at most ${MAX_PROVIDER_DESCRIPTION_LENGTH} characters), or null`);

function isAbsoluteHttps(text: string): boolean {
  try {
    return new URL(text).protocol === 'https:';
  } catch {
    return false;
  }
}

const avatarUrl = z
  .string()
  .max(MAX_AVATAR_URL_LENGTH, `must be at most ${MAX_AVATAR_URL_LENGTH} characters`)
  .refine(isAbsoluteHttps, 'must be an absolute https URL')
  .nullable()
  .describe(`Avatar image, an absolute https URL (at most ${MAX_AVATAR_URL_LENGTH} characters), or null`);

const revealDelaySeconds = z
  .number()
  .int('must be a whole number of seconds')
  .min(0)
  .max(2_592_000, 'must be at most 2,592,000 (30 days)')
  .describe(
    "Seconds a new signal stays for followers only before it is public, 0..2,592,000 (30 days); 0 by default. A signal's reveal time is fixed when it is published",
  );

/** `POST /providers`; unknown fields are refused. */
export const ProviderCreateBodySchema = z.strictObject({
  name: providerName,
  description: providerDescription.optional(),
  avatarUrl: avatarUrl.optional(),
  revealDelaySeconds: revealDelaySeconds.optional(),
});
export type ProviderCreateBody = z.input<typeof ProviderCreateBodySchema>;

/**
 * `PATCH /providers/{id}`: the path's id and a non-empty subset of the fields (the REST mapping
 * merges path and body into one input); `archived` archives (true) or restores (false).
 */
export const ProviderPatchInputSchema = patchSchema({
  id: providerId,
  name: providerName.optional(),
  description: providerDescription.optional(),
  avatarUrl: avatarUrl.optional(),
  revealDelaySeconds: revealDelaySeconds.optional(),
  archived: z
    .boolean()
    .optional()
    .describe('true archives the provider (as DELETE does), false restores it; absent: left as it is'),
});
export type ProviderPatchInput = z.input<typeof ProviderPatchInputSchema>;

/** A provider as the writes answer it: with `archived`, which public reads do not carry. */
export const ProviderWriteSchema = ProviderSchema.extend({
  archived: z.boolean().describe('True while the provider is archived (hidden from every public read)'),
});
export type ProviderWrite = z.infer<typeof ProviderWriteSchema>;

export const ProviderArchivedSchema = z.object({
  id: z.number().int().positive().describe('Provider id'),
  archived: z.literal(true),
});
export type ProviderArchived = z.infer<typeof ProviderArchivedSchema>;

/**
 * The bounds of a published NAV (CONTRACT.md, Version 4, "Changes to earlier versions"): every
 * figure and chart point is a ratio of two NAVs times 100, so within [1e-9, 1e15] the largest is
 * 1e26 and the smallest non-zero 1e-22, finite doubles; unbounded, 1e-300 and 1e300 made a ratio
 * of Infinity, which JSON cannot carry, and the chart answered 500 to every reader.
 */
export const MIN_NAV = 1e-9;
export const MAX_NAV = 1e15;
/**
 * The first day a point may have: before it, years 0..99 are read by Date.UTC as 1900..1999 and
 * PostgreSQL has no year 0, so `0000-01-01` could not be stored (a 500); no fund is that old.
 */
export const FIRST_NAV_DATE = '1900-01-01';

export const NavPointSchema = z.strictObject({
  date: isoDate
    .refine((date) => date >= FIRST_NAV_DATE, `must be ${FIRST_NAV_DATE} or later`)
    .describe(`The day, YYYY-MM-DD (UTC); from ${FIRST_NAV_DATE}, not in the future`),
  nav: z
    .number()
    .min(MIN_NAV, `must be at least ${MIN_NAV}`)
    .max(MAX_NAV, `must be at most ${MAX_NAV}`)
    .describe(
      `Net asset value per unit at the end of that day, deposits and withdrawals taken out; a finite number in ` +
        `[${MIN_NAV}, ${MAX_NAV}]`,
    ),
});

export const PublishedSignalsSchema = z
  .strictObject({
    total: z.number().int().min(0).max(MAX_INT4).describe('Signals published so far'),
    winning: z.number().int().min(0).max(MAX_INT4).describe('Of those, the winning ones (0..total)'),
    avgReturnPct: z.number().describe('Mean return per signal, percent'),
    lastSignalAt: z.iso.datetime().nullable().describe('Latest signal, ISO 8601 UTC, or null'),
  })
  .refine((signals) => signals.winning <= signals.total, {
    message: 'must be at most total',
    path: ['winning'],
  });

/** `POST /providers/{id}/performance`: NAV points upserted by date, and the signal counters. */
export const PerformancePublishInputSchema = z.strictObject({
  id: providerId,
  points: z
    .array(NavPointSchema)
    .max(MAX_PUBLISHED_POINTS, `must have at most ${MAX_PUBLISHED_POINTS} points`)
    .optional()
    .describe(
      `Daily NAV points (at most ${MAX_PUBLISHED_POINTS}), upserted by date: a date sent again replaces its value ` +
        '(within one request, the last one of a date counts)',
    ),
  signals: PublishedSignalsSchema.optional().describe('Signal counters, replacing the stored ones'),
});
export type PerformancePublishInput = z.input<typeof PerformancePublishInputSchema>;

export const PerformanceWindowSchema = z
  .enum(PERFORMANCE_WINDOWS)
  .describe('How far back from asOf: 7d, 30d, 90d (default), 1y (365 days) or all');

export const PerformanceQuerySchema = z.object({
  id: providerId,
  window: PerformanceWindowSchema.default('90d'),
});
export type PerformanceQuery = z.input<typeof PerformanceQuerySchema>;

export const PerformanceSchema = z.object({
  providerId: z.number().int().positive(),
  window: PerformanceWindowSchema,
  asOf: isoDate.nullable().describe("The series' last date; null when nothing is published"),
  points: z
    .array(
      z.object({
        date: isoDate,
        roiPct: z.number().describe('Return since the first point of the window, percent (0 there)'),
        drawdownPct: z.number().nonnegative().describe('Fall from the highest NAV since the first point, percent'),
      }),
    )
    .describe(
      'From the base (the latest point on or before asOf − window, else the first point) to asOf; above 400 ' +
        'points: the base, the last point of each ISO week after it, and the last point',
    ),
});
export type Performance = z.infer<typeof PerformanceSchema>;
