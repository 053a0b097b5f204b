/**
 * Statements for the tests, written independently of the code under test: the canonical text
 * comes from `canonicalize` (the RFC 8785 reference implementation), the keys from viem, node's
 * crypto and tweetnacl.
 */
import { randomBytes } from 'node:crypto';
import canonicalize from 'canonicalize';
import { expect } from 'vitest';
import { DomainError } from '../../src/errors.js';
import { signalTerms } from '../../src/signal-examples.js';

export const ORIGIN = 'signal.example/signals';
export const PROVIDER = 7;
export const NOW = Date.parse('2026-12-01T12:00:00.000Z');
export const ISSUED_AT = '2026-12-01T12:00:00.000Z';

export const salt = () => randomBytes(16).toString('base64url');
export const text = (value: unknown) => canonicalize(value) as string;

const common = (type: string) => ({ v: 1, log: ORIGIN, type, provider: PROVIDER, issuedAt: ISSUED_AT });

/** A valid statement of each type, to be changed one field at a time. */
export const valid = {
  'signal.open': () => ({
    ...common('signal.open'),
    id: 'sig_01',
    salt: salt(),
    ...signalTerms(),
    expiresAt: '2026-12-02T12:00:00Z',
    note: 'Breakout above the range — “quoted”, ünïcødé 🚀',
  }),
  'signal.update': () => ({ ...common('signal.update'), id: 'upd_01', salt: salt(), signal: 'sig_01', stop: null }),
  'signal.close': () => ({ ...common('signal.close'), id: 'cls_01', salt: salt(), signal: 'sig_01', closePct: '33.3' }),
  'signal.cancel': () => ({ ...common('signal.cancel'), id: 'cnl_01', salt: salt(), signal: 'sig_01' }),
  'key.delegate': () => ({
    ...common('key.delegate'),
    key: 'ed25519:DcipT25w5s9T9BWSAgJ27769YymKfJKi28P3zEENALJ8',
    expiresAt: '2027-06-01T00:00:00Z',
  }),
  'key.revoke': () => ({ ...common('key.revoke'), key: 'ed25519:DcipT25w5s9T9BWSAgJ27769YymKfJKi28P3zEENALJ8' }),
} as const;

export type ValidType = keyof typeof valid;

/** The DomainError `run` throws: its code and the paths its issues name. */
export function failure(run: () => unknown): { code: string; paths: (string | number)[][]; message: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    const domain = error as DomainError;
    return { code: domain.code, paths: (domain.issues ?? []).map((issue) => issue.path), message: domain.message };
  }
  throw new Error('expected a DomainError, nothing was thrown');
}
