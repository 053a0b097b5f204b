/**
 * The API runs with zod's compiler on (`import 'zod/compile'` in apps/api/src/main.ts): every
 * schema's parse first tries one generated function and falls back to zod's runtime parser
 * when that function does not accept the value. This file holds the compiled parse of every
 * wire schema core exports to zod's runtime parse of the same schema (this suite does not load
 * the compiler globally, so the schemas here are runtime ones and `z.compile` makes the
 * compiled clone): the same verdict, the same value with its keys in the same order (the JSON a
 * client receives), and the same issues, over every documented example, each example offered to
 * every schema, and mutations of each example (a field dropped, nulled, of another type, an
 * extra field, numbers as strings) offered to the schemas that accept the example.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as examples from '../src/examples.js';
import * as core from '../src/index.js';
import * as logExamples from '../src/log-examples.js';
import * as signalExamples from '../src/signal-examples.js';
import * as webhookExamples from '../src/webhook-examples.js';

const schemas: [string, z.ZodType][] = Object.entries(core as Record<string, unknown>).flatMap(([name, value]) =>
  value instanceof z.ZodType ? [[name, value] as [string, z.ZodType]] : [],
);

const exampleValues: unknown[] = [examples, logExamples, signalExamples, webhookExamples].flatMap((module) =>
  Object.values(module).map((value) => (typeof value === 'function' ? value() : value)),
);

/** Query strings arrive as strings: the list and page parameters as a REST client sends them. */
const queries: unknown[] = [
  {},
  { limit: '20', sort: 'roi30d' },
  { page: '2', limit: '50' },
  { limit: '0' },
  { limit: '101' },
  { sort: 'nope' },
  { q: 'alpha', minWinRate: '0.5', order: 'asc' },
  { cursor: 'not-a-cursor' },
  { id: '5' },
  { id: '-1' },
  { id: '1e3' },
];

const replacements: unknown[] = [undefined, null, 1, -1, 1.5, 'x', '', '7', true, [], {}, '2026-12-04T00:00:00.000Z'];

/** Every copy of `value` with one node changed: each object field replaced or dropped, one extra field, each array emptied. */
function mutations(value: unknown): unknown[] {
  if (Array.isArray(value)) {
    const out: unknown[] = [[], [...value, ...value.slice(0, 1)]];
    value.forEach((item, index) => {
      for (const changed of mutations(item)) out.push(value.map((other, i) => (i === index ? changed : other)));
    });
    return out;
  }
  if (value === null || typeof value !== 'object') return replacements;
  const record = value as Record<string, unknown>;
  const out: unknown[] = [{ ...record, extraField: 1 }];
  for (const key of Object.keys(record)) {
    const { [key]: _dropped, ...rest } = record;
    out.push(rest);
    for (const changed of mutations(record[key])) out.push({ ...record, [key]: changed });
  }
  return out;
}

function expectSameParse(schema: z.ZodType, compiled: z.ZodType, value: unknown) {
  const runtime = schema.safeParse(value);
  const fast = compiled.safeParse(value);
  expect(fast.success).toBe(runtime.success);
  if (runtime.success && fast.success) {
    expect(fast.data).toStrictEqual(runtime.data);
    expect(JSON.stringify(fast.data)).toBe(JSON.stringify(runtime.data));
  } else {
    expect(fast.error?.issues).toStrictEqual(runtime.error?.issues);
  }
  return runtime.success;
}

describe("zod's compiled parse against its runtime parse", () => {
  it('compiles every wire schema in full (a refused one would silently parse at runtime speed)', () => {
    const refused = schemas.flatMap(([name, schema]) => {
      try {
        z.compile(schema, { strict: true });
        return [];
      } catch (error) {
        return [`${name}: ${(error as Error).message}`];
      }
    });
    expect(refused).toEqual([]);
  });

  it('gives every wire schema the same verdict, value and issues on examples and their mutations', () => {
    let compared = 0;
    let accepted = 0;
    for (const [, schema] of schemas) {
      const compiled = z.compile(schema);
      for (const value of [...exampleValues, ...queries]) {
        compared += 1;
        if (!expectSameParse(schema, compiled, value)) continue;
        accepted += 1;
        for (const changed of mutations(value)) {
          compared += 1;
          if (expectSameParse(schema, compiled, changed)) accepted += 1;
        }
      }
    }
    // The corpus must exercise both sides (4 Dec 2026: 108 schemas, 92,677 parses, 78,676 accepted).
    expect(schemas.length).toBeGreaterThan(100);
    expect(accepted).toBeGreaterThan(50_000);
    expect(compared - accepted).toBeGreaterThan(10_000);
  });
});
