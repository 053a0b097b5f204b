/**
 * The REST mapping itself (src/http/rest.ts): every operation of the served OpenAPI document
 * answers at its path, paths are matched as trpc-to-openapi matches them, a path served with
 * other methods says which, and a body or query cannot smuggle keys through a prototype.
 */
import type { OpenAPIV3 } from 'openapi-types';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, evmWallet, expectError, signIn, useApi } from '../harness.js';

const api = useApi('postgres', { env: { SEED_PROVIDERS: '3' } });
let token: string;

beforeAll(async () => {
  ({ token } = await signIn(api, evmWallet()));
});

describe('the document and the routes agree', () => {
  it('every operation of /openapi.json (53 of 53) is served at its path and method', async () => {
    const document = (await call<OpenAPIV3.Document>(api, 'GET', '/openapi.json')).body;
    const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item ?? {})
        .filter((key) => methods.includes(key))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    // Every method the document uses is walked (PATCH included), and there are more than a few.
    expect(new Set(operations.map((operation) => operation.split(' ')[0]))).toEqual(
      new Set(['GET', 'POST', 'PATCH', 'DELETE']),
    );
    // All 53 of 2 Dec 2026 (the signal, publisher and log routes and the service endpoints among
    // them): a route added or dropped changes this count, and the walk below serves each one.
    expect(operations.length).toBe(53);
    // A session of its own: POST /auth/logout among the operations ends it.
    const own = (await signIn(api, evmWallet())).token;
    const served: string[] = [];
    for (const operation of operations) {
      const [method, path] = operation.split(' ') as [string, string];
      // Every path parameter ({id}, {wallet}, ...) gets a value; a wrong one is the operation's own 4xx.
      const reply = await call(api, method, path.replace(/\{[^}]+\}/g, '1'), { token: own });
      // Whatever the operation answers (200, 400 for a missing parameter...), it is not "no route".
      const message = String(reply.body?.message ?? '');
      if (!/No such endpoint|is not served/.test(message) && reply.status < 500) served.push(operation);
    }
    expect(served).toEqual(operations);
  });
});

describe('matching', () => {
  it('ignores a trailing slash and the case of the path, as trpc-to-openapi does', async () => {
    for (const path of ['/providers/', '/PROVIDERS', '/Providers/1', '/providers/1/STATS/']) {
      const reply = await call(api, 'GET', path);
      expect(reply.status, path).toBe(200);
    }
  });

  it('a path served with other methods names them', async () => {
    const reply = await call(api, 'GET', '/providers/1/follow', { token });
    const body = expectError(reply, 404, 'NOT_FOUND');
    expect(body.message).toBe('GET is not served on /providers/1/follow; it takes POST, DELETE');
    const put = expectError(await call(api, 'PUT', '/providers'), 404, 'NOT_FOUND');
    expect(put.message).toBe('PUT is not served on /providers; it takes GET, POST');
  });

  it('an unknown path is "No such endpoint"', async () => {
    const body = expectError(await call(api, 'GET', '/providers/1/stats/extra'), 404, 'NOT_FOUND');
    expect(body.message).toBe('No such endpoint: GET /providers/1/stats/extra');
  });

  it('a path parameter wins over a query parameter of the same name', async () => {
    const reply = await call(api, 'GET', '/providers/2?id=1');
    expect(reply.status).toBe(200);
    expect(reply.body.id).toBe(2);
  });

  it('the first of repeated query parameters counts', async () => {
    const reply = await call(api, 'GET', '/providers?limit=1&limit=50');
    expect(reply.status).toBe(200);
    expect(reply.body.limit).toBe(1);
    expect(reply.body.items).toHaveLength(1);
  });
});

describe('bodies and queries cannot reach a prototype', () => {
  it('Object.prototype names in the query are unknown keys, ignored', async () => {
    const reply = await call(api, 'GET', '/providers?constructor=1&__proto__=x&toString=2&hasOwnProperty=3&limit=2');
    expect(reply.status).toBe(200);
    expect(reply.body.items).toHaveLength(2);
  });

  it('a body whose fields hide under "__proto__" is missing them', async () => {
    const wallet = evmWallet();
    const nonce = await call(api, 'GET', `/auth/nonce?wallet=${wallet.address}`);
    const fields = {
      wallet: wallet.address,
      nonce: nonce.body.nonce,
      signature: await wallet.sign(nonce.body.message),
    };
    const reply = await call(api, 'POST', '/auth/verify', {
      rawBody: `{"__proto__":${JSON.stringify(fields)}}`,
      headers: { 'content-type': 'application/json' },
    });
    const body = expectError(reply, 400, 'VALIDATION_ERROR');
    expect(body.issues?.map((issue) => issue.path[0]).sort()).toEqual(['nonce', 'signature', 'wallet']);
  });

  it.each([
    ['an array', '[1,2]', 'array'],
    ['a string', '"wallet"', 'string'],
    ['a number', '7', 'number'],
    // Not "no body" (issue 42: a publication of `null` was an empty one): a JSON value, not an object.
    ['null', 'null', 'null'],
  ])('a body that is %s is refused by the schema, with an issue', async (_what, rawBody, received) => {
    const reply = await call(api, 'POST', '/auth/verify', { rawBody, headers: { 'content-type': 'application/json' } });
    const body = expectError(reply, 400, 'VALIDATION_ERROR');
    expect(body.issues).toEqual([{ path: [], message: `Invalid input: expected object, received ${received}` }]);
  });

  it.each(['[]', '[1]', 'null', '"x"', '7'])(
    'follow and unfollow ignore a body of %s, as they ignore any body',
    async (rawBody) => {
      const headers = { 'content-type': 'application/json' };
      const follow = await call(api, 'POST', '/providers/3/follow', { token, rawBody, headers });
      expect(follow.status, JSON.stringify(follow.body)).toBe(200);
      expect(follow.body).toMatchObject({ providerId: 3, following: true });
      const unfollow = await call(api, 'DELETE', '/providers/3/follow', { token, rawBody, headers });
      expect(unfollow.status, JSON.stringify(unfollow.body)).toBe(200);
      expect(unfollow.body).toMatchObject({ providerId: 3, following: false });
    },
  );
});
