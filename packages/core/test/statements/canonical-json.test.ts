/**
 * Canonical JSON held to `canonicalize`, the RFC 8785 author's reference implementation, on
 * generated JSON values, and to the RFC's own examples; `isCanonical` refuses every spelling
 * the contract names (an extra space, unsorted keys, `\u0061` for `a`, `1.0`).
 */
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  hasOnlySafeIntegers,
  isCanonical,
  type JsonValue,
  utf8ByteLength,
} from '../../src/statements/canonical-json.js';

/** JSON values of every kind, with unicode keys and strings (astral characters, escapes, controls). */
const json = fc.jsonValue({ maxDepth: 4, stringUnit: 'grapheme' }) as fc.Arbitrary<JsonValue>;

describe('canonicalJson', () => {
  it('writes what the reference implementation writes, for any JSON value', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(canonicalJson(value)).toBe(canonicalize(value));
      }),
      { numRuns: 2_000 },
    );
  });

  it('follows the RFC 8785 examples: number forms, escapes, key order by UTF-16 code units', () => {
    // RFC 8785 §3.2.2.3 and Appendix B.
    const numbers: [number, string][] = [
      [0, '0'],
      [-0, '0'],
      [1e21, '1e+21'],
      [1e-7, '1e-7'],
      [333333333.3333333, '333333333.3333333'],
      [9007199254740992, '9007199254740992'],
      [295147905179352830000, '295147905179352830000'],
      [4.5, '4.5'],
      [0.002, '0.002'],
    ];
    for (const [value, text] of numbers) expect(canonicalJson(value)).toBe(text);
    expect(canonicalJson('\u20ac$\u000f\nA\'"\\\u2028\u007f')).toBe('"€$\\u000f\\nA\'\\"\\\\\u2028\u007f"');
    // §3.2.3's sorting example: "\r", "1", "€", "😀" (UTF-16 order puts U+D83D before U+FB33), "דּ".
    const sorted = canonicalJson({
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew',
      '1': 'One',
      '\ud83d\ude00': 'Emoji',
      '\u0080': 'Control',
      '\u00f6': 'Latin',
    });
    expect(sorted).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","ö":"Latin","€":"Euro Sign","😀":"Emoji","דּ":"Hebrew"}',
    );
    expect(canonicalJson({ b: [1, { d: null, c: true }], a: 'x', u: undefined })).toBe(
      '{"a":"x","b":[1,{"c":true,"d":null}]}',
    );
  });

  it('refuses what JSON cannot carry: NaN, infinities, lone surrogates', () => {
    expect(() => canonicalJson(Number.NaN)).toThrow(TypeError);
    expect(() => canonicalJson({ a: Number.POSITIVE_INFINITY })).toThrow(TypeError);
    expect(() => canonicalJson(['\ud800'])).toThrow(TypeError);
    expect(() => canonicalize(['\ud800'])).toThrow();
  });
});

describe('isCanonical', () => {
  it('takes the canonical text of any JSON value, and refuses it with white space or keys reordered', () => {
    fc.assert(
      fc.property(json, (value) => {
        const text = canonicalize([value, { b: 1, a: value }]) as string;
        expect(isCanonical(text)).toBe(true);
        // Right after the opening bracket and before the closing one, a character is white space.
        expect(isCanonical(`[ ${text.slice(1)}`)).toBe(false);
        expect(isCanonical(`${text.slice(0, -1)}\n]`)).toBe(false);
        const reordered = `[${canonicalize(value)},{"b":1,"a":${canonicalize(value)}}]`;
        expect(isCanonical(reordered)).toBe(false);
      }),
      { numRuns: 1_000 },
    );
  });

  it('judges any JSON text as the reference does: canonical exactly when canonicalize gives it back', () => {
    // JSON.stringify keeps the engine's property order (often unsorted, integer-like keys first),
    // and escapes lone surrogates, which RFC 8785 refuses.
    const spelled = fc.oneof(
      json.map((value) => JSON.stringify(value)),
      json.map((value) => JSON.stringify(value, null, 1)),
      fc.constantFrom(
        '{"10":1,"9":2}',
        '{"9":2,"10":1}',
        '{"a":"\\ud800"}',
        '["\\\\ud800"]',
        '{"b":{"d":1,"c":2},"a":1}',
      ),
    );
    fc.assert(
      fc.property(spelled, (text) => {
        let reference: boolean;
        try {
          reference = canonicalize(JSON.parse(text)) === text;
        } catch {
          reference = false;
        }
        expect(isCanonical(text), text).toBe(reference);
      }),
      { numRuns: 3_000 },
    );
  });

  it('refuses the spellings the contract names', () => {
    expect(isCanonical('{"a":1,"b":2}')).toBe(true);
    expect(isCanonical('{"a":1, "b":2}')).toBe(false);
    expect(isCanonical('{"b":2,"a":1}')).toBe(false);
    expect(isCanonical('{"a":"\\u0061"}')).toBe(false);
    expect(isCanonical('{"a":1.0}')).toBe(false);
    expect(isCanonical('{"a":1,"a":1}')).toBe(false);
    expect(isCanonical('{"a":-0}')).toBe(false);
    expect(isCanonical('{"a":1E3}')).toBe(false);
    expect(isCanonical('{"a":"\\/"}')).toBe(false);
    expect(isCanonical('{"a":1}\n')).toBe(false);
    expect(isCanonical('{"a":"\\ud800"}')).toBe(false);
    expect(isCanonical('{"a":"\ud800"}')).toBe(false);
    expect(isCanonical('')).toBe(false);
    expect(isCanonical('{"a":')).toBe(false);
  });

  it('leaves the integer rule to hasOnlySafeIntegers', () => {
    expect(isCanonical('{"a":1.5}')).toBe(true);
    expect(hasOnlySafeIntegers({ a: 1.5 })).toBe(false);
    expect(hasOnlySafeIntegers({ a: [1, { b: 2 ** 53 }] })).toBe(false);
    expect(hasOnlySafeIntegers({ a: [1, { b: 2 ** 53 - 1 }], c: 'x', d: null })).toBe(true);
  });
});

describe('utf8ByteLength', () => {
  it("counts what node's encoder writes, for any well-formed text", () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
        expect(utf8ByteLength(text)).toBe(Buffer.byteLength(text, 'utf8'));
      }),
      { numRuns: 1_000 },
    );
  });
});
