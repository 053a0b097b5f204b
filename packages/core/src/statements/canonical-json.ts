/**
 * RFC 8785 (JSON Canonicalization Scheme) for the signed statements and the log's entries.
 *
 * JCS is ECMAScript's own JSON serialisation with object keys sorted by UTF-16 code units:
 * strings are escaped exactly as `JSON.stringify` escapes them and numbers are written as
 * `Number.prototype.toString` writes them (RFC 8785 §3.2.2), so the scheme is a few lines on top
 * of `JSON.stringify`. Written here rather than depended on so that the browser SDK, which
 * builds statements, bundles no extra package; the differential test holds it to `canonicalize`
 * (the RFC author's reference implementation) on generated values.
 *
 * No Node built-ins: the SDK bundles this file for browsers.
 */

/** The most bytes of UTF-8 a statement may have (the contract's 4 KiB). */
export const STATEMENT_MAX_BYTES = 4096;

/** In a `u` regex a paired surrogate is one code point, so only a lone one is of category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;
const ANY_SURROGATE = /[\ud800-\udfff]/;

/** A value `canonicalJson` can write: JSON's, with `undefined` members left out as JSON.stringify does. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue | undefined };

/** True when `text` holds a lone surrogate; the cheap class test first, as most text has no surrogate at all. */
function hasLoneSurrogate(text: string): boolean {
  return ANY_SURROGATE.test(text) && LONE_SURROGATE.test(text);
}

function serialize(value: JsonValue): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      // I-JSON (RFC 7493), which RFC 8785 requires of its input: no NaN or infinities.
      if (!Number.isFinite(value)) throw new TypeError(`${value} has no JSON form`);
      return JSON.stringify(value);
    case 'string':
      // I-JSON again: a lone surrogate is no Unicode text, and has no UTF-8 bytes to sign.
      if (hasLoneSurrogate(value)) throw new TypeError('a string holds a lone surrogate');
      return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + serialize(value[i] as JsonValue);
    return `${out}]`;
  }
  let out = '{';
  // The default sort compares UTF-16 code units, which is RFC 8785 §3.2.3's order.
  for (const key of Object.keys(value).sort()) {
    const member = value[key];
    if (member === undefined) continue;
    out += `${out.length > 1 ? ',' : ''}${serialize(key)}:${serialize(member)}`;
  }
  return `${out}}`;
}

/** The RFC 8785 canonical text of `value`; throws a TypeError for what JSON cannot carry. */
export function canonicalJson(value: JsonValue): string {
  return serialize(value);
}

/**
 * True when `text` is JSON already in RFC 8785 canonical form: parsing it and serialising the
 * result again gives the same string. An extra space, unsorted or repeated keys, `\u0061` for
 * `a`, `1.0` for `1`, a lone surrogate: all false. Says nothing about which numbers the
 * contract allows (see `hasOnlySafeIntegers`).
 */
export function isCanonical(text: string): boolean {
  let parsed: JsonValue;
  try {
    parsed = JSON.parse(text) as JsonValue;
  } catch {
    return false;
  }
  return isCanonicalParsed(text, parsed);
}

/** True when every object's keys, in property order, are already in RFC 8785's order. */
function keysInOrder(value: JsonValue): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) return value.every(keysInOrder);
  let previous: string | undefined;
  for (const key in value) {
    if (previous !== undefined && !(previous < key)) return false;
    previous = key;
    if (!keysInOrder(value[key] as JsonValue)) return false;
  }
  return true;
}

/**
 * `isCanonical` for a caller that has parsed `text` already (`parsed` must be `JSON.parse(text)`).
 *
 * The common case is checked with the engine's own serialiser: when every object's properties
 * already come in sorted order, `JSON.stringify` writes exactly what `canonicalJson` would, except
 * that it escapes a lone surrogate where RFC 8785 refuses it, so a text with a `\ud…` escape
 * takes the full path. Anything else (unsorted keys, or integer-like keys, which the engine
 * orders numerically) is judged by `canonicalJson` itself.
 */
export function isCanonicalParsed(text: string, parsed: JsonValue): boolean {
  // A lone surrogate written as it is in `text` is held by `parsed` as well: JSON.stringify
  // writes it escaped (so the texts differ) and canonicalJson refuses it; no scan of `text` for
  // one is needed. One written as an escape (`\ud800`) is what the `\ud` test routes to
  // canonicalJson.
  if (!text.includes('\\ud') && keysInOrder(parsed)) return JSON.stringify(parsed) === text;
  try {
    return canonicalJson(parsed) === text;
  } catch {
    return false;
  }
}

/** True when every number in `value` is an integer JavaScript holds exactly (the statements' only numbers). */
export function hasOnlySafeIntegers(value: JsonValue | undefined): boolean {
  if (typeof value === 'number') return Number.isSafeInteger(value) && !Object.is(value, -0);
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) return value.every(hasOnlySafeIntegers);
  // A walk of the keys rather than Object.values: no array per object.
  for (const key in value) if (!hasOnlySafeIntegers(value[key])) return false;
  return true;
}

/** The length of `text` in UTF-8, counted without encoding it. */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
