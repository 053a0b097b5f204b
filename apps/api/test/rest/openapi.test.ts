/**
 * /openapi.json: a valid OpenAPI 3 document (checked by a maintained validator, and clean under
 * Spectral's spectral:oas ruleset) that documents every operation fully (summary, description,
 * tags, parameters, named schemas, examples, every error code with an example, bearer
 * security), and whose claims hold against the running server.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import { compileErrors, validate } from '@readme/openapi-parser';
import * as core from '@signal/core';
import {
  ERROR_STATUS,
  ErrorBodySchema,
  type ErrorCode,
  HealthResponseSchema,
  JwksSchema,
  parseSignInMessage,
  ReadyResponseSchema,
} from '@signal/core';
import * as examples from '@signal/core/examples';
import { verifyWalletSignature } from '@signal/core/verify';
import { parseWallet } from '@signal/core/wallet';
import spectralCore from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import spectralRulesets from '@stoplight/spectral-rulesets';
import type { AnyProcedure } from '@trpc/server';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ZodTypeAny } from 'zod';
import { appRouter } from '../../src/index.js';
import type { Meta } from '../../src/procedures/trpc.js';
import { call, evmWallet, signIn, startApi, type TestApi } from '../harness.js';
import { LOG_FILE_TEMPLATES } from '../log/log-support.js';

type Operation = Record<string, any>;

const SERVICE_PATHS = ['/health', '/ready', '/.well-known/jwks.json'];
/** The log's files: text and bytes, not JSON (openapi.log-files.test.ts checks them against the server). */
const LOG_FILE_PATHS = LOG_FILE_TEMPLATES;
const REF = '#/components/schemas/';
const REPO_ROOT = new URL('../../../../', import.meta.url);
const ADMIN_KEY = 'openapi-test-admin-key-0123456789abcdef';

// Subscriptions (events.stream) are tRPC only: server-sent events have no REST operation.
const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, AnyProcedure>)
  .filter(([, procedure]) => procedure._def.type !== 'subscription')
  .map(([name, procedure]) => {
    const def = procedure._def as unknown as { meta?: Meta; inputs: ZodTypeAny[]; output?: ZodTypeAny };
    const openapi = def.meta?.openapi;
    if (!openapi) throw new Error(`${name} has no openapi meta`);
    return {
      name,
      openapi,
      input: def.inputs[0],
      output: def.output,
      protect: openapi.protect === true,
      maxBodyBytes: def.meta?.maxBodyBytes ?? 16 * 1024,
      scope: def.meta?.scope,
      idempotent: def.meta?.idempotent === true,
      optionalCredential: def.meta?.credential === 'optional',
    };
  });

let api: TestApi;
let doc: any;
let token: string;

function operations(): { path: string; method: string; op: Operation }[] {
  return Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op })),
  );
}

/** The success response: 200, or 201 for an operation that creates. */
function success(op: Operation): any {
  return op.responses[200] ?? op.responses[201];
}

function errorExamples(op: Operation, status: number): Record<string, { value: unknown }> {
  return op.responses[status]?.content?.['application/json']?.examples ?? {};
}

/** A schema with its `$ref` followed (one level: components are never bare references). */
function resolved(schema: any): any {
  return schema?.$ref ? doc.components.schemas[schema.$ref.slice(REF.length)] : schema;
}

/** Every object below `node`, with where it is; examples and defaults (data) left out. */
function* objectsIn(node: unknown, where: string): Generator<[string, unknown]> {
  if (typeof node !== 'object' || node === null) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'example' || key === 'examples' || key === 'default') continue;
    if (typeof value === 'object' && value !== null) {
      yield [`${where}/${key}`, value];
      yield* objectsIn(value, `${where}/${key}`);
    }
  }
}

/** A URL for a path template, with `1` in each parameter. */
function urlOf(path: string): string {
  return path.replace(/\{[^}]+\}/g, '1');
}

beforeAll(async () => {
  api = await startApi('postgres', { env: { SEED_PROVIDERS: '3', ADMIN_KEY } });
  const reply = await call(api, 'GET', '/openapi.json');
  expect(reply.status).toBe(200);
  doc = reply.body;
  token = (await signIn(api, evmWallet())).token;
});
afterAll(() => api?.stop());

// First after start: its POSTs go out on fresh connections (a POST is not retried on a
// keep-alive connection the server closed while the slow validators below ran).
describe('Idempotency-Key', () => {
  it('declares Idempotency-Key as a described header on exactly the POSTs that honour it, as the server does', async () => {
    const named = (p: { method: string; path: string }) => `${p.method.toUpperCase()} ${p.path}`;
    const declared = operations()
      .filter(({ op }) => (op.parameters ?? []).some((p: Operation) => p.name === 'Idempotency-Key'))
      .map(named)
      .sort();
    // The contract's three POSTs, and the same list as the procedures' meta (the one source).
    expect(declared).toEqual(['POST /me/wallets', 'POST /providers', 'POST /providers/{id}/performance']);
    expect(
      procedures
        .filter((p) => p.idempotent)
        .map((p) => named(p.openapi))
        .sort(),
    ).toEqual(declared);
    for (const entry of declared) {
      const [method, path] = entry.split(' ') as [string, string];
      const op = doc.paths[path][method.toLowerCase()];
      const header = op.parameters.find((p: Operation) => p.name === 'Idempotency-Key');
      expect(header, entry).toMatchObject({ in: 'header', required: false });
      expect(header.description, entry).toMatch(/24 h.*IDEMPOTENCY_CONFLICT/s);
      expect(header.schema, entry).toMatchObject({ type: 'string', minLength: 1, maxLength: 255 });
      const pattern = new RegExp(header.schema.pattern);
      for (const good of [header.example, '~'.repeat(255), 'a b']) expect(pattern.test(good), good).toBe(true);
      for (const bad of ['caf\u00e9', 'tab\tkey', 'k'.repeat(256)]) expect(pattern.test(bad), bad).toBe(false);
      expect(Object.keys(errorExamples(op, 409)), entry).toContain('IDEMPOTENCY_CONFLICT');
    }
    // What the document says, the server does: a declared POST replays and refuses another body…
    const created = await call(api, 'POST', '/providers', {
      token: ADMIN_KEY,
      body: { name: 'Idempotent' },
      headers: { 'idempotency-key': 'openapi-1' },
    });
    expect(created.status).toBe(201);
    const replayed = await call(api, 'POST', '/providers', {
      token: ADMIN_KEY,
      body: { name: 'Idempotent' },
      headers: { 'idempotency-key': 'openapi-1' },
    });
    expect(replayed.body).toEqual(created.body);
    expect(
      (
        await call(api, 'POST', '/providers', {
          token: ADMIN_KEY,
          body: { name: 'Other' },
          headers: { 'idempotency-key': 'openapi-1' },
        })
      ).status,
    ).toBe(409);
    // …and a write that does not declare it ignores it: the same key with other bodies runs each.
    for (const name of ['Renamed once', 'Renamed twice']) {
      const patched = await call(api, 'PATCH', `/providers/${created.body.id}`, {
        token: ADMIN_KEY,
        body: { name },
        headers: { 'idempotency-key': 'openapi-2' },
      });
      expect(patched.status).toBe(200);
      expect(patched.body.name).toBe(name);
    }
  });
});

describe('/openapi.json as a document', () => {
  it('is valid OpenAPI 3 for @readme/openapi-parser, without warnings', async () => {
    const result = await validate(structuredClone(doc));
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    expect(result.warnings).toEqual([]);
  });

  it('the validator does reject a broken copy (so the check above means something)', async () => {
    const broken = structuredClone(doc);
    broken.paths['/providers/{id}'].get.parameters = [];
    const result = await validate(broken);
    expect(result.valid).toBe(false);
  });

  it('has every REST procedure and the service endpoints, and nothing else', () => {
    const documented = operations()
      .map(({ path, method }) => `${method.toUpperCase()} ${path}`)
      .sort();
    const expected = [
      ...procedures.map((p) => `${p.openapi.method} ${p.openapi.path}`),
      ...SERVICE_PATHS.map((path) => `GET ${path}`),
      ...LOG_FILE_PATHS.map((path) => `GET ${path}`),
    ].sort();
    expect(documented).toEqual(expected);
  });

  it('has a relative server ("/"), whatever Host the request named', async () => {
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    const url = new URL('/openapi.json', api.url);
    const body = await new Promise<string>((resolve, reject) => {
      request(url, { headers: { host: 'evil.example:8443' } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve(text));
      })
        .on('error', reject)
        .end();
    });
    expect(JSON.parse(body).servers).toEqual(doc.servers);
  });

  it('declares the bearer scheme and the ErrorBody schema from core', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.schemas.ErrorBody.properties.code).toEqual({ $ref: `${REF}ErrorCode` });
    const { type, enum: codes } = doc.components.schemas.ErrorCode;
    expect(type).toBe('string');
    expect([...codes].sort()).toEqual(Object.keys(ERROR_STATUS).sort());
  });

  it("Spectral's spectral:oas ruleset reports nothing: no error, no warning, no hint", async () => {
    const spectral = new spectralCore.Spectral();
    // What a .spectral.yaml of `extends: spectral:oas` runs (its recommended rules).
    spectral.setRuleset({ extends: [[spectralRulesets.oas as never, 'recommended']] });
    const results = await spectral.run(
      new spectralCore.Document(JSON.stringify(doc, null, 2), spectralParsers.Json, '/openapi.json'),
    );
    expect(results.map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`)).toEqual([]);
  });

  it('Spectral does flag a document without contact and licence (so the check above means something)', async () => {
    const spectral = new spectralCore.Spectral();
    spectral.setRuleset({ extends: [[spectralRulesets.oas as never, 'recommended']] });
    const bare = structuredClone(doc);
    delete bare.info.contact;
    delete bare.info.license;
    const results = await spectral.run(
      new spectralCore.Document(JSON.stringify(bare), spectralParsers.Json, '/openapi.json'),
    );
    expect(results.map((r) => r.code)).toContain('info-contact');
  });

  it("names the repository's licence and where to ask in info", () => {
    const sdk = JSON.parse(readFileSync(new URL('packages/sdk/package.json', REPO_ROOT), 'utf8'));
    const licence = readFileSync(new URL('LICENSE', REPO_ROOT), 'utf8');
    expect(licence.split('\n')[0]).toBe(`${sdk.license} License`);
    expect(doc.info.license).toEqual({ name: sdk.license, url: expect.stringMatching(/\/LICENSE$/) });
    expect(doc.info.contact).toEqual({ name: expect.any(String), url: sdk.bugs.url });
  });
});

describe('named schemas', () => {
  const NAMES = [
    'Chain',
    'ConsistencyProof',
    'CreateServiceKeyBody',
    'CreateWebhookBody',
    'CreatedServiceKey',
    'CreatedWebhookEndpoint',
    'DeletedWebhook',
    'DeliveryAttempt',
    'DeliveryPage',
    'ErrorBody',
    'ErrorCode',
    'ErrorIssue',
    'Event',
    'EventPage',
    'FollowResult',
    'FollowedProvider',
    'FollowedProviderPage',
    'Follower',
    'FollowerPage',
    'HealthResponse',
    'InclusionProof',
    'Jwks',
    'LinkWalletBody',
    'LinkedWallet',
    'LinkedWalletList',
    'LogoutBody',
    'LogoutResult',
    'NonceResponse',
    'Performance',
    'PerformanceWindow',
    'Provider',
    'ProviderArchived',
    'ProviderCreateBody',
    'ProviderPage',
    'ProviderStats',
    'ProviderWrite',
    'Publisher',
    'PublisherKey',
    'PublisherKeyList',
    'PublisherKeyRevoked',
    'PublisherList',
    'PublisherRemoved',
    'ReadyResponse',
    'RevokedServiceKey',
    'RevokedSession',
    'Scope',
    'ServiceKey',
    'ServiceKeyPage',
    'Session',
    'SessionPage',
    'SignInFormat',
    'Signal',
    'SignalList',
    'SignalReceipt',
    'SignalStatementAnswer',
    'SignalStatementType',
    'SignalStatementView',
    'TokenResponse',
    'UnfollowResult',
    'UnlinkedWallet',
    'User',
    'VerifyBody',
    'WebhookEndpoint',
    'WebhookList',
    'WebhookTypes',
  ];

  it("are core's wire types, each under the name of its zod schema", () => {
    expect(Object.keys(doc.components.schemas).sort()).toEqual([...NAMES].sort());
    for (const name of NAMES) expect(core, name).toHaveProperty(`${name}Schema`);
  });

  it("every answer and body is a $ref to the component named after its procedure's schema", () => {
    const names = new Map<unknown, string>(
      Object.entries(core).flatMap(([key, value]) => (key.endsWith('Schema') ? [[value, key.slice(0, -6)]] : [])),
    );
    for (const { name, openapi, input, output } of procedures) {
      const op = doc.paths[openapi.path][openapi.method.toLowerCase()];
      expect(success(op).content['application/json'].schema, name).toEqual({
        $ref: `${REF}${names.get(output)}`,
      });
      // With path parameters the body is what is left of the input (PATCH /providers/{id}): no named type.
      const inputParameters = (op.parameters ?? []).filter((p: Operation) => p.in !== 'header');
      if (op.requestBody && inputParameters.length === 0) {
        expect(op.requestBody.content['application/json'].schema, name).toEqual({ $ref: `${REF}${names.get(input)}` });
      }
    }
    const service = { '/health': 'HealthResponse', '/ready': 'ReadyResponse', '/.well-known/jwks.json': 'Jwks' };
    for (const [path, component] of Object.entries(service)) {
      expect(doc.paths[path].get.responses[200].content['application/json'].schema).toEqual({
        $ref: `${REF}${component}`,
      });
    }
  });

  it('nested types refer to their components too: pages to their items, the token answer to User, ErrorBody to ErrorIssue', () => {
    const { schemas } = doc.components;
    expect(schemas.ProviderPage.properties.items.items).toEqual({ $ref: `${REF}Provider` });
    expect(schemas.FollowedProviderPage.properties.items.items).toEqual({ $ref: `${REF}FollowedProvider` });
    expect(schemas.SessionPage.properties.items.items).toEqual({ $ref: `${REF}Session` });
    expect(schemas.TokenResponse.properties.user).toEqual({ $ref: `${REF}User` });
    expect(schemas.User.properties.chain).toEqual({ $ref: `${REF}Chain` });
    expect(schemas.NonceResponse.properties.format).toEqual({ $ref: `${REF}SignInFormat` });
    expect(schemas.ErrorBody.properties.issues.items).toEqual({ $ref: `${REF}ErrorIssue` });
  });

  it('leaves no inline copy of a component anywhere in the document', () => {
    for (const [name, component] of Object.entries(doc.components.schemas)) {
      const elsewhere = [
        ...objectsIn(doc.paths, '#/paths'),
        ...Object.entries(doc.components.schemas).flatMap(([other, value]) =>
          other === name
            ? [...objectsIn(value, `${REF}${other}`)]
            : [[`${REF}${other}`, value], ...objectsIn(value, `${REF}${other}`)],
        ),
      ] as [string, unknown][];
      const copies = elsewhere.filter(([, value]) => isDeepStrictEqual(value, component)).map(([where]) => where);
      expect(copies, name).toEqual([]);
    }
  });

  it('types `following` as the constant of each answer: true after a follow, false after an unfollow', () => {
    const { FollowResult, UnfollowResult } = doc.components.schemas;
    expect(FollowResult.properties.following).toMatchObject({ type: 'boolean', enum: [true] });
    expect(UnfollowResult.properties.following).toMatchObject({ type: 'boolean', enum: [false] });
  });

  it('types every enum, the per-status error codes included', () => {
    for (const [where, value] of [...objectsIn(doc.paths, '#/paths'), ...objectsIn(doc.components, '#/components')]) {
      const schema = value as { enum?: unknown[]; type?: string };
      if (!Array.isArray(schema.enum)) continue;
      expect(schema.type, where).toBe(typeof schema.enum[0]);
    }
  });
});

describe('every operation', () => {
  it('has an operationId, summary, description and a declared tag', () => {
    const tags = new Set((doc.tags as { name: string; description: string }[]).map((tag) => tag.name));
    for (const { path, method, op } of operations()) {
      const where = `${method} ${path}`;
      expect(op.operationId, where).toMatch(/^[a-z-]+$/);
      expect(op.summary?.length, where).toBeGreaterThan(3);
      expect(op.description?.length, where).toBeGreaterThan(20);
      expect(op.tags?.length, where).toBe(1);
      expect(tags.has(op.tags[0]), where).toBe(true);
    }
  });

  it('marks required the query parameters the server refuses a request without: the proofs’ too', async () => {
    const required = operations().flatMap(({ path, op }) =>
      (op.parameters ?? [])
        .filter((p: { in: string; required?: boolean }) => p.in === 'query' && p.required)
        .map((p: { name: string }) => `${path} ${p.name}`),
    );
    expect(required.sort()).toEqual([
      '/auth/nonce wallet',
      '/log/proof/consistency from',
      '/log/proof/consistency to',
      '/log/proof/inclusion index',
      '/log/proof/inclusion size',
    ]);
    for (const [path, query, missing] of [
      ['/log/proof/inclusion', 'size=1', 'index'],
      ['/log/proof/inclusion', 'index=0', 'size'],
      ['/log/proof/consistency', 'to=1', 'from'],
      ['/log/proof/consistency', 'from=1', 'to'],
    ] as const) {
      const reply = await call(api, 'GET', `${path}?${query}`);
      expect(reply.status, `${path}?${query}`).toBe(400);
      expect(reply.body.issues.map((issue: { path: string[] }) => issue.path[0])).toContain(missing);
    }
  });

  it('describes every parameter, with a schema and an example', () => {
    for (const { path, method, op } of operations()) {
      for (const parameter of op.parameters ?? []) {
        const where = `${method} ${path} ${parameter.name}`;
        expect(parameter.description?.length, where).toBeGreaterThan(5);
        // number: a plain decimal in the query (the catalogue's figure filters, e.g. minRoi30dPct=-12.5).
        expect(parameter.schema?.type, where).toMatch(/^(string|integer|number)$/);
        // A cursor only comes from an answer (sealed with the server's key): no example to prefill.
        if (parameter.name === 'cursor' || parameter.name === 'after') expect(parameter.example, where).toBeUndefined();
        // A catalogue filter narrows the page: no example, so "Try it out" lists the whole catalogue.
        else if (path === '/providers' && (core.PROVIDER_FILTER_FIELDS as string[]).includes(parameter.name)) continue;
        else expect(parameter.example, where).toBeDefined();
      }
    }
  });

  it('declares the caching of every cacheable read, the chart too: ETag and Cache-Control on its 200, and a 304', () => {
    const cacheable = operations().filter(({ path, method }) => {
      const procedure = Object.values(appRouter._def.procedures as unknown as Record<string, AnyProcedure>).find(
        (p) => {
          const openapi = (p._def.meta as Meta | undefined)?.openapi;
          return openapi?.path === path && openapi.method.toLowerCase() === method;
        },
      );
      return (procedure?._def.meta as Meta | undefined)?.cache !== undefined;
    });
    expect(cacheable.map(({ path }) => path).sort()).toEqual([
      '/providers',
      '/providers/{id}',
      '/providers/{id}/performance',
      '/providers/{id}/stats',
    ]);
    for (const { path, op } of cacheable) {
      expect(Object.keys(success(op).headers ?? {}).sort(), path).toEqual(['Cache-Control', 'ETag']);
      expect(Object.keys(op.responses[304]?.headers ?? {}).sort(), path).toEqual(['Cache-Control', 'ETag']);
    }
  });

  it('has a 200 (201 for a creation) with a schema and an example, and a request body schema and example if it takes one', () => {
    for (const { path, method, op } of operations()) {
      const where = `${method} ${path}`;
      if (LOG_FILE_PATHS.includes(path)) {
        // Text (the checkpoint, the key: with an example) or bytes (tiles, bundles), and their caching.
        const content = Object.entries(success(op)?.content ?? {}) as [string, any][];
        expect(
          content.map(([type]) => type),
          where,
        ).toEqual([path.startsWith('/log/tile/') ? 'application/octet-stream' : 'text/plain; charset=utf-8']);
        expect(content[0]?.[1].schema.type, where).toBe('string');
        if (!path.startsWith('/log/tile/')) expect(typeof content[0]?.[1].example, where).toBe('string');
        expect(success(op).headers['Cache-Control'].schema.example, where).toMatch(/^public, max-age=\d+/);
        continue;
      }
      const ok = success(op)?.content?.['application/json'];
      expect(resolved(ok?.schema)?.type, where).toBe('object');
      expect(ok?.example, where).toBeDefined();
      if (op.requestBody) {
        const body = op.requestBody.content['application/json'];
        expect(resolved(body.schema).type, where).toBe('object');
        expect(body.example, where).toBeDefined();
      }
    }
  });

  it('lists the errors the host answers before choosing an operation: 400 VALIDATION_ERROR, 404 NOT_FOUND, 500', () => {
    for (const { path, method, op } of operations()) {
      const where = `${method} ${path}`;
      expect(Object.keys(errorExamples(op, 400)), where).toContain('VALIDATION_ERROR');
      expect(Object.keys(errorExamples(op, 404)), where).toContain('NOT_FOUND');
      expect(Object.keys(errorExamples(op, 500)), where).toEqual(['INTERNAL_ERROR']);
      // The host reads a body on every method but GET, so only those can be too large.
      expect(Object.keys(errorExamples(op, 413)), where).toEqual(method === 'get' ? [] : ['PAYLOAD_TOO_LARGE']);
    }
  });

  it('lists 503 on every operation that reads the database (every procedure, /ready), and 429 on every rate-limited one', () => {
    for (const { openapi } of procedures) {
      const op = doc.paths[openapi.path][openapi.method.toLowerCase()];
      expect(Object.keys(errorExamples(op, 503)), openapi.path).toEqual(['SERVICE_UNAVAILABLE']);
    }
    expect(Object.keys(errorExamples(doc.paths['/ready'].get, 503))).toEqual(['SERVICE_UNAVAILABLE']);
    expect(doc.paths['/health'].get.responses[503]).toBeUndefined();
    const limited = ['GET /auth/nonce', 'POST /auth/verify', 'GET /providers', 'GET /providers/{id}'];
    for (const key of [...limited, 'GET /providers/{id}/stats', 'POST /providers/{id}/follow']) {
      const [method, path] = key.split(' ') as [string, string];
      expect(Object.keys(errorExamples(doc.paths[path][method.toLowerCase()], 429)), key).toEqual(['RATE_LIMITED']);
    }
  });

  it('describes request bodies as the server reads them: unknown fields ignored, not refused', () => {
    for (const { path, method, op } of operations()) {
      if (!op.requestBody) continue;
      const schema = resolved(op.requestBody.content['application/json'].schema);
      expect(schema.additionalProperties, `${method} ${path}`).toBeUndefined();
      expect(op.requestBody.description, `${method} ${path}`).toMatch(/not listed here are ignored/);
    }
  });

  it('answers every error status with ErrorBody narrowed to its codes, and an example per code', () => {
    for (const { path, method, op } of operations()) {
      const statuses = Object.keys(op.responses)
        .filter((status) => status !== '200' && status !== '201' && status !== '304')
        .map(Number);
      expect(statuses, `${method} ${path}`).toContain(500);
      for (const status of statuses) {
        const where = `${method} ${path} ${status}`;
        const content = op.responses[status].content['application/json'];
        const codes = Object.keys(content.examples) as ErrorCode[];
        expect(codes.length, where).toBeGreaterThan(0);
        expect(content.schema.allOf[0], where).toEqual({ $ref: '#/components/schemas/ErrorBody' });
        expect(content.schema.allOf[1].properties.code.enum, where).toEqual(codes);
        for (const code of codes) {
          expect(ERROR_STATUS[code], `${where} ${code}`).toBe(status);
          expect(op.responses[status].description, where).toContain(code);
          const example = ErrorBodySchema.parse(content.examples[code].value);
          expect(example.code, where).toBe(code);
        }
      }
    }
  });

  it('takes a wallet token or a service key exactly when its procedure does, and answers their 401s and 403', () => {
    for (const { openapi, protect, scope, optionalCredential } of procedures) {
      const op = doc.paths[openapi.path][openapi.method.toLowerCase()];
      const where = `${openapi.method} ${openapi.path}`;
      if (optionalCredential) {
        // A read whose answer depends on the reader: no credential, or either kind; one sent is
        // checked (its 401s), and neither kind is refused for being that kind.
        expect(op.security, where).toEqual([{}, { bearerAuth: [] }, { serviceKey: [] }]);
        expect(Object.keys(errorExamples(op, 401)), where).toEqual([
          'UNAUTHORIZED',
          'TOKEN_EXPIRED',
          'SESSION_REVOKED',
        ]);
        expect(op.responses[403], where).toBeUndefined();
        expect(op.responses[401].headers?.['WWW-Authenticate'], where).toBeDefined();
      } else if (scope) {
        // A service key's route: one 401 (unknown, revoked or expired key), 403 for a user's
        // token or a missing scope, and the per-key rate limit.
        expect(op.security, where).toEqual([{ serviceKey: [] }]);
        expect(op.description, where).toContain(`\`${scope}\``);
        expect(Object.keys(errorExamples(op, 401)), where).toEqual(['UNAUTHORIZED']);
        expect(Object.keys(errorExamples(op, 403)), where).toContain('FORBIDDEN');
        expect(Object.keys(errorExamples(op, 429)), where).toEqual(['RATE_LIMITED']);
        expect(op.responses[401].headers?.['WWW-Authenticate'], where).toBeDefined();
      } else if (protect) {
        expect(op.security, where).toEqual([{ bearerAuth: [] }]);
        // Linking a wallet also answers the 401s of a signed nonce (INVALID_NONCE, INVALID_SIGNATURE).
        const own = new Set(['INVALID_NONCE', 'INVALID_SIGNATURE']);
        expect(
          Object.keys(errorExamples(op, 401)).filter((code) => !own.has(code)),
          where,
        ).toEqual(['UNAUTHORIZED', 'TOKEN_EXPIRED', 'SESSION_REVOKED']);
        // A service key sent to a user's route.
        expect(Object.keys(errorExamples(op, 403)), where).toContain('FORBIDDEN');
        expect(op.responses[401].headers?.['WWW-Authenticate'], where).toBeDefined();
      } else {
        expect(op.security, where).toBeUndefined();
      }
    }
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['bearerAuth', 'serviceKey']);
    expect(procedures.filter((p) => p.optionalCredential).map((p) => `${p.openapi.method} ${p.openapi.path}`)).toEqual([
      'GET /providers/{id}/signals/{signalId}',
      'GET /providers/{id}/signals',
    ]);
    expect(procedures.filter((p) => p.scope).map((p) => `${p.openapi.method} ${p.openapi.path}`)).toEqual(
      expect.arrayContaining([
        'POST /admin/keys',
        'GET /admin/keys',
        'DELETE /admin/keys/{id}',
        'GET /providers/{id}/followers',
      ]),
    );
  });

  it('/auth/verify lists its own 401s, INVALID_NONCE and INVALID_SIGNATURE', () => {
    const verify = doc.paths['/auth/verify'].post;
    expect(Object.keys(errorExamples(verify, 401))).toEqual(['INVALID_NONCE', 'INVALID_SIGNATURE']);
    expect(Object.keys(errorExamples(verify, 400))).toEqual(['VALIDATION_ERROR', 'INVALID_WALLET']);
    expect(Object.keys(errorExamples(verify, 413))).toEqual(['PAYLOAD_TOO_LARGE']);
    expect(Object.keys(errorExamples(verify, 429))).toEqual(['RATE_LIMITED']);
    expect(verify.responses[429].headers?.['Retry-After']).toBeDefined();
  });

  it("has examples that its procedure's own zod schemas accept", () => {
    for (const { name, openapi, input, output } of procedures) {
      const example = openapi.example;
      expect(example?.response, name).toBeDefined();
      expect(() => output?.parse(example?.response), name).not.toThrow();
      if (example?.request) expect(() => input?.parse(example.request), name).not.toThrow();
    }
    const service = {
      '/health': HealthResponseSchema,
      '/ready': ReadyResponseSchema,
      '/.well-known/jwks.json': JwksSchema,
    };
    for (const [path, schema] of Object.entries(service)) {
      expect(
        () => schema.parse(doc.paths[path].get.responses[200].content['application/json'].example),
        path,
      ).not.toThrow();
    }
  });
  it('has real sign-in examples: the signature is by the wallet, the token verifies with the JWKS example', async () => {
    const { wallet, nonce, signature } = examples.verifyRequest;
    expect(parseSignInMessage(examples.nonceResponse.message)).toMatchObject({
      format: 'siwe',
      nonce,
      address: wallet,
    });
    expect(verifyWalletSignature(parseWallet(wallet), examples.nonceResponse.message, signature)).toBe(true);
    const { payload } = await jwtVerify(examples.tokenResponse.token, createLocalJWKSet(examples.jwks), {
      issuer: 'signal-auth',
      audience: 'signal-api',
      currentDate: new Date(examples.tokenResponse.user.createdAt),
    });
    expect(payload).toMatchObject({
      sub: String(examples.tokenResponse.user.id),
      wallet,
      chain: 'evm',
      sid: examples.tokenResponse.sessionId,
    });
    expect(new Date((payload.exp ?? 0) * 1000).toISOString()).toBe(examples.tokenResponse.expiresAt);
  });
});

describe('the document against the running server', () => {
  it('the service endpoints answer as documented', async () => {
    expect(HealthResponseSchema.parse((await call(api, 'GET', '/health')).body)).toEqual({ status: 'ok' });
    expect(ReadyResponseSchema.parse((await call(api, 'GET', '/ready')).body)).toEqual({ status: 'ready' });
    JwksSchema.parse((await call(api, 'GET', '/.well-known/jwks.json')).body);
  });

  // Real failures, each of which must be listed, with its status, on the operation that gave it.
  const failures: [method: string, url: string, template: string, options?: { token?: boolean; body?: unknown }][] = [
    ['GET', '/auth/nonce', '/auth/nonce'],
    ['GET', '/auth/nonce?wallet=nope', '/auth/nonce'],
    ['POST', '/auth/verify', '/auth/verify', { body: {} }],
    ['POST', '/auth/verify', '/auth/verify', { body: { wallet: 'nope', nonce: 'n', signature: 's' } }],
    [
      'POST',
      '/auth/verify',
      '/auth/verify',
      {
        body: {
          wallet: evmWallet().address,
          nonce: '05wPgEYmAO1CGzihbjcVZ6YiP9GmwmweYgrHc07iPyV5mCa7A0eRqufSz3',
          signature: '0x00',
        },
      },
    ],
    ['POST', '/auth/verify', '/auth/verify', { body: { pad: 'x'.repeat(20_000) } }],
    ['GET', '/me', '/me'],
    ['GET', '/me/following?limit=101', '/me/following', { token: true }],
    ['GET', '/providers?sortBy=rank', '/providers'],
    ['GET', '/providers/0', '/providers/{id}'],
    ['GET', '/providers/999999', '/providers/{id}'],
    ['GET', '/providers/999999/stats', '/providers/{id}/stats'],
    ['POST', '/providers/999999/follow', '/providers/{id}/follow', { token: true }],
    ['DELETE', '/providers/1/follow', '/providers/{id}/follow'],
    // A session id holding a `/` names no route: NOT_FOUND, before the operation is chosen.
    ['DELETE', '/me/sessions/a/b', '/me/sessions/{id}', { token: true }],
    ['GET', '/health/x', '/health'],
  ];

  it.each(failures)('%s %s: the status and code are documented', async (method, url, template, options = {}) => {
    const reply = await call(api, method, url, {
      ...(options.token ? { token } : {}),
      ...(options.body !== undefined ? { body: options.body } : {}),
    });
    expect(reply.status).toBeGreaterThanOrEqual(400);
    const op = doc.paths[template][method.toLowerCase()];
    expect(Object.keys(errorExamples(op, reply.status))).toContain(reply.body.code);
  });

  it.each(
    // Every documented operation, asked with a URL over 4 KiB: 400 VALIDATION_ERROR, listed there.
    [
      ...procedures.map((p) => [p.openapi.method, p.openapi.path]),
      ...[...SERVICE_PATHS, ...LOG_FILE_PATHS].map((path) => ['GET', path]),
    ] as [string, string][],
  )('%s %s with a URL over 4 KiB: 400 VALIDATION_ERROR, documented with its example', async (method, path) => {
    const reply = await call(api, method, `${urlOf(path)}?pad=${'x'.repeat(4200)}`, { token });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ code: 'VALIDATION_ERROR', issues: [{ path: ['url'] }] });
    const op = doc.paths[path][method.toLowerCase()];
    expect(Object.keys(errorExamples(op, 400))).toContain('VALIDATION_ERROR');
  });

  it.each([
    ...procedures
      .filter((p) => p.openapi.method !== 'GET')
      .map((p) => [p.openapi.method, p.openapi.path, p.maxBodyBytes / 1024]),
  ] as [string, string, number][])(
    '%s %s with a body over %i KiB: 413 PAYLOAD_TOO_LARGE, documented',
    async (method, path, kib) => {
      const reply = await call(api, method, urlOf(path), { token, body: { pad: 'x'.repeat(kib * 1024 + 4_000) } });
      expect(reply.status).toBe(413);
      expect(reply.body.code).toBe('PAYLOAD_TOO_LARGE');
      expect(Object.keys(errorExamples(doc.paths[path][method.toLowerCase()], 413))).toEqual(['PAYLOAD_TOO_LARGE']);
    },
  );

  it("the examples of the errors any operation gets are the server's own answers", async () => {
    const health = doc.paths['/health'].get;
    const long = await call(api, 'GET', `/health?pad=${'x'.repeat(5000)}`);
    expect(long.body).toEqual(errorExamples(health, 400).VALIDATION_ERROR?.value);
    const missing = await call(api, 'GET', '/providers/5/statistics');
    expect(missing.body).toEqual(errorExamples(health, 404).NOT_FOUND?.value);
  });

  it('POST /auth/verify with an extra field signs in: unknown body fields are ignored, as documented', async () => {
    const wallet = evmWallet();
    const nonce = await call(api, 'GET', `/auth/nonce?wallet=${wallet.address}`);
    const signature = await wallet.sign(nonce.body.message);
    const body = {
      wallet: wallet.address,
      nonce: nonce.body.nonce,
      signature,
      referrer: 'newsletter',
      extra: { a: 1 },
    };
    const reply = await call(api, 'POST', '/auth/verify', { body });
    expect(reply.status).toBe(200);
    expect(reply.body.user.wallet).toBe(wallet.address);
    expect(resolved(doc.paths['/auth/verify'].post.requestBody.content['application/json'].schema)).not.toHaveProperty(
      'additionalProperties',
    );
    // And the same for the other body: POST /auth/logout with an unknown field ends the session.
    const out = await call(api, 'POST', '/auth/logout', {
      token: reply.body.token,
      body: { scope: 'current', why: 'x' },
    });
    expect(out).toMatchObject({ status: 200, body: { revoked: 1 } });
  });

  it('follow answers following: true and unfollow following: false, the constants the document gives', async () => {
    const { token: own } = await signIn(api, evmWallet());
    const { FollowResult, UnfollowResult } = doc.components.schemas;
    const followed = await call(api, 'POST', '/providers/1/follow', { token: own });
    expect(followed.body.following).toBe(FollowResult.properties.following.enum[0]);
    const unfollowed = await call(api, 'DELETE', '/providers/1/follow', { token: own });
    expect(unfollowed.body.following).toBe(UnfollowResult.properties.following.enum[0]);
  });

  it("a VALIDATION_ERROR example is the service's own answer to that input", async () => {
    const documented = errorExamples(doc.paths['/providers/{id}'].get, 400).VALIDATION_ERROR?.value;
    const reply = await call(api, 'GET', '/providers/x');
    expect(reply.body).toEqual(documented);
  });
});
