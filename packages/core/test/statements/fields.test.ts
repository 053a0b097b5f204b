/**
 * Instants as the statements write them (`YYYY-MM-DDTHH:MM:SS[.fraction]Z`), held to the
 * platform's Date: the same milliseconds for every valid instant, and the same verdict on
 * calendar dates that do not exist (30 February, 29 February outside leap years).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareInstants, instantMs } from '../../src/statements/fields.js';

const pad = (n: number, width: number) => String(n).padStart(width, '0');

describe('instants', () => {
  it('name the milliseconds Date names, over four-digit years', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('0000-01-01T00:00:00Z'),
          max: new Date('9999-12-31T23:59:59.999Z'),
          noInvalidDate: true,
        }),
        (date) => {
          const iso = date.toISOString();
          expect(instantMs(iso)).toBe(date.getTime());
          expect(instantMs(iso.replace(/\.\d{3}Z$/, 'Z'))).toBe(date.getTime() - date.getUTCMilliseconds());
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('exist exactly when the calendar has the day', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1000, max: 9999 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 31 }),
        (year, month, day) => {
          const iso = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T00:00:00Z`;
          const date = new Date(Date.UTC(year, month - 1, day));
          const exists = date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
          expect(Number.isNaN(instantMs(iso)), iso).toBe(!exists);
        },
      ),
      { numRuns: 2_000 },
    );
    for (const bad of [
      '2026-12-01T24:00:00Z',
      '2026-12-01T12:60:00Z',
      '2026-12-01T12:00:60Z',
      '2026-13-01T00:00:00Z',
      '2026-12-01T12:00:00.Z',
      '2026-12-01T12:00:00z',
    ]) {
      expect(instantMs(bad), bad).toBeNaN();
    }
  });

  it('compare exactly, whatever the fractions', () => {
    expect(compareInstants('2026-12-01T12:00:00Z', '2026-12-01T12:00:00.000Z')).toBe(0);
    expect(compareInstants('2026-12-01T12:00:00.0000001Z', '2026-12-01T12:00:00Z')).toBe(1);
    expect(compareInstants('2026-12-01T12:00:00.1Z', '2026-12-01T12:00:00.09999Z')).toBe(1);
    expect(compareInstants('2026-12-01T11:59:59.999999Z', '2026-12-01T12:00:00Z')).toBe(-1);
  });
});
