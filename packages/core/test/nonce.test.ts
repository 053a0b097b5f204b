import { describe, expect, it } from 'vitest';
import { AUTH_MESSAGE_PREFIX, buildAuthMessage } from '../src/message.js';
import { generateNonce, NONCE_LENGTH, NONCE_PATTERN } from '../src/nonce.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const DRAWS = 10_000;

describe('generateNonce', () => {
  const nonces = Array.from({ length: DRAWS }, generateNonce);

  it('is 32 alphanumeric characters, carrying at least 128 bits', () => {
    expect(NONCE_LENGTH).toBe(32);
    expect(NONCE_LENGTH * Math.log2(ALPHABET.length)).toBeGreaterThanOrEqual(128);
    expect(nonces[0]).toHaveLength(32);
    expect(nonces.filter((nonce) => !/^[A-Za-z0-9]{32}$/.test(nonce) || !NONCE_PATTERN.test(nonce))).toEqual([]);
  });

  it(`gives ${DRAWS} distinct values in ${DRAWS} draws`, () => {
    expect(new Set(nonces).size).toBe(DRAWS);
  });

  it('uses every alphabet character, roughly uniformly', () => {
    const counts = new Map<string, number>();
    for (const nonce of nonces) for (const c of nonce) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual([...ALPHABET].sort());

    // 320,000 characters: about 5,161 of each, standard deviation about 71. ±10% is over seven
    // standard deviations, yet catches a plain `byte % 62` without rejection sampling, which
    // would give the first eight characters 25% more than the rest.
    const expected = (DRAWS * NONCE_LENGTH) / ALPHABET.length;
    for (const [c, count] of counts) {
      expect(count, `count of ${c}`).toBeGreaterThan(expected * 0.9);
      expect(count, `count of ${c}`).toBeLessThan(expected * 1.1);
    }
    // Chi-square with 61 degrees of freedom: mean 61, standard deviation 11.
    let chiSquare = 0;
    for (const count of counts.values()) chiSquare += (count - expected) ** 2 / expected;
    expect(chiSquare).toBeLessThan(150);
  });

  it('is roughly uniform at every position', () => {
    // About 161 of each character per position, standard deviation about 12.6.
    for (let position = 0; position < NONCE_LENGTH; position++) {
      const counts = new Map<string, number>();
      for (const nonce of nonces) {
        const c = nonce[position] as string;
        counts.set(c, (counts.get(c) ?? 0) + 1);
      }
      expect(counts.size, `position ${position}`).toBe(ALPHABET.length);
      for (const count of counts.values()) {
        expect(count).toBeGreaterThan(70);
        expect(count).toBeLessThan(260);
      }
    }
  });
});

describe('buildAuthMessage', () => {
  it("is exactly 'Sign this message to authenticate: ' followed by the nonce", () => {
    expect(AUTH_MESSAGE_PREFIX).toBe('Sign this message to authenticate: ');
    const nonce = generateNonce();
    expect(buildAuthMessage(nonce)).toBe(`Sign this message to authenticate: ${nonce}`);
    expect(buildAuthMessage('abc')).toBe('Sign this message to authenticate: abc');
    expect(buildAuthMessage('')).toBe('Sign this message to authenticate: ');
  });
});
