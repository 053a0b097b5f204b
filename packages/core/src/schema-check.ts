/**
 * Fast paths compiled from a zod schema, for the hot path where almost every value is valid:
 * the server's answers and the requests' inputs. zod 3 rebuilds each object it parses (and its
 * datetime RegExp on every check): a page of 20 providers costs ≈100 µs of CPU and 50 KB of
 * garbage, and even the list's four query parameters ≈4 µs and 5.6 KB. A compiled check is
 * generated code that reads the value once and allocates nothing (≈1 µs a page); a compiled
 * parse (for inputs, whose defaults and preprocessing change the value) allocates only the
 * object it returns.
 *
 * Both only ever say "valid, and zod would return an equal value": a kind of schema they do
 * not know (refinements, transforms, unions...) compiles to null, and anything unusual (a key
 * outside the shape, an object that is not plain) fails, so the caller falls back to zod's own
 * parse, which then answers with zod's result or zod's issues. The differential tests hold the
 * two to the same verdict.
 */
import { z } from 'zod';

export type Check = (value: unknown) => boolean;

/** The same language without capture groups: testing it then fills in no match data. */
function withoutCaptures(pattern: RegExp): RegExp {
  // Safe only when no "(" is escaped or inside a character class; zod's own patterns have none.
  if (/\\\(|\[[^\]]*\(/.test(pattern.source)) return pattern;
  return new RegExp(pattern.source.replace(/\((?!\?)/g, '(?:'), pattern.flags);
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

/** What generated code refers to: constants (patterns, sets, bounds) and fresh variable names. */
class Emitter {
  readonly refs: unknown[] = [];
  private names = 0;
  ref(value: unknown): string {
    this.refs.push(value);
    return `r[${this.refs.length - 1}]`;
  }
  name(): string {
    this.names += 1;
    return `v${this.names}`;
  }
}

const FAIL = 'return false;';

/**
 * Statements that return false unless the value in variable `v` passes, or null for a schema
 * beyond the compiler. Generated code runs straight through a page's fields with no closure
 * call per field (a closure per field made every call site megamorphic: 4 µs a page).
 */
function emitCheck(schema: z.ZodTypeAny, v: string, e: Emitter): string | null {
  if (schema instanceof z.ZodString) {
    const def = schema._def;
    if (def.coerce) return null;
    let code = `if (typeof ${v} !== 'string') ${FAIL}`;
    for (const check of def.checks) {
      if (check.kind === 'datetime')
        code += `if (!${e.ref(withoutCaptures(z.datetimeRegex(check)))}.test(${v})) ${FAIL}`;
      else if (check.kind === 'min') code += `if (${v}.length < ${e.ref(check.value)}) ${FAIL}`;
      else if (check.kind === 'max') code += `if (${v}.length > ${e.ref(check.value)}) ${FAIL}`;
      else return null;
    }
    return code;
  }
  if (schema instanceof z.ZodNumber) {
    const def = schema._def;
    if (def.coerce) return null;
    // zod refuses NaN as "expected number, received nan".
    let code = `if (typeof ${v} !== 'number' || ${v} !== ${v}) ${FAIL}`;
    for (const check of def.checks) {
      if (check.kind === 'int') code += `if (!Number.isInteger(${v})) ${FAIL}`;
      else if (check.kind === 'finite') code += `if (!Number.isFinite(${v})) ${FAIL}`;
      else if (check.kind === 'min')
        code += `if (!(${v} ${check.inclusive ? '>=' : '>'} ${e.ref(check.value)})) ${FAIL}`;
      else if (check.kind === 'max')
        code += `if (!(${v} ${check.inclusive ? '<=' : '<'} ${e.ref(check.value)})) ${FAIL}`;
      else return null;
    }
    return code;
  }
  if (schema instanceof z.ZodBoolean) return schema._def.coerce ? null : `if (typeof ${v} !== 'boolean') ${FAIL}`;
  if (schema instanceof z.ZodLiteral) return `if (${v} !== ${e.ref(schema._def.value)}) ${FAIL}`;
  if (schema instanceof z.ZodEnum) {
    return `if (typeof ${v} !== 'string' || !${e.ref(new Set(schema._def.values))}.has(${v})) ${FAIL}`;
  }
  if (schema instanceof z.ZodNullable || schema instanceof z.ZodOptional) {
    const inner = emitCheck(schema._def.innerType, v, e);
    if (inner === null) return null;
    return `if (${v} !== ${schema instanceof z.ZodNullable ? 'null' : 'undefined'}) { ${inner} }`;
  }
  if (schema instanceof z.ZodArray) {
    const def = schema._def;
    if (def.minLength || def.maxLength || def.exactLength) return null;
    const [i, item] = [e.name(), e.name()];
    const inner = emitCheck(def.type, item, e);
    if (inner === null) return null;
    // An index loop: a hole is an undefined item to zod, not one to skip.
    return `if (!Array.isArray(${v})) ${FAIL} for (let ${i} = 0; ${i} < ${v}.length; ${i}++) { const ${item} = ${v}[${i}]; ${inner} }`;
  }
  if (schema instanceof z.ZodObject) {
    // passthrough: zod copies the extra keys (not an own "__proto__"); a shape key "__proto__"
    // would read the prototype. Both stay with zod.
    if (!(schema._def.catchall instanceof z.ZodNever) || schema._def.unknownKeys === 'passthrough') return null;
    const keys = Object.keys(schema.shape as z.ZodRawShape);
    if (keys.includes('__proto__')) return null;
    let code = `if (!${e.ref(isPlainObject)}(${v})) ${FAIL}`;
    for (const key of keys) {
      const field = e.name();
      const inner = emitCheck((schema.shape as z.ZodRawShape)[key] as z.ZodTypeAny, field, e);
      if (inner === null) return null;
      code += `{ const ${field} = ${v}[${JSON.stringify(key)}]; ${inner} }`;
    }
    // zod would drop (or, if strict, refuse) a key outside the shape: zod decides then.
    if (keys.length === 0) return `${code} for (const key in ${v}) ${FAIL}`;
    const cases = keys.map((key) => `case ${JSON.stringify(key)}:`).join(' ');
    return `${code} for (const key in ${v}) switch (key) { ${cases} break; default: ${FAIL} }`;
  }
  return null;
}

/**
 * The check of a schema, or null when this schema is beyond the compiler (zod then decides),
 * or where code cannot be generated (a Content-Security-Policy without 'unsafe-eval').
 */
export function compileCheck(schema: z.ZodTypeAny): Check | null {
  const emitter = new Emitter();
  const body = emitCheck(schema, 'v0', emitter);
  if (body === null) return null;
  try {
    return new Function('r', `return function check(v0) { ${body} return true; };`)(emitter.refs) as Check;
  } catch {
    return null;
  }
}

/** What a compiled parse returns for "not valid, or not sure": zod is asked then. */
export const ASK_ZOD: unique symbol = Symbol('ask zod');

/** zod's output for a value it accepts, or ASK_ZOD. */
export type Parse = (value: unknown) => unknown;

/** zod's object parse with the default `strip`: the shape's keys, each parsed, nothing else. */
function objectParse(schema: z.AnyZodObject): Parse | null {
  if (!(schema._def.catchall instanceof z.ZodNever) || schema._def.unknownKeys === 'passthrough') return null;
  if (Object.hasOwn(schema.shape, '__proto__')) return null;
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
  // A preprocess of the value alone (`(value) => …`); one that declares zod's context may add
  // issues, and stays with zod.
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
