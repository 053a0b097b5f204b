/**
 * What the fuzz tests share: the property every answer must have (below 500, the contract's
 * error shape or tRPC's envelope, nothing leaked) and mutations of a documented JSON value (a
 * place dropped, replaced or given an extra key), so that a case starts near a valid request and
 * reaches past the first check.
 */
import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from '@signal/core';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { RawReply } from './raw-http.js';

// Fingerprints of what must never reach a client: stack frames, file paths, PostgreSQL errors.
const LEAKS = [
  /\bat [\w$.<>]+ \(/,
  /node_modules/,
  /\.(?:ts|js|mjs|cjs):\d+/,
  /syntax error at or near/i,
  /violates .* constraint/i,
  /relation "/i,
  /invalid input syntax/i,
  /duplicate key/i,
  /invalid byte sequence/i,
  /\bSQLSTATE\b/i,
];

/** Percent-encodes the UTF-8 bytes of any string (lone surrogates too, which encodeURIComponent refuses). */
export const pct = (text: string) =>
  [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

const isErrorCode = (code: unknown): code is ErrorCode => ERROR_CODES.includes(code as ErrorCode);

function expectContractBody(body: any, status: number) {
  expect(body).toBeTypeOf('object');
  expect(isErrorCode(body.code), `code ${JSON.stringify(body.code)}`).toBe(true);
  expect(ERROR_STATUS[body.code as ErrorCode]).toBe(status);
  expect(typeof body.message === 'string' && body.message.length > 0).toBe(true);
  expect(Object.keys(body).filter((k) => !['code', 'message', 'issues'].includes(k))).toEqual([]);
  if (body.issues !== undefined) {
    for (const issue of body.issues) {
      expect(Array.isArray(issue.path)).toBe(true);
      expect(typeof issue.message).toBe('string');
    }
  }
}

function expectTrpcError(item: any, status: number | undefined) {
  const data = item?.error?.data;
  expect(isErrorCode(data?.code), `tRPC code ${JSON.stringify(data?.code)}`).toBe(true);
  expect(ERROR_STATUS[data.code as ErrorCode]).toBe(data.httpStatus);
  expect(data.httpStatus).toBeLessThan(500);
  if (status !== undefined) expect(data.httpStatus).toBe(status);
  expect(typeof item.error.message).toBe('string');
}

/** The property every answer must have. */
export function checkReply(request: { method: string; path: string }, reply: RawReply) {
  const where = `${request.method} ${request.path.slice(0, 200)} → ${reply.status} ${reply.text.slice(0, 300)}`;
  expect(reply.status, where).toBeGreaterThanOrEqual(200);
  expect(reply.status, where).toBeLessThan(500);
  if (reply.status < 300 || request.method === 'HEAD') return;
  for (const leak of LEAKS) expect(leak.test(reply.text), `${where} leaks ${leak}`).toBe(false);
  expect(reply.headers['content-type'], where).toMatch(/^application\/json/);
  let body: any;
  try {
    body = JSON.parse(reply.text);
  } catch {
    throw new Error(`not JSON: ${where}`);
  }
  if (request.path.startsWith('/trpc/') && typeof body.code !== 'string') {
    // tRPC's envelope: one error, or a batch of results and errors (207 when mixed).
    if (Array.isArray(body)) {
      for (const item of body) if (item.error) expectTrpcError(item, reply.status === 207 ? undefined : reply.status);
    } else {
      expectTrpcError(body, reply.status);
    }
    return;
  }
  expectContractBody(body, reply.status);
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The places of a JSON value down to `depth` (keys and indexes from the top). */
function placesOf(value: Json, depth = 3, at: (string | number)[] = []): (string | number)[][] {
  const places = [at];
  if (depth === 0 || value === null || typeof value !== 'object') return places;
  const children = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  for (const key of children) places.push(...placesOf((value as any)[key], depth - 1, [...at, key]));
  return places;
}

export type Mutation = { pick: number; action: 'drop' | 'replace' | 'add'; value: Json; key: string };

/** `example` with one place dropped, replaced or given an extra key (a copy; the example is kept). */
export function mutate(example: Json, { pick, action, value, key }: Mutation): Json {
  const copy: Json = structuredClone(example);
  const places = placesOf(copy);
  const place = places[pick % places.length] as (string | number)[];
  if (place.length === 0) return action === 'replace' ? value : copy;
  const parent = place.slice(0, -1).reduce<any>((node, step) => node[step], copy);
  const last = place[place.length - 1] as string | number;
  if (action === 'drop') Array.isArray(parent) ? parent.splice(last as number, 1) : delete parent[last];
  else if (action === 'replace') parent[last] = value;
  else if (parent !== null && typeof parent === 'object' && !Array.isArray(parent)) parent[key] = value;
  return copy;
}

/** Values a field may be given instead of its own: of every JSON type, near and far from valid. */
export const fieldValue: fc.Arbitrary<Json> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>,
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
  fc.integer().map(String),
  fc.constantFrom<Json>(
    '',
    ' ',
    '0',
    '-0',
    '01',
    '1e999',
    '0x10',
    '1.5',
    '123456789012345678901234567890',
    -1,
    0,
    1.5,
    2 ** 53,
    -(2 ** 63),
    1e308,
    5e-324,
    true,
    null,
    [],
    {},
    [null],
    'x'.repeat(5_000),
  ),
);
export const mutation: fc.Arbitrary<Mutation> = fc.record({
  pick: fc.nat(),
  action: fc.constantFrom('drop', 'replace', 'add'),
  value: fieldValue,
  key: fc.oneof(
    fc.constantFrom('__proto__', 'constructor', 'extra', 'id', 'type'),
    fc.string({ unit: 'binary', maxLength: 20 }),
  ),
});

// ---- the operations of the served OpenAPI document ----

export interface DocumentedParameter {
  in: 'path' | 'query' | 'header';
  name: string;
  example?: unknown;
  schema?: { enum?: unknown[]; default?: unknown; example?: unknown };
}

export interface DocumentedOperation {
  method: string;
  template: string;
  parameters: DocumentedParameter[];
  /** The documented request body's example, when the operation takes one. */
  example?: unknown;
  /** The statuses its responses document. */
  statuses: string[];
  /** Its security requirements, as documented (none: no credential). */
  security?: Record<string, unknown>[];
}

/** Every operation of the document, as a client generated from it would see them (the fuzz tests, openapi.statuses.test.ts). */
export function documentedOperations(doc: any): DocumentedOperation[] {
  const operations: DocumentedOperation[] = [];
  for (const [template, item] of Object.entries<any>(doc.paths)) {
    for (const [method, operation] of Object.entries<any>(item)) {
      if (typeof operation !== 'object' || operation.responses === undefined) continue;
      const json = operation.requestBody?.content?.['application/json'];
      operations.push({
        method: method.toUpperCase(),
        template,
        parameters: [...(item.parameters ?? []), ...(operation.parameters ?? [])],
        ...(json ? { example: json.example ?? {} } : {}),
        statuses: Object.keys(operation.responses),
        ...(operation.security ? { security: operation.security } : {}),
      });
    }
  }
  return operations;
}
