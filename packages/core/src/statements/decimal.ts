/**
 * The contract's `dec`: a decimal string `0|[1-9][0-9]{0,19}`, optionally `.` and 1..12 digits,
 * greater than 0. Prices, stops, targets and percentages travel as such strings, and the one
 * sum the service computes (`openPct` = 100 minus every `closePct`) is exact: each value is held
 * as a bigint count of 10⁻¹² units, so `100 − 33.3 − 0.1` is `66.6`, never `66.60000000000001`.
 */

/** The grammar alone (zero included); `parseDec` adds "greater than 0". */
export const DEC_PATTERN = /^(?:0|[1-9][0-9]{0,19})(?:\.[0-9]{1,12})?$/;

/** Fraction digits a `dec` may have, and so the scale of the bigint form. */
const SCALE_DIGITS = 12;
const SCALE = 10n ** BigInt(SCALE_DIGITS);
const HUNDRED = 100n * SCALE;

/** `text` in units of 10⁻¹², or null when it does not follow the grammar (zero is allowed here). */
export function parseScaled(text: string): bigint | null {
  if (!DEC_PATTERN.test(text)) return null;
  const [whole = '', fraction = ''] = text.split('.');
  return BigInt(whole) * SCALE + BigInt(fraction.padEnd(SCALE_DIGITS, '0'));
}

/** True for a contract `dec`: the grammar and greater than 0. */
export function isDec(text: string): boolean {
  // Greater than 0 is a digit other than 0 somewhere; no bigint is needed to see it.
  return DEC_PATTERN.test(text) && NONZERO_DIGIT.test(text);
}

const NONZERO_DIGIT = /[1-9]/;

/** A non-negative scaled value as the normalised decimal string (no trailing zeros or dot): `66.6`, `100`, `0`. */
export function formatScaled(value: bigint): string {
  if (value < 0n) throw new RangeError('a dec is never negative');
  const whole = value / SCALE;
  const fraction = (value % SCALE).toString().padStart(SCALE_DIGITS, '0').replace(/0+$/, '');
  return fraction === '' ? whole.toString() : `${whole}.${fraction}`;
}

function scaledOrThrow(text: string): bigint {
  const scaled = parseScaled(text);
  if (scaled === null) throw new RangeError(`${JSON.stringify(text)} is not a decimal string`);
  return scaled;
}

/** Compares two decimal strings exactly: negative, 0 or positive as `a` is below, equal to or above `b`. */
export function compareDec(a: string, b: string): -1 | 0 | 1 {
  const difference = scaledOrThrow(a) - scaledOrThrow(b);
  return difference < 0n ? -1 : difference > 0n ? 1 : 0;
}

/**
 * The share of the original size still open after `closes` (each a `closePct`), normalised:
 * `openPct([])` is `"100"`, `openPct(["33.3", "0.1"])` is `"66.6"`, a full close `"0"`. Throws a
 * RangeError when the closes add up to more than 100 (the server refuses such a close first).
 */
export function openPct(closes: readonly string[]): string {
  let open = HUNDRED;
  for (const close of closes) open -= scaledOrThrow(close);
  if (open < 0n) throw new RangeError('the closes add up to more than 100');
  return formatScaled(open);
}

/** True when a close of `closePct` fits in what is open (`0 < closePct ≤ openPct`). */
export function closeFits(closePct: string, open: string): boolean {
  const close = parseScaled(closePct);
  const available = parseScaled(open);
  return close !== null && available !== null && close > 0n && close <= available;
}

/** `a − b`, exact and normalised (`subtractDec("100", "33.3")` is `"66.7"`); a RangeError below 0. */
export function subtractDec(a: string, b: string): string {
  return formatScaled(scaledOrThrow(a) - scaledOrThrow(b));
}
