/**
 * The log's entries for statements: the fields the contract lists, in canonical form (held to
 * `canonicalize`), and a signal statement's commitment is node:crypto's SHA-256 of its bytes.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import {
  keyLogEntry,
  readStatement,
  SIGNAL_STATEMENT_TYPES,
  signalIdOf,
  signalLogEntry,
  statementCommitment,
} from '../../src/statements/index.js';
import { ORIGIN, PROVIDER, text, valid } from './support.js';

const receivedAt = new Date('2026-12-01T12:00:00.123Z');

describe('signal statement entries', () => {
  it('commit to the statement by the SHA-256 of its UTF-8 bytes, and carry no content', () => {
    const statement = text(valid['signal.open']());
    const commitment = statementCommitment(statement);
    expect(commitment).toBe(createHash('sha256').update(Buffer.from(statement, 'utf8')).digest('hex'));
    const entry = signalLogEntry({ commitment, provider: 7, receivedAt, signal: 'sig_01', type: 'signal.open' });
    const expected = {
      commitment,
      provider: 7,
      receivedAt: '2026-12-01T12:00:00.123Z',
      signal: 'sig_01',
      type: 'signal.open',
      v: 1,
    };
    expect(entry).toBe(canonicalize(expected));
    expect(JSON.parse(entry)).toEqual(expected);
    expect(entry).not.toContain('BTC-USD');
  });

  it("name the open's id as the signal, and an update's signal", () => {
    const signals = SIGNAL_STATEMENT_TYPES.map((type) => {
      const body = { statement: text(valid[type]()), signer: 'x', signature: 'y' };
      return signalIdOf(
        readStatement(body, { origin: ORIGIN, providerId: PROVIDER, types: SIGNAL_STATEMENT_TYPES }).statement,
      );
    });
    expect(signals).toEqual(['sig_01', 'sig_01', 'sig_01', 'sig_01']);
  });

  it('refuse a commitment that is not a hex SHA-256', () => {
    const fields = { provider: 7, receivedAt, signal: 'sig_01', type: 'signal.close' } as const;
    expect(() => signalLogEntry({ ...fields, commitment: 'AB'.repeat(32) })).toThrow(TypeError);
    expect(() => signalLogEntry({ ...fields, commitment: 'ab'.repeat(31) })).toThrow(TypeError);
  });
});

describe('key statement entries', () => {
  it('carry the statement whole, as the canonical JSON of the contract fields', () => {
    const statement = text(valid['key.delegate']());
    const fields = {
      provider: 7,
      receivedAt,
      signature: '0xabc',
      signer: '0x8ba1f109551bD432803012645Ac136ddd64DBA72',
      statement,
      type: 'key.delegate',
    } as const;
    const entry = keyLogEntry(fields);
    expect(entry).toBe(canonicalize({ ...fields, receivedAt: receivedAt.toISOString(), v: 1 }));
    expect(JSON.parse(entry).statement).toBe(statement);
  });
});
