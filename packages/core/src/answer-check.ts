/**
 * Compiled checks of answer schemas: generated code that says "zod would accept this value and
 * give back an equal one" without building a copy. zod 4 compiles objects too, but its parse
 * builds a new object per object it reads (a list page: 21 objects and an array, each request)
 * and runs each check through a generic loop. A compiled check reads the value once and
 * allocates nothing; the API uses it for the answers of its procedures (see
 * apps/api/src/fast-path/answer-checks.ts), where almost every value is valid.
 *
 * It only ever says yes when zod would: a kind of schema it does not know (refinements,
 * transforms, unions, defaults...) compiles to null, and anything unusual (a key outside the
 * shape, keys in another order than the shape's, an object that is not plain, a string whose
 * length zod would count in code points) fails the check, so the caller asks zod, which then
 * answers with its own result or its own issues. The differential test holds the two to the same
 * verdict on every answer schema and on every one-field mutation of a valid answer.
 */
import type { z } from 'zod';

export type AnswerCheck = (value: unknown) => boolean;

/** The parts of a zod 4 definition the compiler reads. */
interface Def {
  type: string;
  coerce?: boolean;
  checks?: { _zod: { def: CheckDef } }[];
  // string formats
  check?: string;
  format?: string;
  pattern?: RegExp;
  // wrappers, arrays, objects
  innerType?: Schema;
  element?: Schema;
  shape?: Record<string, Schema>;
  catchall?: Schema;
  // discriminated unions
  discriminator?: string;
  options?: Schema[];
}

interface CheckDef {
  check: string;
  format?: string;
  value?: unknown;
  inclusive?: boolean;
  minimum?: number;
  maximum?: number;
}

interface Schema {
  _zod: { def: Def; values?: Set<unknown> };
}

/** Formats whose whole check is their pattern (the ones the wire schemas use: timestamps, calendar dates). */
const PATTERN_FORMATS = new Set(['datetime', 'date']);

/** zod's ranges of its integer formats (`.int()` is safeint). */
const INTEGER_RANGES: Record<string, [number, number]> = {
  safeint: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  int32: [-2147483648, 2147483647],
  uint32: [0, 4294967295],
};

/** The same language without capture groups: testing it then fills in no match data. */
function withoutCaptures(pattern: RegExp): RegExp {
  // Safe only when no "(" is escaped or inside a character class; zod's own patterns have none.
  if (/\\\(|\[[^\]]*\(/.test(pattern.source) || pattern.global || pattern.sticky) return pattern;
  return new RegExp(pattern.source.replace(/\((?!\?)/g, '(?:'), pattern.flags);
}

/** A plain object or one without a prototype, as the answers' mappers build them. */
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

function emitStringChecks(def: Def, v: string, e: Emitter): string | null {
  let code = `if (typeof ${v} !== 'string') ${FAIL}`;
  if (def.check === 'string_format') {
    if (!def.format || !PATTERN_FORMATS.has(def.format) || !(def.pattern instanceof RegExp)) return null;
    code += `if (!${e.ref(withoutCaptures(def.pattern))}.test(${v})) ${FAIL}`;
  } else if (def.check !== undefined) return null;
  for (const { _zod } of def.checks ?? []) {
    const check = _zod.def;
    // Code units: never fewer code points than that, so within the maximum zod agrees.
    if (check.check === 'max_length') code += `if (${v}.length > ${e.ref(check.maximum)}) ${FAIL}`;
    // zod counts code points near the minimum; a minimum of 1 is "not empty" in either count.
    else if (check.check === 'min_length' && (check.minimum ?? 2) <= 1)
      code += `if (${v}.length < ${e.ref(check.minimum)}) ${FAIL}`;
    else return null;
  }
  return code;
}

function emitNumberChecks(def: Def, v: string, e: Emitter): string | null {
  // zod refuses NaN and the infinities as "expected number".
  let code = `if (typeof ${v} !== 'number' || !Number.isFinite(${v})) ${FAIL}`;
  for (const { _zod } of def.checks ?? []) {
    const check = _zod.def;
    if (check.check === 'number_format') {
      const range = INTEGER_RANGES[check.format ?? ''];
      if (!range) return null;
      code += `if (!Number.isInteger(${v}) || ${v} < ${range[0]} || ${v} > ${range[1]}) ${FAIL}`;
    } else if ((check.check === 'greater_than' || check.check === 'less_than') && typeof check.value === 'number') {
      const operator = `${check.check === 'greater_than' ? '>' : '<'}${check.inclusive ? '=' : ''}`;
      code += `if (!(${v} ${operator} ${e.ref(check.value)})) ${FAIL}`;
    } else return null;
  }
  return code;
}

function emitObjectChecks(def: Def, v: string, e: Emitter): string | null {
  // A catchall other than never (loose objects) keeps extra keys: zod decides. The default
  // (strip) drops them, strict refuses them: either way a key outside the shape fails here.
  if (def.catchall && def.catchall._zod.def.type !== 'never') return null;
  const shape = def.shape ?? {};
  const keys = Object.keys(shape);
  // A shape key "__proto__" would read the prototype.
  if (keys.includes('__proto__')) return null;
  let code = `if (!${e.ref(isPlainObject)}(${v})) ${FAIL}`;
  for (const key of keys) {
    const field = e.name();
    const inner = emitCheck(shape[key] as Schema, field, e);
    if (inner === null) return null;
    code += `{ const ${field} = ${v}[${JSON.stringify(key)}]; ${inner} }`;
  }
  if (keys.length === 0) return `${code} for (const key in ${v}) ${FAIL}`;
  // The keys in the shape's order, as zod's copy has them: then the JSON written from the value
  // is byte for byte the JSON of zod's answer.
  const [last, at, count] = [e.name(), e.name(), e.name()];
  const cases = keys.map((key, index) => `case ${JSON.stringify(key)}: ${at} = ${index}; break;`).join(' ');
  // Fewer keys listed than the shape has: absent optional fields, or a field zod reads but JSON
  // would not write (not enumerable). The latter goes to zod.
  const hidden = `if (${count} !== ${keys.length} && ${e.ref(hasHiddenField)}(${v}, ${e.ref(keys)})) ${FAIL}`;
  return `${code} let ${last} = -1, ${count} = 0; for (const key in ${v}) { let ${at}; switch (key) { ${cases} default: ${FAIL} } if (${at} <= ${last}) ${FAIL} ${last} = ${at}; ${count}++; } ${hidden}`;
}

/**
 * A discriminated union of objects (an event, by `type`): the option its tag names, checked as
 * that object. Any other union (no discriminator, a tag that is not a string literal) → null.
 */
function emitDiscriminatedChecks(def: Def, v: string, e: Emitter): string | null {
  if (!def.discriminator || !def.options) return null;
  let cases = '';
  for (const option of def.options) {
    const tag = option._zod.def.shape?.[def.discriminator];
    const values = tag?._zod.def.type === 'literal' ? tag._zod.values : undefined;
    if (option._zod.def.type !== 'object' || !values) return null;
    const inner = emitCheck(option, v, e);
    if (inner === null) return null;
    for (const value of values) {
      if (typeof value !== 'string') return null;
      cases += `case ${JSON.stringify(value)}: `;
    }
    cases += `{ ${inner} break; } `;
  }
  return `if (!${e.ref(isPlainObject)}(${v})) ${FAIL} switch (${v}[${JSON.stringify(def.discriminator)}]) { ${cases}default: ${FAIL} }`;
}

/** True when one of `keys` is on `value` (or its prototype) without being an enumerable own key. */
function hasHiddenField(value: object, keys: string[]): boolean {
  return keys.some((key) => key in value && !Object.prototype.propertyIsEnumerable.call(value, key));
}

/**
 * Statements that return false unless the value in variable `v` passes, or null for a schema
 * beyond the compiler. Generated code runs straight through a page's fields with no closure
 * call per field (a closure per field made every call site megamorphic).
 */
function emitCheck(schema: Schema, v: string, e: Emitter): string | null {
  const def = schema._zod.def;
  if (def.coerce) return null;
  switch (def.type) {
    case 'string':
      return emitStringChecks(def, v, e);
    case 'number':
      return emitNumberChecks(def, v, e);
    case 'boolean':
      return def.checks?.length ? null : `if (typeof ${v} !== 'boolean') ${FAIL}`;
    case 'literal':
    case 'enum': {
      const values = schema._zod.values;
      if (!values || def.checks?.length) return null;
      return `if (!${e.ref(values)}.has(${v})) ${FAIL}`;
    }
    case 'nullable':
    case 'optional': {
      const inner = emitCheck(def.innerType as Schema, v, e);
      if (inner === null || def.checks?.length) return null;
      return `if (${v} !== ${def.type === 'nullable' ? 'null' : 'undefined'}) { ${inner} }`;
    }
    case 'array': {
      if (def.checks?.length) return null;
      const [i, item] = [e.name(), e.name()];
      const inner = emitCheck(def.element as Schema, item, e);
      if (inner === null) return null;
      // An index loop: a hole is an undefined item to zod, not one to skip.
      return `if (!Array.isArray(${v})) ${FAIL} for (let ${i} = 0; ${i} < ${v}.length; ${i}++) { const ${item} = ${v}[${i}]; ${inner} }`;
    }
    case 'object':
      return def.checks?.length ? null : emitObjectChecks(def, v, e);
    case 'union':
      return def.checks?.length ? null : emitDiscriminatedChecks(def, v, e);
    default:
      return null;
  }
}

/**
 * The compiled check of a schema, or null when the schema is beyond the compiler (zod then
 * decides everything) or code cannot be generated (a runtime that forbids `new Function`).
 */
export function compileAnswerCheck(schema: z.ZodType): AnswerCheck | null {
  const emitter = new Emitter();
  const body = emitCheck(schema as unknown as Schema, 'v0', emitter);
  if (body === null) return null;
  try {
    return new Function('r', `return function check(v0) { ${body} return true; };`)(emitter.refs) as AnswerCheck;
  } catch {
    return null;
  }
}
