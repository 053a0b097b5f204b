/**
 * /openapi.json: a valid OpenAPI 3 document (checked by a maintained validator) that documents
 * every operation fully (summary, description, tags, parameters, schemas, examples, every error
 * code with an example, bearer security), and whose claims hold against the running server.
 */
import { request } from 'node:http';
import { compileErrors, validate } from '@readme/openapi-parser';
import {
  ERROR_STATUS,
  ErrorBodySchema,
  type ErrorCode,
  HealthResponseSchema,
  JwksSchema,
  parseSignInMessage,
  ReadyResponseSchema,
} from '@signal/core';
import { verifyWalletSignature } from '@signal/core/verify';
import { parseWallet } from '@signal/core/wallet';
import type { AnyProcedure } from '@trpc/server';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ZodTypeAny } from 'zod';
import { appRouter } from '../src/index.js';
import * as examples from '../src/openapi.examples.js';
import type { Meta } from '../src/trpc.js';
import { call, evmWallet, signIn, startApi, type TestApi } from './harness.js';

type Operation = Record<string, any>;

const SERVICE_PATHS = ['/health', '/ready', '/.well-known/jwks.json'];

const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, AnyProcedure>).map(
  ([name, procedure]) => {
    const def = procedure._def as { meta?: Meta; inputs: ZodTypeAny[]; output?: ZodTypeAny };
    const openapi = def.meta?.openapi;
    if (!openapi) throw new Error(`${name} has no openapi meta`);
    return { name, openapi, input: def.inputs[0], output: def.output, protect: openapi.protect === true };
  },
);

let api: TestApi;
let doc: any;
let token: string;

function operations(): { path: string; method: string; op: Operation }[] {
  return Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op })),
  );
}

function errorExamples(op: Operation, status: number): Record<string, { value: unknown }> {
  return op.responses[status]?.content?.['application/json']?.examples ?? {};
}

beforeAll(async () => {
  api = await startApi('postgres', { env: { SEED_PROVIDERS: '3' } });
  const reply = await call(api, 'GET', '/openapi.json');
  expect(reply.status).toBe(200);
  doc = reply.body;
  token = (await signIn(api, evmWallet())).token;
});
afterAll(() => api?.stop());

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
    const codes = doc.components.schemas.ErrorBody.properties.code.enum;
    expect(codes.sort()).toEqual(Object.keys(ERROR_STATUS).sort());
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

  it('describes every parameter, with a schema and an example', () => {
    for (const { path, method, op } of operations()) {
      for (const parameter of op.parameters ?? []) {
        const where = `${method} ${path} ${parameter.name}`;
        expect(parameter.description?.length, where).toBeGreaterThan(5);
        expect(parameter.schema?.type, where).toMatch(/^(string|integer)$/);
        // A cursor only comes from an answer (sealed with the server's key): no example to prefill.
        if (parameter.name === 'cursor') expect(parameter.example, where).toBeUndefined();
        else expect(parameter.example, where).toBeDefined();
      }
    }
  });

  it('has a 200 response with a schema and an example, and a request body schema and example if it takes one', () => {
    for (const { path, method, op } of operations()) {
      const where = `${method} ${path}`;
      const success = op.responses[200]?.content?.['application/json'];
      expect(success?.schema?.type, where).toBe('object');
      expect(success?.example, where).toBeDefined();
      if (op.requestBody) {
        const body = op.requestBody.content['application/json'];
        expect(body.schema.type, where).toBe('object');
        expect(body.example, where).toBeDefined();
      }
    }
  });

  it('answers every error status with ErrorBody narrowed to its codes, and an example per code', () => {
    for (const { path, method, op } of operations()) {
      const statuses = Object.keys(op.responses)
        .filter((status) => status !== '200' && status !== '304')
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

  it('is protected by the bearer scheme exactly when its procedure is, and then answers 401 UNAUTHORIZED, TOKEN_EXPIRED and SESSION_REVOKED', () => {
    for (const { openapi, protect } of procedures) {
      const op = doc.paths[openapi.path][openapi.method.toLowerCase()];
      const where = `${openapi.method} ${openapi.path}`;
      if (protect) {
        expect(op.security, where).toEqual([{ bearerAuth: [] }]);
        expect(Object.keys(errorExamples(op, 401)), where).toEqual([
          'UNAUTHORIZED',
          'TOKEN_EXPIRED',
          'SESSION_REVOKED',
        ]);
        expect(op.responses[401].headers?.['WWW-Authenticate'], where).toBeDefined();
      } else {
        expect(op.security, where).toBeUndefined();
      }
    }
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

  it("a VALIDATION_ERROR example is the service's own answer to that input", async () => {
    const documented = errorExamples(doc.paths['/providers/{id}'].get, 400).VALIDATION_ERROR?.value;
    const reply = await call(api, 'GET', '/providers/x');
    expect(reply.body).toEqual(documented);
  });
});
