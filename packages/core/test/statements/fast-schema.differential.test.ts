/**
 * Differential test: the signal statements' hand-written predicates (fast-schema.ts, the route's
 * hot path) against zod's strict schemas (`STATEMENT_SCHEMAS`), the library they stand in for.
 * On generated statements, each a valid one with fields replaced or removed by values at every
 * bound of the contract's grammar (decimals, instants, ids, salts, notes, entries, targets) or
 * by any JSON, the two give the same verdict, and what the predicate takes zod gives back
 * unchanged. Inputs are what `readStatement` hands the predicate: one object, no unknown field,
 * only safe integers.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SIGNAL_STATEMENT_ACCEPTS } from '../../src/statements/fast-schema.js';
import {
  hasOnlySafeIntegers,
  SIGNAL_STATEMENT_TYPES,
  type SignalStatementType,
  STATEMENT_CHECKS,
  STATEMENT_SCHEMAS,
} from '../../src/statements/index.js';
import { ISSUED_AT, valid } from './support.js';

const decimals = [
  '0',
  '1',
  '01',
  '0.0',
  '0.5',
  '0.000000000001',
  '0.0000000000001',
  '1.',
  '.5',
  '1e3',
  '-1',
  ' 1',
  '1 ',
  '١',
  '99999999999999999999',
  '100000000000000000000',
  '99999999999999999999.999999999999',
  '100',
  '100.0',
  '100.000000000000',
  '100.01',
  '99.999999999999',
  '101',
  '1000',
  '33.3',
];
const instants = [
  ISSUED_AT,
  '2026-12-01T12:00:00Z',
  '2026-12-01T12:00:00.000000001Z',
  '2026-12-01T12:00:00.001Z',
  '2026-12-01T11:59:59.999Z',
  '2026-12-02T12:00:00Z',
  '2027-12-01T12:00:00Z',
  '2026-02-29T00:00:00Z',
  '2028-02-29T00:00:00Z',
  '2026-12-01T24:00:00Z',
  '2026-12-01T12:00:60Z',
  '2026-12-01T12:00:00',
  '2026-12-01T12:00:00z',
  '2026-12-01 12:00:00Z',
  '2026-12-01T12:00:00.Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59Z',
  '2026-12-01T12:00:00+00:00',
];
const ids = ['sig_01', 'a', '', 'a'.repeat(64), 'a'.repeat(65), 'a b', 'é', 'A-Z_0-9', 'a/b'];
const salts = [
  'A'.repeat(21),
  'A'.repeat(22),
  'A'.repeat(64),
  'A'.repeat(65),
  `${'A'.repeat(22)}=`,
  `${'A'.repeat(21)}+`,
];
const notes = [
  '',
  'a',
  'a'.repeat(500),
  'a'.repeat(501),
  '🚀'.repeat(500),
  '🚀'.repeat(501),
  'line\nbreak',
  'tab\there',
  '\u0085',
  '\u007f',
  '\u00a0',
  '\u200b',
  'Breakout — “quoted”, ünïcødé',
];
const entries = [
  { type: 'market' },
  { type: 'market', price: '1' },
  { type: 'limit', price: '97000.5' },
  { type: 'limit' },
  { type: 'limit', price: '0' },
  { type: 'limit', price: '1', extra: 1 },
  { type: 'stop', price: '1' },
  { price: '1' },
  null,
  [],
  'market',
];
const targetLists = [[], ['1'], Array(10).fill('1'), Array(11).fill('1'), ['0'], [1], ['1', '01'], 'x', null];
const others = [
  1,
  2,
  0,
  -1,
  7,
  '1',
  '7',
  null,
  true,
  'long',
  'short',
  'Long',
  'BTC-USD',
  'btc',
  'A'.repeat(32),
  'A'.repeat(33),
  {},
];

const anyValue = fc.oneof(
  fc.constantFrom(...decimals, ...instants, ...ids, ...salts, ...notes, ...entries, ...targetLists, ...others),
  fc.stringMatching(/^[0-9.]{1,24}$/),
  fc.jsonValue({ maxDepth: 2 }),
);

/** Every field any signal type has, so a change can add a known field a type lacks too. */
const FIELDS = [...new Set(SIGNAL_STATEMENT_TYPES.flatMap((type) => [...STATEMENT_CHECKS[type].fields]))];

describe('differential: the signal statement predicates vs zod', () => {
  it('give zod’s verdict on generated statements, and what they take zod returns unchanged', () => {
    let accepted = 0;
    let runs = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...SIGNAL_STATEMENT_TYPES),
        fc.array(fc.tuple(fc.constantFrom(...FIELDS), fc.option(anyValue, { freq: 6 })), { maxLength: 3 }),
        (type: SignalStatementType, changes) => {
          const statement: Record<string, unknown> = { ...valid[type]() };
          for (const [field, value] of changes) {
            if (value === null) delete statement[field];
            else statement[field] = value;
          }
          // What readStatement hands over: parsed JSON, known fields only, safe integers only.
          const json = JSON.parse(JSON.stringify(statement)) as Record<string, unknown>;
          const fields = STATEMENT_CHECKS[type].fields;
          if (!Object.keys(json).every((key) => fields.has(key)) || !hasOnlySafeIntegers(json as never)) return;
          if (json.type !== type) return;
          runs++;
          const ours = SIGNAL_STATEMENT_ACCEPTS[type](json);
          const zod = STATEMENT_SCHEMAS[type].safeParse(json);
          expect(ours, JSON.stringify(json)).toBe(zod.success);
          if (ours) {
            accepted++;
            expect(zod.data).toStrictEqual(json);
          }
        },
      ),
      { numRuns: 4_000 },
    );
    // Neither side of the verdict is rare: the generator reaches both.
    expect(accepted).toBeGreaterThan(runs / 10);
    expect(runs - accepted).toBeGreaterThan(runs / 10);
  });

  it('agree on every bound value of every field of every type, one field at a time', () => {
    const values: unknown[] = [
      ...decimals,
      ...instants,
      ...ids,
      ...salts,
      ...notes,
      ...entries,
      ...targetLists,
      ...others,
      undefined,
    ];
    for (const type of SIGNAL_STATEMENT_TYPES) {
      for (const field of STATEMENT_CHECKS[type].fields) {
        if (field === 'type') continue;
        for (const value of values) {
          const statement: Record<string, unknown> = { ...valid[type]() };
          if (value === undefined) delete statement[field];
          else statement[field] = value;
          const json = JSON.parse(JSON.stringify(statement)) as Record<string, unknown>;
          if (!hasOnlySafeIntegers(json as never)) continue;
          const zod = STATEMENT_SCHEMAS[type].safeParse(json);
          expect(SIGNAL_STATEMENT_ACCEPTS[type](json), `${type} ${field}=${JSON.stringify(value)}`).toBe(zod.success);
        }
      }
    }
  });
});
