/**
 * Wire schemas of the signals (CONTRACT.md, Version 4, "Signals", "Precise readings (Version 4)"):
 * the Signal resource as each reader sees it, the answer of a statement route (the signal and its
 * receipt), the reads' queries and envelope, and the live subscription's input and event data.
 * Router, OpenAPI document and SDK all read these.
 */
import { z } from 'zod';
import { isoTimestamp, pageLimitParam, subscriptionInput } from './schema-shapes.js';
import { cursorParam, MAX_SAFE_ID, ProviderIdParamsSchema } from './schemas.js';
import { StatementBodySchema } from './statements/statement.schemas.js';

const logIndex = z.number().int().nonnegative();
const dec = z.string().describe('A decimal string (`0|[1-9][0-9]{0,19}`, optionally `.` and 1..12 digits)');

export const SIGNAL_STATUSES = ['open', 'closed', 'cancelled', 'expired'] as const;
export const SignalStatusSchema = z.enum(SIGNAL_STATUSES);
export type SignalStatus = z.infer<typeof SignalStatusSchema>;

export const SIGNAL_STATEMENT_TYPES = ['signal.open', 'signal.update', 'signal.close', 'signal.cancel'] as const;
export const SignalStatementTypeSchema = z.enum(SIGNAL_STATEMENT_TYPES);

export const SignalEntrySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('market') }),
  z.object({ type: z.literal('limit'), price: dec }),
]);

/** The terms after every update; null in a Signal for a reader who may not see them yet. */
export const SignalContentSchema = z.object({
  instrument: z.string().describe('The instrument, 1..32 of `A-Z0-9._:/-`'),
  side: z.enum(['long', 'short']),
  entry: SignalEntrySchema.describe('`{"type":"market"}` or `{"type":"limit","price":dec}`'),
  stop: dec.nullable().describe('The stop price, or null for none'),
  targets: z.array(dec).describe('The target prices, 0..10'),
  sizePct: dec.describe("The size, percent of the follower's equity (0 < x ≤ 100)"),
  openPct: z
    .string()
    .describe(
      'The share of the original size still open: 100 minus every `closePct`, exact, without trailing zeros ' +
        '(`"66.6"`, `"100"`, `"0"`)',
    ),
  expiresAt: isoTimestamp.nullable().describe('When the signal expires while open, or null for never'),
  note: z.string().nullable().describe("The provider's note, or null"),
});
export type SignalContent = z.infer<typeof SignalContentSchema>;

/** One statement of a signal; `statement`, `signer` and `signature` are null before the reader may see them. */
export const SignalStatementViewSchema = z.object({
  logIndex: logIndex.describe("The index of the statement's entry in the log"),
  type: SignalStatementTypeSchema,
  receivedAt: isoTimestamp.describe("The server's clock when it accepted the statement (milliseconds)"),
  commitment: z.string().describe("Hex SHA-256 of the statement's UTF-8 bytes: what the log holds for it"),
  statement: z.string().nullable().describe('The signed statement as sent, or null before the reader may see it'),
  signer: z.string().nullable().describe('Who signed it, or null before the reader may see it'),
  signature: z.string().nullable().describe('Its signature, or null before the reader may see it'),
});
export type SignalStatementView = z.infer<typeof SignalStatementViewSchema>;

export const SignalSchema = z.object({
  id: z.string().describe('The signal id (the `id` of its `signal.open` statement)'),
  providerId: z.number().int().positive(),
  status: SignalStatusSchema.describe(
    '`closed` once `openPct` reaches 0, `cancelled` after a cancel, `expired` once `expiresAt` passed while open',
  ),
  publishedAt: isoTimestamp.describe("The open's `receivedAt`"),
  revealAt: isoTimestamp.describe(
    "`publishedAt` plus the provider's `revealDelaySeconds` at that moment: from then on everyone sees the content",
  ),
  content: SignalContentSchema.nullable().describe(
    'The terms after every update, or null for a reader who may not see them yet',
  ),
  statements: z.array(SignalStatementViewSchema).describe('Every statement of the signal, in log order'),
});
export type Signal = z.infer<typeof SignalSchema>;

/** Where an accepted statement is in the log: its index, a signed checkpoint holding it, the inclusion proof. */
export const SignalReceiptSchema = z.object({
  logIndex: logIndex.describe("The index of the statement's entry"),
  checkpoint: z.string().describe('A signed checkpoint (C2SP signed note) whose size is greater than `logIndex`'),
  proof: z
    .array(z.string())
    .describe("The entry's inclusion proof in that checkpoint, padded standard base64, RFC 9162 order"),
});
export type SignalReceipt = z.infer<typeof SignalReceiptSchema>;

/** The answer of `POST /providers/{id}/signals` and `…/signals/{signalId}/updates`. */
export const SignalStatementAnswerSchema = z.object({
  signal: SignalSchema.describe('The signal after the statement, as a reader who may see its content'),
  receipt: SignalReceiptSchema,
});
export type SignalStatementAnswer = z.infer<typeof SignalStatementAnswerSchema>;

/** Any text: an id of another shape names no signal, a 404 like any unknown id (not a 400 for some shapes). */
export const signalIdParam = z
  .string()
  .describe('The signal id (1..64 of `A-Za-z0-9_-`; any other names no signal: 404)');

/** `POST /providers/{id}/signals`: a signed `signal.open` statement. */
export const SignalOpenInputSchema = ProviderIdParamsSchema.extend(StatementBodySchema.shape);
export type SignalOpenInput = z.input<typeof SignalOpenInputSchema>;

/** `POST /providers/{id}/signals/{signalId}/updates`: a signed update, close or cancel of that signal. */
export const SignalUpdateInputSchema = SignalOpenInputSchema.extend({ signalId: signalIdParam });
export type SignalUpdateInput = z.input<typeof SignalUpdateInputSchema>;

/** `GET /providers/{id}/signals/{signalId}`. */
export const SignalParamsSchema = ProviderIdParamsSchema.extend({ signalId: signalIdParam });

const signalLimit = pageLimitParam('Signals', 100, 20);

/** `GET /providers/{id}/signals`: newest first, by cursor, optionally only some statuses. */
export const ProviderSignalsQuerySchema = ProviderIdParamsSchema.extend({
  cursor: cursorParam.optional(),
  limit: signalLimit,
  status: z
    .string()
    .describe('A comma list of statuses to keep (`open`, `closed`, `cancelled`, `expired`); all when absent')
    .optional(),
});
export type ProviderSignalsQuery = z.input<typeof ProviderSignalsQuerySchema>;

/** `GET /me/signals`: the signals of the providers the user follows now, newest first. */
export const MySignalsQuerySchema = z.object({ cursor: cursorParam.optional(), limit: signalLimit });
export type MySignalsQuery = z.input<typeof MySignalsQuerySchema>;

export const SignalListSchema = z.object({
  items: z.array(SignalSchema).describe('Newest first by `publishedAt` (ties: the open’s log index, descending)'),
  nextCursor: z.string().nullable().describe('Cursor of the next page, or null on the last page'),
});
export type SignalList = z.infer<typeof SignalListSchema>;

/** `signals.live`: optional; `lastEventId` resumes right after that log index. */
export const SignalLiveInputSchema = subscriptionInput({
  lastEventId: z.string().optional().describe('Resume right after this event id (a log index, decimal)'),
  providerIds: z
    .array(z.number().int().positive().max(MAX_SAFE_ID))
    .optional()
    .describe('Only these providers (for a user, among those it follows)'),
});
export type SignalLiveInput = z.input<typeof SignalLiveInputSchema>;

/** The data of a `signals.live` event (its id is the statement's log index). */
export const SignalLiveEventSchema = z.object({
  type: SignalStatementTypeSchema,
  signal: SignalSchema,
});
export type SignalLiveEvent = z.infer<typeof SignalLiveEventSchema>;
