/**
 * One strict zod schema per statement type (unknown fields are refused), as the contract's
 * "Signed statements" and "Signals" sections define them. They check a statement on its own;
 * what needs the request (`log`, `provider`, the clock) or the database (the signal's state,
 * the signer's rights) is checked after them, in the order of `checks.ts`.
 */
import { z } from 'zod';
import {
  compareInstantsOrNull,
  decField,
  ed25519KeyField,
  instantField,
  instantMs,
  instrumentField,
  noteField,
  saltField,
  statementIdField,
  targetsField,
} from './fields.js';

export const SIGNAL_STATEMENT_TYPES = ['signal.open', 'signal.update', 'signal.close', 'signal.cancel'] as const;
export const KEY_STATEMENT_TYPES = ['key.delegate', 'key.revoke'] as const;
export const STATEMENT_TYPES = [...SIGNAL_STATEMENT_TYPES, ...KEY_STATEMENT_TYPES] as const;
export type SignalStatementType = (typeof SIGNAL_STATEMENT_TYPES)[number];
export type KeyStatementType = (typeof KEY_STATEMENT_TYPES)[number];
export type StatementType = (typeof STATEMENT_TYPES)[number];

/** The longest a delegated key may live: 365 days after its `issuedAt`. */
export const KEY_MAX_LIFETIME_MS = 365 * 86_400_000;

/** What every statement carries. */
const common = {
  v: z.literal(1),
  log: z.string().min(1, 'must name the log'),
  provider: z.number().int().positive(),
  issuedAt: instantField,
};

/** What every signal statement adds: its own id and the salt that keeps its commitment unguessable. */
const signalCommon = { ...common, id: statementIdField, salt: saltField };

/** What update, close and cancel add: the signal they change (the open's id). */
const changeCommon = { ...signalCommon, signal: statementIdField };

const EntrySchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('market') }),
  z.strictObject({ type: z.literal('limit'), price: decField }),
]);

/**
 * At most 100, read off the digits of a `dec` (no leading zeros): fewer than three whole digits,
 * or 100 with a fraction of zeros only.
 */
export function atMostHundred(text: string): boolean {
  const dot = text.indexOf('.');
  const whole = dot < 0 ? text : text.slice(0, dot);
  return whole.length < 3 || (whole === '100' && (dot < 0 || /^\.0+$/.test(text.slice(dot))));
}

/** A share of the follower's equity or of the original size: 0 < x ≤ 100, compared exactly. */
const sizePctField = decField.refine(atMostHundred, 'must be at most 100');

/** `expiresAt` (when set) must come after `issuedAt`. */
function expiresAfterIssue(statement: { issuedAt: string; expiresAt: string | null }, context: z.RefinementCtx): void {
  if (statement.expiresAt === null) return;
  // A malformed instant has its own issue already (zod runs refinements after failed checks too).
  const order = compareInstantsOrNull(statement.expiresAt, statement.issuedAt);
  if (order !== null && order <= 0) {
    context.addIssue({ code: 'custom', path: ['expiresAt'], message: 'must be after issuedAt' });
  }
}

/** A key lives after its `issuedAt` and at most 365 days. */
function keyLifetime(statement: { issuedAt: string; expiresAt: string }, context: z.RefinementCtx): void {
  expiresAfterIssue(statement, context);
  if (instantMs(statement.expiresAt) - instantMs(statement.issuedAt) > KEY_MAX_LIFETIME_MS) {
    context.addIssue({ code: 'custom', path: ['expiresAt'], message: 'must be at most 365 days after issuedAt' });
  }
}

function namesAChange(statement: { stop?: unknown; targets?: unknown; note?: unknown }): boolean {
  return statement.stop !== undefined || statement.targets !== undefined || statement.note !== undefined;
}
const NO_CHANGE = 'an update must name at least one of stop, targets and note';

const OPEN_SHAPE = {
  ...signalCommon,
  type: z.literal('signal.open'),
  instrument: instrumentField,
  side: z.enum(['long', 'short']),
  entry: EntrySchema,
  stop: decField.nullable(),
  targets: targetsField,
  sizePct: sizePctField,
  expiresAt: instantField.nullable(),
  note: noteField.optional(),
};
const UPDATE_SHAPE = {
  ...changeCommon,
  type: z.literal('signal.update'),
  stop: decField.nullable().optional(),
  targets: targetsField.optional(),
  note: noteField.optional(),
};
const CLOSE_SHAPE = { ...changeCommon, type: z.literal('signal.close'), closePct: sizePctField };
const CANCEL_SHAPE = { ...changeCommon, type: z.literal('signal.cancel') };
const DELEGATE_SHAPE = { ...common, type: z.literal('key.delegate'), key: ed25519KeyField, expiresAt: instantField };
const REVOKE_SHAPE = { ...common, type: z.literal('key.revoke'), key: ed25519KeyField };

export const SignalOpenStatementSchema = z.strictObject(OPEN_SHAPE).superRefine(expiresAfterIssue);
export const SignalUpdateStatementSchema = z.strictObject(UPDATE_SHAPE).refine(namesAChange, NO_CHANGE);
export const SignalCloseStatementSchema = z.strictObject(CLOSE_SHAPE);
export const SignalCancelStatementSchema = z.strictObject(CANCEL_SHAPE);
export const KeyDelegateStatementSchema = z.strictObject(DELEGATE_SHAPE).superRefine(keyLifetime);
export const KeyRevokeStatementSchema = z.strictObject(REVOKE_SHAPE);

export const STATEMENT_SCHEMAS = {
  'signal.open': SignalOpenStatementSchema,
  'signal.update': SignalUpdateStatementSchema,
  'signal.close': SignalCloseStatementSchema,
  'signal.cancel': SignalCancelStatementSchema,
  'key.delegate': KeyDelegateStatementSchema,
  'key.revoke': KeyRevokeStatementSchema,
} as const satisfies Record<StatementType, z.ZodType>;

/**
 * The same schemas for the route's hot path: zod's plain objects (several microseconds faster a
 * statement than strict ones, which skip its compiled fast path) with each type's field names,
 * so that `readStatement` refuses unknown fields itself. The differential test holds the two to
 * the same verdict.
 */
export const STATEMENT_CHECKS = {
  'signal.open': {
    fields: new Set(Object.keys(OPEN_SHAPE)),
    schema: z.object(OPEN_SHAPE).superRefine(expiresAfterIssue),
  },
  'signal.update': {
    fields: new Set(Object.keys(UPDATE_SHAPE)),
    schema: z.object(UPDATE_SHAPE).refine(namesAChange, NO_CHANGE),
  },
  'signal.close': { fields: new Set(Object.keys(CLOSE_SHAPE)), schema: z.object(CLOSE_SHAPE) },
  'signal.cancel': { fields: new Set(Object.keys(CANCEL_SHAPE)), schema: z.object(CANCEL_SHAPE) },
  'key.delegate': {
    fields: new Set(Object.keys(DELEGATE_SHAPE)),
    schema: z.object(DELEGATE_SHAPE).superRefine(keyLifetime),
  },
  'key.revoke': { fields: new Set(Object.keys(REVOKE_SHAPE)), schema: z.object(REVOKE_SHAPE) },
} as const satisfies Record<StatementType, { fields: ReadonlySet<string>; schema: z.ZodType }>;

export type SignalOpenStatement = z.infer<typeof SignalOpenStatementSchema>;
export type SignalUpdateStatement = z.infer<typeof SignalUpdateStatementSchema>;
export type SignalCloseStatement = z.infer<typeof SignalCloseStatementSchema>;
export type SignalCancelStatement = z.infer<typeof SignalCancelStatementSchema>;
export type KeyDelegateStatement = z.infer<typeof KeyDelegateStatementSchema>;
export type KeyRevokeStatement = z.infer<typeof KeyRevokeStatementSchema>;

/** A statement of type `T`, as its schema returns it. */
export type StatementOf<T extends StatementType> = z.infer<(typeof STATEMENT_SCHEMAS)[T]>;
export type Statement = StatementOf<StatementType>;
export type SignalStatement = StatementOf<SignalStatementType>;
export type KeyStatement = StatementOf<KeyStatementType>;

/** The request body of every statement route. The statement's own checks run in `checks.ts`. */
export const StatementBodySchema = z.object({
  statement: z
    .string()
    .describe(
      'The statement: one JSON object in RFC 8785 canonical form (keys sorted, no white space, integers only), ' +
        'at most 4,096 bytes of UTF-8',
    ),
  signer: z
    .string()
    .describe('Who signed: an EVM or Solana wallet, or a delegated key `ed25519:<base58 of the 32-byte public key>`'),
  signature: z
    .string()
    .describe(
      "Over the statement's UTF-8 bytes. EVM: personal_sign (EIP-191) hex, 65 or 64 bytes, or a contract " +
        "wallet's EIP-1271/EIP-6492 signature. Solana wallets and delegated keys: Ed25519, base58 of 64 bytes",
    ),
});
export type StatementBody = z.infer<typeof StatementBodySchema>;
