/**
 * The contract's instants (`YYYY-MM-DDTHH:MM:SS[.fraction]Z`, UTC) read and compared exactly,
 * without zod: the statement schemas (fields.ts) and the signal projection, which the browser-safe
 * audit bundle carries, share them.
 */
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
