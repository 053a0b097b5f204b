/**
 * Exact decimals, held to an independent formula written here: each decimal as a fraction
 * p/q with its own power of ten, differences by cross-multiplication, and the result written
 * out by long division, digit by digit (no shared scale, no shared formatting).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closeFits, compareDec, DEC_PATTERN, isDec, openPct } from '../../src/statements/decimal.js';
import { SignalCloseStatementSchema } from '../../src/statements/statement.schemas.js';

interface Fraction {
  p: bigint;
  q: bigint;
}

function fraction(text: string): Fraction {
  const dot = text.indexOf('.');
  if (dot < 0) return { p: BigInt(text), q: 1n };
  return { p: BigInt(text.replace('.', '')), q: 10n ** BigInt(text.length - dot - 1) };
}

function minus(a: Fraction, b: Fraction): Fraction {
  return { p: a.p * b.q - b.p * a.q, q: a.q * b.q };
}

/** p/q (q a product of powers of ten, so the expansion ends) written out by long division. */
function written({ p, q }: Fraction): string {
  if (p < 0n) return `-${written({ p: -p, q })}`;
  let out = (p / q).toString();
  let rest = p % q;
  if (rest === 0n) return out;
  out += '.';
  while (rest !== 0n) {
    rest *= 10n;
    out += (rest / q).toString();
    rest %= q;
  }
  return out;
}

/** Decimal strings in the contract's grammar: up to 3 integer digits here (percentages) or 20. */
function decimal(maxWholeDigits: number): fc.Arbitrary<string> {
  const whole = fc.oneof(
    fc.constant('0'),
    fc
      .tuple(
        fc.integer({ min: 1, max: 9 }),
        fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: maxWholeDigits - 1 }),
      )
      .map(([first, rest]) => `${first}${rest}`),
  );
  const part = fc.option(fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 12 }), {
    nil: undefined,
  });
  return fc.tuple(whole, part).map(([w, f]) => (f === undefined ? w : `${w}.${f}`));
}

const positive = (max: number) => decimal(max).filter((text) => fraction(text).p > 0n);

describe('openPct', () => {
  it('is 100 minus every close, exactly and normalised', () => {
    expect(openPct(['33.3', '0.1'])).toBe('66.6');
    expect(openPct([])).toBe('100');
    expect(openPct(['100'])).toBe('0');
    expect(openPct(['50.000', '49.999999999999'])).toBe('0.000000000001');
    expect(openPct(['0.1', '0.2'])).toBe('99.7');
    expect(openPct(['12.5', '12.50'])).toBe('75');
    expect(() => openPct(['60', '40.000000000001'])).toThrow(RangeError);
    expect(() => openPct(['1e2'])).toThrow(RangeError);
  });

  it('agrees with long division on fractions for any closes that fit', () => {
    const hundred = fraction('100');
    fc.assert(
      fc.property(fc.array(positive(2), { maxLength: 8 }), (closes) => {
        const expected = closes.reduce((open, close) => minus(open, fraction(close)), hundred);
        if (expected.p < 0n) {
          expect(() => openPct(closes)).toThrow(RangeError);
          return;
        }
        const open = openPct(closes);
        expect(open).toBe(written(expected));
        // Normalised: the grammar (or "0"), no trailing zero after a dot.
        expect(DEC_PATTERN.test(open)).toBe(true);
        expect(open).not.toMatch(/\.\d*0$/);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('compareDec and closeFits', () => {
  it('order decimals as their fractions do, up to 20 digits before the dot', () => {
    fc.assert(
      fc.property(decimal(20), decimal(20), (a, b) => {
        const difference = minus(fraction(a), fraction(b)).p;
        expect(compareDec(a, b)).toBe(difference < 0n ? -1 : difference > 0n ? 1 : 0);
        expect(closeFits(a, b)).toBe(fraction(a).p > 0n && difference <= 0n);
      }),
      { numRuns: 2_000 },
    );
  });

  it('takes a close of exactly what is open, and not a trillionth more', () => {
    expect(closeFits('66.6', '66.6')).toBe(true);
    expect(closeFits('66.600000000001', '66.6')).toBe(false);
    expect(closeFits('0', '66.6')).toBe(false);
    expect(closeFits('1', '0')).toBe(false);
  });
});

describe('isDec', () => {
  it('is the grammar and greater than 0', () => {
    for (const text of ['1', '0.5', '0.000000000001', '99999999999999999999.999999999999', '10', '100.0']) {
      expect(isDec(text), text).toBe(true);
    }
    for (const text of [
      '0',
      '0.0',
      '00.1',
      '01',
      '.5',
      '5.',
      '1e3',
      '-1',
      '+1',
      ' 1',
      '1.0000000000001',
      '123456789012345678901',
      '１',
      '',
    ]) {
      expect(isDec(text), text).toBe(false);
    }
  });
});

describe('closePct and sizePct in a statement', () => {
  const close = (closePct: string) => ({
    v: 1,
    log: 'l',
    type: 'signal.close',
    provider: 1,
    issuedAt: '2026-12-01T12:00:00Z',
    id: 'c1',
    salt: 'A'.repeat(22),
    signal: 's1',
    closePct,
  });
  it('take exactly the decimals in (0, 100]', () => {
    const hundred = fraction('100');
    fc.assert(
      fc.property(
        fc.oneof(decimal(3), fc.constantFrom('100', '100.0', '100.000000000001', '99.999999999999', '0.0')),
        (text) => {
          const value = fraction(text);
          const expected = value.p > 0n && minus(value, hundred).p <= 0n;
          expect(SignalCloseStatementSchema.safeParse(close(text)).success, text).toBe(expected);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});
