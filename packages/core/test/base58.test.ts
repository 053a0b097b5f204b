/** The bigint base58 decoder held to `bs58` (base-x) on random bytes, leading zeros and bad characters. */
import bs58 from 'bs58';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBase58 } from '../src/base58.js';

describe('decodeBase58', () => {
  it('decodes what bs58 encodes, leading zero bytes included', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 96 }), fc.nat(4), (bytes, zeros) => {
        const input = new Uint8Array([...new Uint8Array(zeros), ...bytes]);
        expect(Array.from(decodeBase58(bs58.encode(input)) ?? [])).toEqual(Array.from(input));
      }),
      { numRuns: 3_000 },
    );
  });

  it('agrees with bs58 on any text: the same bytes, or null where bs58 throws', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom(...'123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0OIl+/é'),
          maxLength: 100,
        }),
        (text) => {
          let expected: number[] | null;
          try {
            expected = Array.from(bs58.decode(text));
          } catch {
            expected = null;
          }
          const decoded = decodeBase58(text);
          expect(decoded && Array.from(decoded)).toEqual(expected);
        },
      ),
      { numRuns: 3_000 },
    );
  });
});
