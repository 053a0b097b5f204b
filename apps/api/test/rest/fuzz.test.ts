/**
 * Property-based fuzzing of the whole HTTP surface of a started server (fast-check): random
 * methods, paths near and far from real routes, query strings, JSON and non-JSON bodies of
 * every type and depth, unicode, huge numbers, __proto__/constructor keys and odd headers.
 * Property: every answer is below 500; every non-2xx is the contract's error shape (or tRPC's
 * error envelope on /trpc) with a code whose status matches; no stack or SQL in any body; and
 * the server is still healthy afterwards. Cases that once broke something are kept in
 * fuzz.corpus.json and run every time. Then the same property, plus "only statuses the operation
 * documents", over requests built from each operation of the served OpenAPI document (its
 * parameters, its example body mutated, every kind of credential). FUZZ_RUNS sets the number of
 * cases of each (default 500).
 */
import { readFileSync } from 'node:fs';
import { SCOPES } from '@signal/core';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '../../src/index.js';
import {
  checkReply,
  type DocumentedOperation,
  type DocumentedParameter,
  documentedOperations,
  type Json,
  mutate,
  mutation,
  pct,
} from '../fuzz-support.js';
import { call, createServiceKey, evmWallet, signIn, useApi } from '../harness.js';
import { type HttpCall, httpCall, rawHttp } from '../raw-http.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 500);

interface CorpusEntry {
  name: string;
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Raw bytes for requests node:http would refuse to send. */
  raw?: string;
  /** Close our side after the raw bytes (a client that sends no more). */
  halfClose?: boolean;
}
const corpus: CorpusEntry[] = JSON.parse(readFileSync(new URL('./fuzz.corpus.json', import.meta.url), 'utf8'));

// ---- arbitraries ----

const ascii = (min = 0x20, max = 0x7e) => fc.integer({ min, max }).map((c) => String.fromCharCode(c));
/** Anything node:http will put in a header value: visible ASCII, tab, and obs-text. */
const headerText = fc.oneof(
  fc.string({ unit: ascii(), maxLength: 60 }),
  fc.string({ unit: fc.oneof(ascii(), ascii(0x80, 0xff), fc.constant('\t')), maxLength: 30 }),
);
const unicode = fc.string({ unit: 'binary', maxLength: 40 });
const hugeNumbers = fc.constantFrom(
  '1e999',
  '-1e999',
  '123456789012345678901234567890',
  '9007199254740993',
  '-0',
  '0.0000000000000000000001',
  '1e-400',
  'NaN',
  'Infinity',
);
const numberish = fc.oneof(
  fc.integer().map(String),
  fc.double().map(String),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
  hugeNumbers,
  fc.constantFrom('0', '1', '20', '100', '101', '0x10', '1e1', '1.5', ' 1', '1 ', '+1', '01', ''),
);
const walletish = fc.oneof(
  fc.constant(evmWallet().address),
  fc.constant('8qbHbw2BbbTHBW1sbeqakYXVKRQM8Ne7pLK7m6CVfeR'),
  fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), maxLength: 42 }).map((h) => `0x${h}`),
  unicode,
  fc.constantFrom('0x', '0X52908400098527886E0F7030069857D2E4169EE7', '\u0000', '%00', '1'.repeat(44)),
);
const anyValue = fc.oneof(numberish, walletish, unicode, headerText, fc.constantFrom('true', 'null', '[]', '{}'));

/**
 * Every query and mutation of the router, and names near them. Not the subscriptions: one that
 * a credential here may open streams until the client leaves (their bounds: signals.live tests).
 */
const procedures = fc.constantFrom(
  ...Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>)
    .filter(([, procedure]) => procedure._def.type !== 'subscription')
    .map(([name]) => name),
  'nope',
  '__proto__',
  'constructor',
  'auth',
  'auth.nonce.x',
  '',
);
const segment = fc.oneof(
  numberish.map(pct),
  unicode.map(pct),
  fc.constantFrom(
    '..',
    '.',
    '%2e%2e',
    '%',
    '%zz',
    '%E0%A4%A',
    '%C0%AF',
    '%ED%A0%80',
    '%00',
    '%FF',
    '__proto__',
    'constructor',
    '',
  ),
  fc.string({ unit: ascii(0x21, 0x7e), maxLength: 12 }).filter((s) => !s.includes('?') && !s.includes('#')),
);
const knownPath = fc.oneof(
  fc.constantFrom(
    '/auth/nonce',
    '/auth/verify',
    '/me',
    '/me/following',
    '/providers',
    '/health',
    '/ready',
    '/openapi.json',
    '/.well-known/jwks.json',
    '/docs',
    '/',
  ),
  segment.map((id) => `/providers/${id}`),
  segment.map((id) => `/providers/${id}/stats`),
  segment.map((id) => `/providers/${id}/follow`),
  fc.constantFrom('1', '2', '3', '999999', '9007199254740991').map((id) => `/providers/${id}/follow`),
  fc.array(procedures, { minLength: 1, maxLength: 4 }).map((names) => `/trpc/${names.join(',')}`),
  segment.map((seed) => `/avatars/${seed}.svg`),
);
const path = fc.oneof(
  { weight: 4, arbitrary: knownPath },
  { weight: 1, arbitrary: fc.array(segment, { maxLength: 6 }).map((parts) => `/${parts.join('/')}`) },
);

const queryKey = fc.oneof(
  fc.constantFrom(
    'wallet',
    'page',
    'limit',
    'sortBy',
    'order',
    'id',
    'input',
    'batch',
    '__proto__',
    'constructor',
    'prototype',
    '__proto__[polluted]',
    'a[b][c]',
    'toString',
    'hasOwnProperty',
  ),
  unicode,
);
const jsonText = fc.jsonValue({ maxDepth: 5 }).map((v) => JSON.stringify(v));
const inputParam = fc.oneof(
  jsonText,
  fc.record({ wallet: walletish, id: numberish, page: numberish, limit: numberish }).map((v) => JSON.stringify(v)),
  fc.dictionary(fc.constantFrom('0', '1', '2', '__proto__'), jsonText).map((v) => JSON.stringify(v)),
  unicode,
);
const queryValue = fc.oneof(
  anyValue,
  inputParam,
  fc.constantFrom('followerCount', 'createdAt', 'name', 'id', 'asc', 'desc', 'DESC', '1'),
);
const query = fc.oneof(
  fc.constant(''),
  fc
    .array(fc.tuple(queryKey, queryValue, fc.boolean()), { maxLength: 6 })
    .map(
      (pairs) =>
        `?${pairs.map(([k, v, raw]) => (raw ? `${k}=${v}`.replace(/[^\x21-\xff]/g, (c) => pct(c)) : `${pct(k)}=${pct(v)}`)).join('&')}`,
    ),
);

/** Objects built from JSON text so that "__proto__" is an own key, as JSON.parse makes it. */
const protoBodies = fc.constantFrom(
  '{"__proto__":{"polluted":true},"wallet":"0x52908400098527886E0F7030069857D2E4169EE7"}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"wallet":{"__proto__":[]},"nonce":{"toString":1},"signature":{"valueOf":2}}',
  '{"__proto__":null}',
  '[{"__proto__":{"x":1}}]',
);
const deep = fc
  .integer({ min: 10, max: 8_000 })
  .chain((n) => fc.constantFrom('['.repeat(n) + ']'.repeat(n), `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`, '['.repeat(n)));
const body = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  { weight: 3, arbitrary: jsonText },
  {
    weight: 3,
    arbitrary: fc
      .record(
        {
          wallet: fc.oneof(walletish, fc.jsonValue()),
          nonce: fc.oneof(unicode, fc.jsonValue()),
          signature: fc.oneof(unicode, fc.jsonValue()),
        },
        { requiredKeys: [] },
      )
      .map((v) => JSON.stringify(v)),
  },
  { weight: 1, arbitrary: protoBodies },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: hugeNumbers },
  { weight: 1, arbitrary: unicode },
  { weight: 1, arbitrary: fc.integer({ min: 16_000, max: 20_000 }).map((n) => `{"pad":"${'x'.repeat(n)}"}`) },
);
const contentType = fc.constantFrom(
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/vnd.api+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/jsonx',
  'json',
);
const method = fc.constantFrom(
  'GET',
  'GET',
  'GET',
  'POST',
  'POST',
  'DELETE',
  'PUT',
  'PATCH',
  'HEAD',
  'OPTIONS',
  'TRACE',
  'PROPFIND',
  'SEARCH',
);

// ---- the run ----

describe('fuzzing the HTTP surface', () => {
  const api = useApi('postgres', {
    env: {
      SEED_PROVIDERS: '5',
      AUTH_RATE_LIMIT_PER_MINUTE: '100000',
      TRUST_PROXY: 'true',
      CORS_ORIGINS: 'https://app.example',
    },
  });
  let token: string;

  beforeAll(async () => {
    ({ token } = await signIn(api, evmWallet()));
  });

  const request = fc
    .record({
      method,
      path,
      query,
      body,
      contentType,
      authorization: fc.oneof(
        fc.constant(undefined),
        fc.constant('valid'),
        headerText.map((t) => `Bearer ${t}`),
        fc.constantFrom('Bearer', 'Basic eDp5', 'Bearer a.b.c', `Bearer ${'a'.repeat(6_000)}`),
      ),
      extra: fc.dictionary(
        fc.constantFrom(
          'x-request-id',
          'x-forwarded-for',
          'origin',
          'accept',
          'accept-encoding',
          'content-encoding',
          'access-control-request-method',
          'expect',
          'if-none-match',
          'range',
          'cookie',
          'x-http-method-override',
          'trpc-accept',
        ),
        fc.oneof(
          headerText,
          fc.constantFrom('https://app.example', '100-continue', 'gzip', '1.2.3.4, 5.6.7.8', '::1', 'bytes=0-1'),
        ),
        { maxKeys: 4 },
      ),
    })
    .map((r): HttpCall => {
      const headers: Record<string, string> = { ...r.extra };
      if (r.contentType) headers['content-type'] = r.contentType;
      if (r.authorization) headers.authorization = r.authorization === 'valid' ? `Bearer ${token}` : r.authorization;
      // GET and HEAD with a body are legal HTTP, and sent here too.
      return { method: r.method, path: r.path + r.query, headers, ...(r.body === undefined ? {} : { body: r.body }) };
    });

  it(`${RUNS} random requests: never a 5xx, always the contract's error shape, nothing leaked`, async () => {
    let cases = 0;
    await fc.assert(
      fc.asyncProperty(request, async (req) => {
        cases++;
        checkReply(req, await httpCall(api.url, req));
      }),
      { numRuns: RUNS, interruptAfterTimeLimit: 60_000 },
    );
    console.log(`fuzz: ${cases} random requests`);
    expect((await call(api, 'GET', '/health')).status).toBe(200);
    expect((await call(api, 'GET', '/ready')).status).toBe(200);
  }, 90_000);

  it.each(corpus.map((entry) => [entry.name, entry] as const))('corpus: %s', async (_name, entry) => {
    if (entry.raw !== undefined) {
      const reply = await rawHttp(api.url, entry.raw, { halfClose: entry.halfClose ?? false });
      checkReply({ method: 'RAW', path: '/' }, reply);
    } else {
      const req = { method: entry.method ?? 'GET', path: entry.path ?? '/', headers: entry.headers ?? {} };
      if (req.headers.authorization === 'valid') req.headers.authorization = `Bearer ${token}`;
      checkReply(req, await httpCall(api.url, { ...req, ...(entry.body === undefined ? {} : { body: entry.body }) }));
    }
    expect((await call(api, 'GET', '/health')).status).toBe(200);
  });

  it('the server is healthy after all of it, and its data intact', async () => {
    expect((await call(api, 'GET', '/ready')).status).toBe(200);
    const page = await call(api, 'GET', '/providers?limit=100');
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(5);
    // No prototype was polluted in this process (the server runs in it).
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const rows = await api.db.db.selectFrom('follows').select(['provider_id']).execute();
    for (const provider of page.body.items) {
      expect(provider.followerCount).toBe(rows.filter((r) => r.provider_id === provider.id).length);
    }
  });
});

// ---- every documented operation, from the served OpenAPI document ----

describe('fuzzing every documented operation', () => {
  const adminKey = `admin-${'f'.repeat(40)}`;
  const api = useApi('postgres', {
    env: {
      SEED_PROVIDERS: '5',
      SEED_SIGNAL_PROVIDERS: '3',
      ADMIN_KEY: adminKey,
      SERVICE_KEY_RATE_LIMIT_PER_MINUTE: '0',
      SIGNAL_RATE_LIMIT_PER_MINUTE: '0',
    },
  });
  const known = { operations: [] as DocumentedOperation[], providers: [] as string[], signals: [] as string[] };
  /** Every kind of credential: none, a live user's, a signed-out session's, the admin key, a key with every scope, an unknown key, garbage. */
  const tokens = {
    user: '',
    revoked: '',
    admin: adminKey,
    key: '',
    unknownKey: `sgk_${'A'.repeat(43)}`,
    garbage: 'a.b.c',
  };
  const signInUser = async () => {
    ({ token: tokens.user } = await signIn(api, evmWallet()));
  };

  beforeAll(async () => {
    known.operations = documentedOperations((await call(api, 'GET', '/openapi.json')).body);
    await signInUser();
    tokens.revoked = tokens.user;
    expect((await call(api, 'POST', '/auth/logout', { token: tokens.revoked })).status).toBe(200);
    await signInUser();
    tokens.key = await createServiceKey(api, adminKey, 'fuzz', [...SCOPES]);
    const page = await call(api, 'GET', '/providers?limit=100');
    known.providers = page.body.items.map((provider: { id: number }) => String(provider.id));
    for (const id of known.providers) {
      const signals = await call(api, 'GET', `/providers/${id}/signals`);
      known.signals.push(...(signals.body.items ?? []).map((signal: { id: string }) => signal.id));
    }
  });

  /** A value for a path parameter: real ones (known providers and signals, tile numbers) and anything else. */
  const pathValue = (name: string): fc.Arbitrary<string> => {
    const near: Record<string, () => fc.Arbitrary<string>> = {
      id: () => fc.constantFrom(...known.providers, '999999'),
      signalId: () => fc.constantFrom(...(known.signals.length ? known.signals : ['s_none'])),
      wallet: () => walletish.map(pct),
      L: () => fc.constantFrom('0', '1', '2', '63', '64', '00', '-1'),
      N: () => fc.constantFrom('000', '001', 'x001/234', 'x000/000', '0', '1', '256', 'x999/x999/999'),
      W: () => fc.constantFrom('1', '2', '255', '256', '0', '01', '1000'),
    };
    return fc.oneof({ weight: 3, arbitrary: (near[name] ?? (() => segment))() }, { weight: 2, arbitrary: segment });
  };

  /** A query parameter's value: its documented ones first, then anything. */
  const queryValueFor = (parameter: DocumentedParameter): fc.Arbitrary<string> => {
    const documented = [
      parameter.example,
      parameter.schema?.example,
      parameter.schema?.default,
      ...(parameter.schema?.enum ?? []),
    ].filter((value) => value !== undefined);
    return fc.oneof(
      { weight: documented.length ? 3 : 0, arbitrary: fc.constantFrom(...documented.map(String), '') },
      { weight: 2, arbitrary: queryValue },
    );
  };

  const documentedRequest = () =>
    fc.constantFrom(...known.operations).chain((operation) => {
      const byPlace = (place: string) => operation.parameters.filter((parameter) => parameter.in === place);
      const path = fc
        .tuple(...byPlace('path').map((parameter) => pathValue(parameter.name).map((value) => [parameter.name, value])))
        .map((values) =>
          values.reduce((text, [name, value]) => text.replace(`{${name}}`, value as string), operation.template),
        );
      const query = fc
        .subarray(byPlace('query'))
        .chain((parameters) => fc.tuple(...parameters.map((p) => queryValueFor(p).map((value) => [p.name, value]))))
        .chain((pairs) => fc.tuple(fc.constant(pairs), fc.option(fc.tuple(queryKey, queryValue), { freq: 4 })))
        .map(([pairs, extra]) => [...pairs, ...(extra ? [extra] : [])])
        .map((pairs) =>
          pairs.length ? `?${pairs.map(([k, v]) => `${pct(k as string)}=${pct(v as string)}`).join('&')}` : '',
        );
      const requestBody =
        operation.example === undefined
          ? fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: body })
          : fc.oneof(
              { weight: 1, arbitrary: fc.constant(JSON.stringify(operation.example)) },
              {
                weight: 6,
                arbitrary: fc
                  .array(mutation, { minLength: 1, maxLength: 3 })
                  .map((steps) => JSON.stringify(steps.reduce(mutate, operation.example as Json))),
              },
              { weight: 1, arbitrary: body },
            );
      return fc.record({
        operation: fc.constant(operation),
        path,
        query,
        body: requestBody,
        credential: fc.constantFrom<keyof typeof tokens | undefined>(
          undefined,
          undefined,
          'user',
          'user',
          'admin',
          'key',
          'key',
          'revoked',
          'unknownKey',
          'garbage',
        ),
        idempotencyKey: fc.option(fc.oneof(headerText, fc.uuid()), { freq: 3 }),
      });
    });

  it(`every documented operation, ${RUNS} requests built from its parameters and its example: never a 5xx, only documented statuses`, async () => {
    expect(known.operations.length).toBeGreaterThanOrEqual(50);
    expect(known.signals.length).toBeGreaterThan(0);
    const reached = new Map<string, Set<number>>();
    let cases = 0;
    await fc.assert(
      fc.asyncProperty(documentedRequest(), async (r) => {
        cases++;
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (r.credential) headers.authorization = `Bearer ${tokens[r.credential]}`;
        if (r.idempotencyKey !== null) headers['idempotency-key'] = r.idempotencyKey;
        const req = {
          method: r.operation.method,
          path: r.path + r.query,
          headers,
          ...(r.body === undefined ? {} : { body: r.body }),
        };
        const reply = await httpCall(api.url, req);
        checkReply(req, reply);
        const name = `${r.operation.method} ${r.operation.template}`;
        expect(r.operation.statuses, `${name}: ${reply.status} ${reply.text.slice(0, 300)}`).toContain(
          String(reply.status),
        );
        reached.set(name, (reached.get(name) ?? new Set()).add(reply.status));
        // The fuzz signed its own user out (a logout, a session revoked): a new one for the next cases.
        if (r.credential === 'user' && reply.status === 200 && /^\/(auth\/logout|me\/sessions\/)/.test(r.path)) {
          await signInUser();
        }
      }),
      { numRuns: RUNS, interruptAfterTimeLimit: 90_000 },
    );
    console.log(
      `fuzz: ${cases} documented requests; ${reached.size} of ${known.operations.length} operations reached, answered 2xx: ${
        [...reached.values()].filter((statuses) => [...statuses].some((status) => status < 300)).length
      }`,
    );
    expect(reached.size).toBeGreaterThanOrEqual(known.operations.length * 0.9);
    expect((await call(api, 'GET', '/ready')).status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Whatever the writes among them did, every count the catalogue answers is still exact.
    const page = await call(api, 'GET', '/providers?limit=100&sortBy=id');
    const rows = await api.db.db.selectFrom('follows').select(['provider_id']).execute();
    for (const provider of page.body.items) {
      expect(provider.followerCount).toBe(rows.filter((row) => row.provider_id === provider.id).length);
    }
  }, 120_000);
});
