/**
 * The signal statements' schemas as plain predicates, for the route's hot path: zod builds an
 * output object and runs its checks through several layers, ≈2 µs of a statement's ≈10 µs of
 * checks (BENCH.md, "Signals"). Each predicate is true exactly when the statement schema of its
 * type (`STATEMENT_SCHEMAS`, with the field list `readStatement` checks) takes the parsed JSON
 * and gives it back unchanged; on false, zod judges and words the issues, so a predicate can
 * only ever take a statement the schema takes. The differential test
 * (test/statements/fast-schema.differential.test.ts) holds each to zod's verdict on generated
 * statements, field by field at every bound. Key statements have no predicate: zod reads them.
 *
 * The caller has checked already that the value is one JSON object (from `JSON.parse`) with no
 * field outside its type's list and only safe integers.
 */
import { isDec } from './decimal.js';
import {
  compareInstantsOrNull,
  INSTRUMENT_PATTERN,
  isInstant,
  isNote,
  SALT_PATTERN,
  STATEMENT_ID_PATTERN,
} from './fields.js';
import { atMostHundred, type SignalStatementType } from './statement.schemas.js';

type Json = Record<string, unknown>;

const isString = (value: unknown): value is string => typeof value === 'string';
const isDecString = (value: unknown) => isString(value) && isDec(value);
const isId = (value: unknown) => isString(value) && STATEMENT_ID_PATTERN.test(value);
const isSizePct = (value: unknown) => isDecString(value) && atMostHundred(value as string);
const isTargets = (value: unknown) => Array.isArray(value) && value.length <= 10 && value.every(isDecString);
const isNoteValue = (value: unknown) => isString(value) && isNote(value);

/** `v`, `log`, `provider`, `issuedAt`, `id` and `salt`, as every signal statement has them. */
function signalCommon(s: Json): boolean {
  return (
    s.v === 1 &&
    isString(s.log) &&
    s.log.length >= 1 &&
    typeof s.provider === 'number' &&
    Number.isSafeInteger(s.provider) &&
    s.provider > 0 &&
    isString(s.issuedAt) &&
    isInstant(s.issuedAt) &&
    isId(s.id) &&
    isString(s.salt) &&
    SALT_PATTERN.test(s.salt)
  );
}

/** An object with exactly these own keys (the entry's strict shapes). */
function hasExactly(value: Json, keys: number): boolean {
  let count = 0;
  for (const _ in value) count++;
  return count === keys;
}

function isEntry(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const entry = value as Json;
  if (entry.type === 'market') return hasExactly(entry, 1);
  return entry.type === 'limit' && isDecString(entry.price) && hasExactly(entry, 2);
}

function isOpen(s: Json): boolean {
  if (!(signalCommon(s) && s.type === 'signal.open')) return false;
  if (!(isString(s.instrument) && INSTRUMENT_PATTERN.test(s.instrument))) return false;
  if (!(s.side === 'long' || s.side === 'short') || !isEntry(s.entry)) return false;
  if (!(s.stop === null || isDecString(s.stop)) || !isTargets(s.targets) || !isSizePct(s.sizePct)) return false;
  if (!(s.note === undefined || isNoteValue(s.note))) return false;
  if (s.expiresAt === null) return true;
  return isString(s.expiresAt) && compareInstantsOrNull(s.expiresAt, s.issuedAt as string) === 1;
}

const isChange = (s: Json, type: string) => signalCommon(s) && s.type === type && isId(s.signal);

function isUpdate(s: Json): boolean {
  if (!isChange(s, 'signal.update')) return false;
  if (!(s.stop === undefined || s.stop === null || isDecString(s.stop))) return false;
  if (!(s.targets === undefined || isTargets(s.targets))) return false;
  if (!(s.note === undefined || isNoteValue(s.note))) return false;
  return s.stop !== undefined || s.targets !== undefined || s.note !== undefined;
}

export const SIGNAL_STATEMENT_ACCEPTS: Record<SignalStatementType, (statement: Json) => boolean> = {
  'signal.open': isOpen,
  'signal.update': isUpdate,
  'signal.close': (s) => isChange(s, 'signal.close') && isSizePct(s.closePct),
  'signal.cancel': (s) => isChange(s, 'signal.cancel'),
};
