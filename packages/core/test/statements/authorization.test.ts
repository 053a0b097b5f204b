/**
 * Who may sign for a provider when, at every edge: a publisher wallet's interval, a key's
 * validity (one millisecond after its expiry or revocation), a wallet removed between two
 * statements, and a key whose wallet was removed staying dead once the wallet is added again.
 */
import { describe, expect, it } from 'vitest';
import {
  type DelegatedKeyRow,
  delegationRightAt,
  type ProviderSigners,
  revocationRightAt,
  signerRightAt,
} from '../../src/statements/index.js';

const WALLET = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
const OTHER = 'DcipT25w5s9T9BWSAgJ27769YymKfJKi28P3zEENALJ8';
const KEY = 'ed25519:4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi';
const at = (iso: string) => new Date(`2026-12-01T${iso}Z`);
const plus = (date: Date, ms: number) => new Date(date.getTime() + ms);

const key = (fields: Partial<DelegatedKeyRow> = {}): DelegatedKeyRow => ({
  key: KEY,
  wallet: WALLET,
  delegatedAt: at('10:00:00.000'),
  issuedAt: '2026-12-01T10:00:00Z',
  expiresAt: '2026-12-01T12:00:00Z',
  revokedAt: null,
  ...fields,
});

const signers = (fields: Partial<ProviderSigners> = {}): ProviderSigners => ({
  publishers: [{ wallet: WALLET, addedAt: at('09:00:00.000'), removedAt: null }],
  keys: [key()],
  ...fields,
});

/** WALLET a publisher from `addedAt` until `removedAt`, then again (a second row) from `readdedAt` on. */
const removedAndReadded = (addedAt: Date, removedAt: Date, readdedAt: Date): ProviderSigners =>
  signers({
    publishers: [
      { wallet: WALLET, addedAt, removedAt },
      { wallet: WALLET, addedAt: readdedAt, removedAt: null },
    ],
  });

describe('publisher wallets', () => {
  it('sign from addedAt until (not at) removedAt', () => {
    const removed = signers({
      publishers: [{ wallet: WALLET, addedAt: at('09:00:00.000'), removedAt: at('11:00:00.000') }],
    });
    expect(signerRightAt(removed, WALLET, at('08:59:59.999'))).toEqual({ allowed: false, reason: 'not a publisher' });
    expect(signerRightAt(removed, WALLET, at('09:00:00.000'))).toEqual({
      allowed: true,
      via: 'wallet',
      wallet: WALLET,
    });
    expect(signerRightAt(removed, WALLET, at('10:59:59.999')).allowed).toBe(true);
    expect(signerRightAt(removed, WALLET, at('11:00:00.000')).allowed).toBe(false);
    expect(signerRightAt(removed, OTHER, at('10:00:00.000'))).toEqual({ allowed: false, reason: 'not a publisher' });
  });

  it('sign again in a later row once re-added, and not in the gap', () => {
    const readded = removedAndReadded(at('09:00:00.000'), at('10:30:00.000'), at('11:00:00.000'));
    expect(signerRightAt(readded, WALLET, at('10:45:00.000')).allowed).toBe(false);
    expect(signerRightAt(readded, WALLET, at('11:00:00.000')).allowed).toBe(true);
  });
});

describe('delegated keys', () => {
  it('sign from issuedAt until (not at) expiresAt: one millisecond after the expiry is refused', () => {
    const state = signers();
    expect(signerRightAt(state, KEY, at('09:59:59.999'))).toEqual({ allowed: false, reason: 'key not yet valid' });
    expect(signerRightAt(state, KEY, at('10:00:00.000'))).toEqual({ allowed: true, via: 'key', wallet: WALLET });
    expect(signerRightAt(state, KEY, at('11:59:59.999')).allowed).toBe(true);
    expect(signerRightAt(state, KEY, at('12:00:00.000'))).toEqual({ allowed: false, reason: 'key expired' });
    expect(signerRightAt(state, KEY, at('12:00:00.001'))).toEqual({ allowed: false, reason: 'key expired' });
  });

  it('do not sign before their delegation was received, even with an earlier issuedAt', () => {
    const state = signers({ keys: [key({ issuedAt: '2026-12-01T09:59:30Z' })] });
    expect(signerRightAt(state, KEY, at('09:59:45.000')).allowed).toBe(false);
    expect(signerRightAt(state, KEY, at('10:00:00.000')).allowed).toBe(true);
  });

  it('stop at the revocation: one millisecond after it is refused, one before is not', () => {
    const revokedAt = at('11:00:00.000');
    const state = signers({ keys: [key({ revokedAt })] });
    expect(signerRightAt(state, KEY, plus(revokedAt, -1)).allowed).toBe(true);
    expect(signerRightAt(state, KEY, revokedAt)).toEqual({ allowed: false, reason: 'key revoked' });
    expect(signerRightAt(state, KEY, plus(revokedAt, 1))).toEqual({ allowed: false, reason: 'key revoked' });
  });

  it('end with their wallet, between two statements, and stay dead when it is added again', () => {
    const removedAt = at('10:30:00.000');
    const state = removedAndReadded(at('09:00:00.000'), removedAt, at('10:45:00.000'));
    expect(signerRightAt(state, KEY, plus(removedAt, -1)).allowed).toBe(true);
    expect(signerRightAt(state, KEY, removedAt)).toEqual({ allowed: false, reason: 'key wallet removed' });
    expect(signerRightAt(state, KEY, at('11:00:00.000'))).toEqual({ allowed: false, reason: 'key wallet removed' });
    // The wallet itself signs again in its new row.
    expect(signerRightAt(state, WALLET, at('11:00:00.000')).allowed).toBe(true);
  });

  it('delegated in a later row live in that row', () => {
    const state = removedAndReadded(at('08:00:00.000'), at('09:00:00.000'), at('09:30:00.000'));
    expect(signerRightAt(state, KEY, at('11:00:00.000')).allowed).toBe(true);
  });

  it('are unknown when not delegated for this provider', () => {
    expect(signerRightAt(signers({ keys: [] }), KEY, at('11:00:00.000'))).toEqual({
      allowed: false,
      reason: 'unknown key',
    });
  });
});

describe('key statements', () => {
  it('are delegated by publisher wallets only: a key cannot make keys', () => {
    const state = signers();
    expect(delegationRightAt(state, WALLET, at('11:00:00.000')).allowed).toBe(true);
    expect(delegationRightAt(state, KEY, at('11:00:00.000'))).toEqual({
      allowed: false,
      reason: 'keys cannot delegate',
    });
    expect(delegationRightAt(state, OTHER, at('11:00:00.000')).allowed).toBe(false);
  });

  it('are revoked by a publisher wallet or by the key itself while it may sign, not by another key', () => {
    const otherKey = 'ed25519:DcipT25w5s9T9BWSAgJ27769YymKfJKi28P3zEENALJ8';
    const state = signers({ keys: [key(), key({ key: otherKey })] });
    expect(revocationRightAt(state, WALLET, KEY, at('11:00:00.000')).allowed).toBe(true);
    expect(revocationRightAt(state, KEY, KEY, at('11:00:00.000')).allowed).toBe(true);
    expect(revocationRightAt(state, otherKey, KEY, at('11:00:00.000')).allowed).toBe(false);
    expect(revocationRightAt(state, KEY, KEY, at('12:00:00.000')).allowed).toBe(false);
  });
});
