/**
 * The pure checks of a statement route, in the contract's order: the validation matrix with its
 * issue paths (from "statement"), the first failure answering when several apply, the clock
 * skew at its edges, and the signer's format.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/errors.js';
import {
  checkIssuedAt,
  checkStatementRequest,
  hasOnlySafeIntegers,
  parseStatementSigner,
  readStatement,
  STATEMENT_SCHEMAS,
  STATEMENT_TYPES,
  type StatementType,
} from '../../src/statements/index.js';
import { failure, ISSUED_AT, NOW, ORIGIN, PROVIDER, text, type ValidType, valid } from './support.js';

const SIGNER = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';
const body = (statement: string, signer = SIGNER) => ({ statement, signer, signature: '0x00' });
const context = (types: readonly StatementType[] = STATEMENT_TYPES) => ({
  origin: ORIGIN,
  providerId: PROVIDER,
  types,
});
const read = (statement: unknown, types?: readonly StatementType[]) =>
  readStatement(body(typeof statement === 'string' ? statement : text(statement)), context(types));

/** `change` applied to a valid statement of `type` fails with VALIDATION_ERROR naming `path`. */
function refusedAt(type: ValidType, change: (s: Record<string, unknown>) => void, path: (string | number)[]) {
  const statement: Record<string, unknown> = valid[type]();
  change(statement);
  const result = failure(() => read(statement));
  expect(result.code).toBe('VALIDATION_ERROR');
  expect(result.paths, JSON.stringify(statement)).toContainEqual(path);
}

describe('readStatement', () => {
  it('reads a valid statement of every type, keeping its text byte for byte', () => {
    for (const type of STATEMENT_TYPES) {
      const statementText = text(valid[type]());
      const result = read(statementText, [type]);
      expect(result.text).toBe(statementText);
      expect(result.statement.type).toBe(type);
      expect(result.signer).toBe(SIGNER);
    }
  });

  it('refuses a malformed body, naming the field', () => {
    expect(failure(() => readStatement({ statement: '{}' }, context())).paths).toEqual([['signer'], ['signature']]);
    expect(failure(() => readStatement({ statement: 5, signer: 'x', signature: 'y' }, context())).paths).toEqual([
      ['statement'],
    ]);
    expect(failure(() => readStatement(null, context())).code).toBe('VALIDATION_ERROR');
  });

  it('counts the 4 KiB in bytes of UTF-8: 4,096 pass to the JSON check, 4,097 do not', () => {
    const atLimit = failure(() => read('é'.repeat(2048)));
    expect(atLimit.paths).toEqual([['statement']]);
    expect(atLimit.message).toMatch(/must be JSON/);
    const over = failure(() => read(`${'é'.repeat(2048)}a`));
    expect(over.code).toBe('VALIDATION_ERROR');
    expect(over.message).toMatch(/4096 bytes/);
  });

  it('refuses what is not one JSON object', () => {
    for (const bad of ['', '{"v":1', 'null', '[]', '"x"', '1']) {
      const result = failure(() => read(bad));
      expect(result.code).toBe('VALIDATION_ERROR');
      expect(result.paths).toEqual([['statement']]);
    }
  });

  it('refuses every non-canonical spelling, and numbers other than integers', () => {
    const canonical = text(valid['signal.cancel']());
    const spellings = [
      canonical.replace('"v":1', '"v": 1'),
      canonical.replace('{', '{ '),
      `${canonical}\n`,
      text({ ...valid['signal.cancel'](), v: undefined }).replace('{', '{"v":1,'),
      canonical.replace('"type":"signal.cancel"', '"type":"sign\\u0061l.cancel"'),
      canonical.replace('"v":1', '"v":1.0'),
      canonical.replace('"provider":7', '"provider":7e0'),
      canonical.replace('"v":1', '"v":1,"v":1'),
      text({ ...valid['signal.cancel'](), provider: 7.5 }),
      text({ ...valid['signal.cancel'](), v: 2 ** 53 }),
    ];
    for (const spelling of spellings) {
      const result = failure(() => read(spelling));
      expect(result.paths, spelling).toEqual([['statement']]);
      expect(result.message).toMatch(/canonical/);
    }
  });

  it('refuses a type the route does not take, naming type', () => {
    const result = failure(() => read(valid['signal.close'](), ['signal.open']));
    expect(result.paths).toEqual([['statement', 'type']]);
    expect(failure(() => read({ ...valid['signal.open'](), type: 'signal.reopen' })).paths).toEqual([
      ['statement', 'type'],
    ]);
  });

  it('names each bad field by its path from "statement"', () => {
    refusedAt('signal.open', (s) => Object.assign(s, { entry: { type: 'limit', price: '0' } }), [
      'statement',
      'entry',
      'price',
    ]);
    refusedAt('signal.open', (s) => Object.assign(s, { entry: { type: 'limit' } }), ['statement', 'entry', 'price']);
    refusedAt('signal.open', (s) => Object.assign(s, { entry: { type: 'market', price: '1' } }), [
      'statement',
      'entry',
      'price',
    ]);
    refusedAt('signal.open', (s) => Object.assign(s, { entry: { type: 'stop' } }), ['statement', 'entry', 'type']);
    refusedAt('signal.open', (s) => Object.assign(s, { extra: true }), ['statement', 'extra']);
    refusedAt('signal.open', (s) => delete s.stop, ['statement', 'stop']);
    refusedAt('signal.open', (s) => delete s.targets, ['statement', 'targets']);
    refusedAt('signal.open', (s) => delete s.expiresAt, ['statement', 'expiresAt']);
    refusedAt('signal.open', (s) => Object.assign(s, { stop: '0.0' }), ['statement', 'stop']);
    refusedAt('signal.open', (s) => Object.assign(s, { targets: ['1', '01'] }), ['statement', 'targets', 1]);
    refusedAt('signal.open', (s) => Object.assign(s, { targets: Array(11).fill('1') }), ['statement', 'targets']);
    refusedAt('signal.open', (s) => Object.assign(s, { sizePct: '100.000000000001' }), ['statement', 'sizePct']);
    refusedAt('signal.open', (s) => Object.assign(s, { sizePct: '0' }), ['statement', 'sizePct']);
    refusedAt('signal.open', (s) => Object.assign(s, { side: 'buy' }), ['statement', 'side']);
    refusedAt('signal.open', (s) => Object.assign(s, { instrument: 'btc-usd' }), ['statement', 'instrument']);
    refusedAt('signal.open', (s) => Object.assign(s, { instrument: 'A'.repeat(33) }), ['statement', 'instrument']);
    refusedAt('signal.open', (s) => Object.assign(s, { expiresAt: ISSUED_AT }), ['statement', 'expiresAt']);
    refusedAt('signal.open', (s) => Object.assign(s, { note: 'x'.repeat(501) }), ['statement', 'note']);
    refusedAt('signal.open', (s) => Object.assign(s, { note: 'line\nbreak' }), ['statement', 'note']);
    refusedAt('signal.open', (s) => Object.assign(s, { note: 'bell\u0007' }), ['statement', 'note']);
    refusedAt('signal.open', (s) => Object.assign(s, { id: 'a'.repeat(65) }), ['statement', 'id']);
    refusedAt('signal.open', (s) => Object.assign(s, { id: 'has space' }), ['statement', 'id']);
    refusedAt('signal.open', (s) => Object.assign(s, { salt: 'A'.repeat(21) }), ['statement', 'salt']);
    refusedAt('signal.open', (s) => Object.assign(s, { salt: `${'A'.repeat(22)}==` }), ['statement', 'salt']);
    refusedAt('signal.open', (s) => Object.assign(s, { v: 2 }), ['statement', 'v']);
    refusedAt('signal.open', (s) => Object.assign(s, { provider: '7' }), ['statement', 'provider']);
    refusedAt('signal.open', (s) => Object.assign(s, { issuedAt: '2026-12-01T12:00:00+00:00' }), [
      'statement',
      'issuedAt',
    ]);
    refusedAt('signal.open', (s) => Object.assign(s, { issuedAt: '2026-02-29T12:00:00Z' }), ['statement', 'issuedAt']);
    refusedAt('signal.open', (s) => Object.assign(s, { issuedAt: '2026-12-01 12:00:00Z' }), ['statement', 'issuedAt']);
    refusedAt('signal.update', (s) => delete s.stop, ['statement']);
    refusedAt('signal.update', (s) => delete s.signal, ['statement', 'signal']);
    refusedAt('signal.update', (s) => Object.assign(s, { sizePct: '1' }), ['statement', 'sizePct']);
    refusedAt('signal.close', (s) => Object.assign(s, { closePct: '0' }), ['statement', 'closePct']);
    refusedAt('signal.close', (s) => Object.assign(s, { closePct: '101' }), ['statement', 'closePct']);
    refusedAt('signal.cancel', (s) => delete s.salt, ['statement', 'salt']);
    refusedAt('key.delegate', (s) => Object.assign(s, { expiresAt: '2027-12-02T12:00:00.001Z' }), [
      'statement',
      'expiresAt',
    ]);
    refusedAt('key.delegate', (s) => Object.assign(s, { key: 'ed25519:abc' }), ['statement', 'key']);
    refusedAt('key.delegate', (s) => Object.assign(s, { key: 'DcipT25w5s9T9BWSAgJ27769YymKfJKi28P3zEENALJ8' }), [
      'statement',
      'key',
    ]);
    refusedAt('key.delegate', (s) => Object.assign(s, { id: 'k1' }), ['statement', 'id']);
    refusedAt('key.revoke', (s) => Object.assign(s, { salt: 'A'.repeat(22) }), ['statement', 'salt']);
  });

  it('takes the edges: 365 days exactly, a fraction after issuedAt, 10 targets, an empty note, 100 %', () => {
    expect(() => read({ ...valid['key.delegate'](), expiresAt: '2027-12-01T12:00:00Z' })).not.toThrow();
    expect(() => read({ ...valid['signal.open'](), expiresAt: '2026-12-01T12:00:00.0000001Z' })).not.toThrow();
    const open = { ...valid['signal.open'](), targets: Array(10).fill('1'), sizePct: '100.000', note: '' };
    expect(() => read({ ...open, stop: null, entry: { type: 'market' }, expiresAt: null })).not.toThrow();
    expect(() => read({ ...valid['signal.update'](), stop: undefined, note: '' })).not.toThrow();
    expect(() => read({ ...valid['signal.close'](), closePct: '100' })).not.toThrow();
  });

  it('checks log, then provider, after the schema', () => {
    expect(failure(() => read({ ...valid['signal.open'](), log: 'other/signals' })).paths).toEqual([
      ['statement', 'log'],
    ]);
    expect(failure(() => read({ ...valid['signal.open'](), provider: 8 })).paths).toEqual([['statement', 'provider']]);
    // The first failure answers: canonical form before schema, schema before log, log before provider.
    const wrongEverywhere = { ...valid['signal.open'](), log: 'other/signals', provider: 8, side: 'buy' };
    expect(failure(() => read(wrongEverywhere)).paths).toEqual([['statement', 'side']]);
    expect(failure(() => read({ ...wrongEverywhere, side: 'long' })).paths).toEqual([['statement', 'log']]);
    expect(failure(() => read(` ${text(wrongEverywhere)}`)).paths).toEqual([['statement']]);
  });
});

describe('readStatement on any input', () => {
  it('answers VALIDATION_ERROR or reads it as the strict schemas judge, whatever a field holds', () => {
    const types = Object.keys(valid) as ValidType[];
    fc.assert(
      fc.property(
        fc.constantFrom(...types),
        fc.string({ maxLength: 12 }),
        fc.jsonValue({ maxDepth: 2 }),
        fc.boolean(),
        (type, field, value, known) => {
          const statement: Record<string, unknown> = valid[type]();
          const keys = Object.keys(statement);
          const name = known ? (keys[field.length % keys.length] as string) : field;
          statement[name] = value;
          const statementText = text(statement);
          // The verdict of the strict schemas (the hot path uses plain objects and its own field list).
          const json = JSON.parse(statementText);
          // A type that is not a string (`{"toString": ""}`) names no schema; hasOwn would call its toString.
          const typed = typeof json.type === 'string' && Object.hasOwn(STATEMENT_SCHEMAS, json.type);
          const expected =
            hasOnlySafeIntegers(json) &&
            typed &&
            STATEMENT_SCHEMAS[json.type as StatementType].safeParse(json).success &&
            json.log === ORIGIN &&
            json.provider === PROVIDER;
          let accepted = true;
          try {
            read(statementText);
          } catch (error) {
            expect(error).toBeInstanceOf(DomainError);
            expect((error as DomainError).code).toBe('VALIDATION_ERROR');
            accepted = false;
          }
          expect(accepted, statementText).toBe(expected);
        },
      ),
      { numRuns: 3_000 },
    );
  });
});

describe('checkIssuedAt', () => {
  const statement = (offsetMs: number) => ({ issuedAt: new Date(NOW + offsetMs).toISOString() });
  it('takes up to the skew either way, and not a millisecond more', () => {
    for (const offset of [0, 60_000, -60_000]) expect(() => checkIssuedAt(statement(offset), NOW, 60)).not.toThrow();
    for (const offset of [60_001, -60_001]) {
      const result = failure(() => checkIssuedAt(statement(offset), NOW, 60));
      expect(result.code).toBe('VALIDATION_ERROR');
      expect(result.paths).toEqual([['statement', 'issuedAt']]);
    }
  });
});

describe('parseStatementSigner', () => {
  it('names each kind in canonical form', () => {
    expect(parseStatementSigner(SIGNER.toLowerCase())).toEqual({ kind: 'evm', id: SIGNER });
    expect(parseStatementSigner('DcipT25w5s9T9BWSAgJ27769YymKfJKi28P3zEENALJ8')).toEqual({
      kind: 'solana',
      id: 'DcipT25w5s9T9BWSAgJ27769YymKfJKi28P3zEENALJ8',
    });
    const key = parseStatementSigner('ed25519:DcipT25w5s9T9BWSAgJ27769YymKfJKi28P3zEENALJ8');
    expect(key.kind).toBe('ed25519');
    expect(key.id).toBe('ed25519:DcipT25w5s9T9BWSAgJ27769YymKfJKi28P3zEENALJ8');
  });

  it('refuses anything else with INVALID_WALLET', () => {
    const bad = [
      '',
      'ed25519:',
      'ed25519:abc',
      'ED25519:DcipT25w5s9T9BWSAgJ27769YymKfJKi28P3zEENALJ8',
      '0x123',
      SIGNER.replace('b', 'B'),
    ];
    for (const signer of bad) expect(failure(() => parseStatementSigner(signer)).code, signer).toBe('INVALID_WALLET');
  });
});

describe('checkStatementRequest', () => {
  const request = (statement: unknown, signer: string, nowMs = NOW) =>
    checkStatementRequest(body(text(statement), signer), { ...context(), nowMs, maxSkewSeconds: 60 });

  it('runs the checks in order: issuedAt before the signer format', () => {
    expect(request(valid['signal.open'](), SIGNER.toLowerCase()).parsedSigner.id).toBe(SIGNER);
    expect(failure(() => request(valid['signal.open'](), 'nobody')).code).toBe('INVALID_WALLET');
    const late = failure(() => request(valid['signal.open'](), 'nobody', NOW + 61_000));
    expect(late.code).toBe('VALIDATION_ERROR');
    expect(late.paths).toEqual([['statement', 'issuedAt']]);
  });
});
