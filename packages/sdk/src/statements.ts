/**
 * `@signal/sdk/statements`: builds the signed statements of the contract's "Signed statements"
 * and "Signals" sections (open, update, close and cancel a signal; delegate and revoke a bot
 * key) as RFC 8785 canonical JSON, with opaque random ids and 128-bit salts, and signs them into
 * the body every statement route takes, `{ statement, signer, signature }`.
 *
 * The canonical form comes from the service's own implementation (bundled, no Node built-ins),
 * so what the SDK writes is what the server re-serialises and compares.
 */
import { canonicalJson } from '@signal/core/statements/canonical-json';
import type { StatementSigner } from './statement-signers.js';

// Every signer: a wallet's, and an Ed25519 key's (the module holds nothing else).
export * from './statement-signers.js';

/** A decimal string: `0|[1-9][0-9]{0,19}`, optionally `.` and 1..12 digits, greater than 0 (`"97000.5"`). */
export type Dec = string;

/** An instant: a Date, or an ISO 8601 UTC string ending in `Z`. */
export type InstantInput = Date | string;

/** What every statement names: the log (`LOG_ORIGIN`, from `GET /log/checkpoint`'s first line) and the provider. */
export interface StatementScope {
  log: string;
  provider: number;
  /** The statement's `issuedAt`; now by default (the server takes it within `SIGNAL_MAX_SKEW_SECONDS`). */
  issuedAt?: InstantInput;
}

export interface SignalTerms {
  /** 1..32 of `A-Z0-9._:/-`, e.g. `BTC-USD`. */
  instrument: string;
  side: 'long' | 'short';
  entry: { type: 'market' } | { type: 'limit'; price: Dec };
  stop: Dec | null;
  /** 0..10 take-profit levels. */
  targets: Dec[];
  /** Share of the follower's equity, 0 < x ≤ 100. */
  sizePct: Dec;
  /** After `issuedAt`, or null for none. */
  expiresAt: InstantInput | null;
  /** At most 500 characters, no control characters. */
  note?: string;
}

/** An update: at least one of these; each replaces the current one (`stop: null` and `targets: []` clear). */
export interface SignalChanges {
  stop?: Dec | null;
  targets?: Dec[];
  /** `""` clears the note. */
  note?: string;
}

/** A built statement: its canonical text, and its `id` (for an open, the signal's id). */
export interface BuiltStatement {
  statement: string;
  /** The statement's `id`; absent on key statements, which have none. */
  id?: string;
}

/** The body of every statement route. */
export interface StatementBody {
  statement: string;
  signer: string;
  signature: string;
}

/** Options of a signal statement: its `id` (default: a fresh opaque one) and `salt` (default: 128 fresh random bits). */
export interface SignalStatementOptions {
  id?: string;
  salt?: string;
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** 128 bits from the platform's secure random source, as 22 base64url characters. */
function random128(): string {
  return base64url(globalThis.crypto.getRandomValues(new Uint8Array(16)));
}

/**
 * A fresh statement id: 128 random bits, base64url. Ids are public at once (in the log), so
 * they say nothing of the signal; they are unique within the provider.
 */
export const newStatementId = random128;

/** A fresh salt: 128 random bits, base64url, so that the logged commitment cannot be guessed before the reveal. */
export const newSalt = random128;

function iso(instant: InstantInput): string {
  return instant instanceof Date ? instant.toISOString() : instant;
}

function common(scope: StatementScope, type: string) {
  return { v: 1, log: scope.log, type, provider: scope.provider, issuedAt: iso(scope.issuedAt ?? new Date()) };
}

function signalStatement(
  scope: StatementScope,
  type: string,
  fields: Record<string, unknown>,
  options: SignalStatementOptions,
): BuiltStatement {
  const id = options.id ?? newStatementId();
  const value = { ...common(scope, type), id, salt: options.salt ?? newSalt(), ...fields };
  return { statement: canonicalJson(value as Parameters<typeof canonicalJson>[0]), id };
}

/** `signal.open`: its `id` is the new signal's id. */
export function openStatement(scope: StatementScope, terms: SignalTerms, options: SignalStatementOptions = {}) {
  const { note, expiresAt, ...rest } = terms;
  return signalStatement(
    scope,
    'signal.open',
    { ...rest, expiresAt: expiresAt === null ? null : iso(expiresAt), note },
    options,
  );
}

/** `signal.update` of the signal `signal`. */
export function updateStatement(
  scope: StatementScope,
  signal: string,
  changes: SignalChanges,
  options: SignalStatementOptions = {},
) {
  if (changes.stop === undefined && changes.targets === undefined && changes.note === undefined) {
    throw new Error('an update must name at least one of stop, targets and note');
  }
  return signalStatement(scope, 'signal.update', { signal, ...changes }, options);
}

/** `signal.close` of `closePct` of the signal's original size (at most what is still open). */
export function closeStatement(
  scope: StatementScope,
  signal: string,
  closePct: Dec,
  options: SignalStatementOptions = {},
) {
  return signalStatement(scope, 'signal.close', { signal, closePct }, options);
}

/** `signal.cancel` of the signal `signal`. */
export function cancelStatement(scope: StatementScope, signal: string, options: SignalStatementOptions = {}) {
  return signalStatement(scope, 'signal.cancel', { signal }, options);
}

/** `key.delegate` of `key` (`ed25519:<base58>`) until `expiresAt` (at most 365 days after `issuedAt`); signed by a publisher wallet. */
export function delegateKeyStatement(scope: StatementScope, key: string, expiresAt: InstantInput): BuiltStatement {
  return { statement: canonicalJson({ ...common(scope, 'key.delegate'), key, expiresAt: iso(expiresAt) }) };
}

/** `key.revoke` of `key`; signed by a publisher wallet or by the key itself. */
export function revokeKeyStatement(scope: StatementScope, key: string): BuiltStatement {
  return { statement: canonicalJson({ ...common(scope, 'key.revoke'), key }) };
}

/** Signs a built statement into the route's body. */
export async function signStatement(built: BuiltStatement | string, signer: StatementSigner): Promise<StatementBody> {
  const statement = typeof built === 'string' ? built : built.statement;
  // In turn: a browser wallet asked for its address first then signs with that account.
  const signerId = await signer.signerId();
  return { statement, signer: signerId, signature: await signer.sign(statement) };
}
