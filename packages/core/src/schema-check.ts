/**
 * Fast paths compiled from a zod schema, for the hot path where almost every value is valid:
 * the server's answers and the requests' inputs. zod 3 rebuilds each object it parses (and its
 * datetime RegExp on every check): a page of 20 providers costs ≈100 µs of CPU and 50 KB of
 * garbage, and even the list's four query parameters ≈4 µs and 5.6 KB. A compiled check reads
 * the value once and allocates nothing; a compiled parse (for inputs, whose defaults and
 * preprocessing change the value) allocates only the object it returns.
 *
 * Both only ever say "valid, and zod would return an equal value": a kind of schema they do
 * not know (refinements, transforms, unions...) compiles to null, and anything unusual (a key
 * outside the shape, an object that is not plain) fails, so the caller falls back to zod's own
 * parse, which then answers with zod's result or zod's issues. The differential tests hold the
 * two to the same verdict.
 */
import { z } from 'zod';

export type Check = (value: unknown) => boolean;

/** All of `tests` pass: an index loop, so that a check allocates no closure or iterator. */
function all(tests: Check[], value: unknown): boolean {
  for (let i = 0; i < tests.length; i++) if (!(tests[i] as Check)(value)) return false;
  return true;
}

/** The same language without capture groups: testing it then fills in no match data. */
function withoutCaptures(pattern: RegExp): RegExp {
  // Safe only when no "(" is escaped or inside a character class; zod's own patterns have none.
  if (/\\\(|\[[^\]]*\(/.test(pattern.source)) return pattern;
  return new RegExp(pattern.source.replace(/\((?!\?)/g, '(?:'), pattern.flags);
}

function stringCheck(def: z.ZodStringDef): Check | null {
  if (def.coerce) return null;
  const tests: Check[] = [];
  for (const check of def.checks) {
    if (check.kind === 'datetime') {
      const pattern = withoutCaptures(z.datetimeRegex(check));
      tests.push((v) => pattern.test(v as string));
    } else if (check.kind === 'min') {
      const min = check.value;
      tests.push((v) => (v as string).length >= min);
    } else if (check.kind === 'max') {
      const max = check.value;
      tests.push((v) => (v as string).length <= max);
    } else {
      return null;
    }
  }
  return (v) => typeof v === 'string' && all(tests, v);
}

function numberCheck(def: z.ZodNumberDef): Check | null {
  if (def.coerce) return null;
  const tests: Check[] = [];
  for (const check of def.checks) {
    if (check.kind === 'int') {
      tests.push((v) => Number.isInteger(v));
    } else if (check.kind === 'min') {
      const { value, inclusive } = check;
      tests.push(inclusive ? (v) => (v as number) >= value : (v) => (v as number) > value);
    } else if (check.kind === 'max') {
      const { value, inclusive } = check;
      tests.push(inclusive ? (v) => (v as number) <= value : (v) => (v as number) < value);
    } else if (check.kind === 'finite') {
      tests.push((v) => Number.isFinite(v));
    } else {
      return null;
    }
  }
  // zod refuses NaN as "expected number, received nan".
  return (v) => typeof v === 'number' && !Number.isNaN(v) && all(tests, v);
}

/**
 * A plain object or one without a prototype, as JSON and query strings give: zod reads a Date,
 * Map, Set or promise as another type, so those are left to it.
 */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function objectCheck(schema: z.AnyZodObject): Check | null {
  if (!(schema._def.catchall instanceof z.ZodNever)) return null;
  const passthrough = schema._def.unknownKeys === 'passthrough';
  const fields: [string, Check][] = [];
  for (const [key, field] of Object.entries(schema.shape as z.ZodRawShape)) {
    const check = compileCheck(field);
    if (!check) return null;
    fields.push([key, check]);
  }
  const known = new Set(fields.map(([key]) => key));
  return (v) => {
    if (!isPlainObject(v)) return false;
    const record = v;
    for (const [key, check] of fields) if (!check(record[key])) return false;
    // zod would drop (or, if strict, refuse) a key outside the shape: zod decides then.
    if (!passthrough) for (const key in record) if (!known.has(key)) return false;
    return true;
  };
}

/** The check of a schema, or null when this schema is beyond the compiler (zod then decides). */
export function compileCheck(schema: z.ZodTypeAny): Check | null {
  if (schema instanceof z.ZodString) return stringCheck(schema._def);
  if (schema instanceof z.ZodNumber) return numberCheck(schema._def);
  if (schema instanceof z.ZodBoolean) return schema._def.coerce ? null : (v) => typeof v === 'boolean';
  if (schema instanceof z.ZodLiteral) {
    const literal: unknown = schema._def.value;
    return (v) => v === literal;
  }
  if (schema instanceof z.ZodEnum) {
    const options = new Set<unknown>(schema._def.values);
    return (v) => typeof v === 'string' && options.has(v);
  }
  if (schema instanceof z.ZodNullable || schema instanceof z.ZodOptional) {
    const inner = compileCheck(schema._def.innerType);
    if (!inner) return null;
    const empty = schema instanceof z.ZodNullable ? null : undefined;
    return (v) => v === empty || inner(v);
  }
  if (schema instanceof z.ZodArray) {
    const def = schema._def;
    if (def.minLength || def.maxLength || def.exactLength) return null;
    const item = compileCheck(def.type);
    if (!item) return null;
    return (v) => {
      if (!Array.isArray(v)) return false;
      // An index loop, not every(): a hole is an undefined item to zod, not one to skip.
      for (let i = 0; i < v.length; i++) if (!item(v[i])) return false;
      return true;
    };
  }
  if (schema instanceof z.ZodObject) return objectCheck(schema);
  return null;
}

/** What a compiled parse returns for "not valid, or not sure": zod is asked then. */
export const ASK_ZOD: unique symbol = Symbol('ask zod');

/** zod's output for a value it accepts, or ASK_ZOD. */
export type Parse = (value: unknown) => unknown;

/** zod's object parse with the default `strip`: the shape's keys, each parsed, nothing else. */
function objectParse(schema: z.AnyZodObject): Parse | null {
  if (!(schema._def.catchall instanceof z.ZodNever) || schema._def.unknownKeys === 'passthrough') return null;
  const strict = schema._def.unknownKeys === 'strict';
  const fields: [string, Parse][] = [];
  for (const [key, field] of Object.entries(schema.shape as z.ZodRawShape)) {
    const parse = compileParse(field);
    if (!parse) return null;
    fields.push([key, parse]);
  }
  const known = new Set(fields.map(([key]) => key));
  return (v) => {
    if (!isPlainObject(v)) return ASK_ZOD;
    if (strict) for (const key in v) if (!known.has(key)) return ASK_ZOD;
    const out: Record<string, unknown> = {};
    for (const [key, parse] of fields) {
      const parsed = parse(v[key]);
      if (parsed === ASK_ZOD) return ASK_ZOD;
      // zod keeps a key its input had, and one whose parse gave a value (a default).
      if (parsed !== undefined || key in v) out[key] = parsed;
    }
    return out;
  };
}

/**
 * The parse of a schema, or null when it is beyond the compiler. Beyond the checks: defaults
 * and preprocessing (a function of the value alone; one that takes zod's context may add
 * issues, and stays with zod).
 */
export function compileParse(schema: z.ZodTypeAny): Parse | null {
  const check = compileCheck(schema);
  if (check) return (v) => (check(v) ? v : ASK_ZOD);
  if (schema instanceof z.ZodDefault) {
    const inner = compileParse(schema._def.innerType);
    if (!inner) return null;
    const { defaultValue } = schema._def;
    return (v) => inner(v === undefined ? defaultValue() : v);
  }
  if (schema instanceof z.ZodEffects && schema._def.effect.type === 'preprocess') {
    const { transform } = schema._def.effect;
    const inner = compileParse(schema._def.schema);
    if (!inner || transform.length > 1) return null;
    return (v) => {
      const value = (transform as (arg: unknown) => unknown)(v);
      return value instanceof Promise ? ASK_ZOD : inner(value);
    };
  }
  if (schema instanceof z.ZodNullable || schema instanceof z.ZodOptional) {
    const inner = compileParse(schema._def.innerType);
    if (!inner) return null;
    const empty = schema instanceof z.ZodNullable ? null : undefined;
    return (v) => (v === empty ? v : inner(v));
  }
  if (schema instanceof z.ZodObject) return objectParse(schema);
  return null;
}

/**
 * Points a schema's async entry points (what tRPC calls on every input and answer) at the
 * compiled parse, falling back to zod's synchronous parse: these schemas have no async
 * refinements, and zod's async mode awaits a promise per field and per item.
 */
export function parseQuickly(schema: z.ZodTypeAny): void {
  const parse = compileParse(schema) ?? (() => ASK_ZOD);
  schema.parseAsync = async (data, params) => {
    const parsed = parse(data);
    return parsed === ASK_ZOD ? schema.parse(data, params) : parsed;
  };
  schema.safeParseAsync = async (data, params) => {
    const parsed = parse(data);
    return parsed === ASK_ZOD ? schema.safeParse(data, params) : { success: true, data: parsed };
  };
}
