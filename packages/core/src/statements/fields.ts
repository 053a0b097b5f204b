/**
 * The field types of the signed statements, each written once: decimal strings, instants,
 * statement ids and salts, delegated keys, instruments and notes. The statement schemas are
 * assembled from them.
 */
import bs58 from 'bs58';
import { z } from 'zod';
import { isDec } from './decimal.js';

/** `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, UTC: the contract's reading of `issuedAt`. */
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?Z$/;

interface Instant {
  /** Milliseconds since the epoch of the whole seconds. */
  seconds: number;
  /** The fraction's digits as written ("" when none). */
  fraction: string;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** 400 Gregorian years are exactly 146,097 days: Date.UTC reads years 0..99 as 1900..1999, so those are shifted. */
const FOUR_CENTURIES_MS = 146_097 * 86_400_000;

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] as number);
}

// A statement's instants are read several times over (the schema, "after issuedAt", the clock
// skew): the last few readings are kept.
const INSTANT_CACHE_SIZE = 64;
const readInstants = new Map<string, Instant | null>();

function parseInstant(text: string): Instant | null {
  const known = readInstants.get(text);
  if (known !== undefined) return known;
  const instant = readInstant(text);
  if (readInstants.size >= INSTANT_CACHE_SIZE) readInstants.clear();
  readInstants.set(text, instant);
  return instant;
}

// Checked by arithmetic rather than by a Date's round trip: statement checks run per request,
// and this is several times faster.
function readInstant(text: string): Instant | null {
  const match = INSTANT.exec(text);
  if (!match) return null;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const hour = Number(match[4]);
  const minute = Number(match[5]);
  const second = Number(match[6]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  const seconds =
    year < 100
      ? Date.UTC(year + 400, month - 1, day, hour, minute, second) - FOUR_CENTURIES_MS
      : Date.UTC(year, month - 1, day, hour, minute, second);
  return { seconds, fraction: match[7] ?? '' };
}

/** The instant `text` names, in whole milliseconds (a finer fraction is cut), or NaN when it is no instant. */
export function instantMs(text: string): number {
  const instant = parseInstant(text);
  if (!instant) return Number.NaN;
  return instant.seconds + Number(instant.fraction.slice(0, 3).padEnd(3, '0'));
}

/** Compares two instants exactly, whatever their fractions' lengths: -1, 0 or 1. */
export function compareInstants(a: string, b: string): -1 | 0 | 1 {
  const order = compareInstantsOrNull(a, b);
  if (order === null) throw new RangeError('not an instant');
  return order;
}

/** `compareInstants`, or null when either is no instant. */
export function compareInstantsOrNull(a: string, b: string): -1 | 0 | 1 | null {
  const left = parseInstant(a);
  const right = parseInstant(b);
  if (!left || !right) return null;
  if (left.seconds !== right.seconds) return left.seconds < right.seconds ? -1 : 1;
  const width = Math.max(left.fraction.length, right.fraction.length);
  const l = left.fraction.padEnd(width, '0');
  const r = right.fraction.padEnd(width, '0');
  return l === r ? 0 : l < r ? -1 : 1;
}

/** True when `text` is an instant as the schemas take it (`instantField`). */
export function isInstant(text: string): boolean {
  return parseInstant(text) !== null;
}

export const instantField = z
  .string()
  .refine((text) => parseInstant(text) !== null, 'must be an instant in UTC: YYYY-MM-DDTHH:MM:SS[.fraction]Z');

export const decField = z
  .string()
  .refine(
    isDec,
    'must be a decimal string greater than 0: up to 20 digits, no leading zero, optionally "." and 1..12 digits',
  );

/** A statement id, and a signal's id (the open's): public at once, so opaque. */
export const STATEMENT_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const statementIdField = z
  .string()
  .regex(STATEMENT_ID_PATTERN, 'must be 1..64 characters of A-Z, a-z, 0-9, "_" and "-"');

/** 22 base64url characters carry 132 bits, the fewest that hold the 128 random bits the commitment needs. */
export const SALT_PATTERN = /^[A-Za-z0-9_-]{22,64}$/;
export const saltField = z
  .string()
  .regex(SALT_PATTERN, 'must be 22..64 base64url characters (at least 128 random bits), unpadded');

export const ED25519_KEY_PREFIX = 'ed25519:';

/** The 32 public-key bytes of `ed25519:<base58>` written canonically, or null. */
export function parseEd25519Key(text: string): Uint8Array | null {
  if (!text.startsWith(ED25519_KEY_PREFIX)) return null;
  const base58 = text.slice(ED25519_KEY_PREFIX.length);
  // base58 of 32 bytes is 32..44 characters; the bound keeps the decoder away from long input.
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(base58)) return null;
  const bytes = bs58.decode(base58);
  return bytes.length === 32 ? bytes : null;
}

export const ed25519KeyField = z
  .string()
  .refine(
    (text) => parseEd25519Key(text) !== null,
    'must be "ed25519:" followed by the base58 of a 32-byte public key',
  );

export const INSTRUMENT_PATTERN = /^[A-Z0-9._:/-]{1,32}$/;
export const instrumentField = z
  .string()
  .regex(INSTRUMENT_PATTERN, 'must be 1..32 characters of A-Z, 0-9, ".", "_", ":", "/" and "-"');

const NOTE_MAX = 500;
const CONTROL_CHARACTER = /\p{Cc}/u;

/** `noteField`'s verdict: at most 500 code points, no control character. */
export function isNote(text: string): boolean {
  return (text.length <= NOTE_MAX || [...text].length <= NOTE_MAX) && !CONTROL_CHARACTER.test(text);
}

/** At most 500 characters (code points) and no control characters; "" on an update clears the note. */
export const noteField = z
  .string()
  // Code points: counted only when the UTF-16 length could exceed the bound.
  .refine((text) => text.length <= NOTE_MAX || [...text].length <= NOTE_MAX, `must be at most ${NOTE_MAX} characters`)
  // The control characters (category Cc): C0, DEL and C1.
  .refine(
    (text) => !CONTROL_CHARACTER.test(text),
    'must not contain control characters (line breaks and tabs included)',
  );

export const targetsField = z.array(decField).max(10, 'must have at most 10 targets');
