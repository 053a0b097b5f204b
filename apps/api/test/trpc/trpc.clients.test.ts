/**
 * Every answer under /trpc is one a real tRPC client can read, with @trpc/client v11 (the
 * workspace's) and v10 (@signal/trpc-v10), through httpLink and httpBatchLink: a typed error
 * with the contract's code, the HTTP status, and the JSON-RPC code of that status, for a batch
 * over the cap, a URL over 4 KiB, a body over 16 KiB, an unknown procedure, a 404, a 401 and a
 * 429. Malformed requests no client would send are checked on the raw answer.
 */

import type { Backend } from '@signal/db';
import {
  createTRPCProxyClient as createTRPCClientV10,
  httpBatchLink as httpBatchLinkV10,
  httpLink as httpLinkV10,
} from '@signal/trpc-v10';
import { createTRPCClient, httpBatchLink, httpLink } from '@trpc/client';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../../src/index.js';
import { call, evmWallet, useApi } from '../harness.js';
import { rawHttp } from '../raw-http.js';

const AUTH_LIMIT = 2;
const MINUTE = 60_000;

/** One untyped surface over two majors' clients. */
type AnyClient = any;

const clients = {
  'v10 httpLink': (url: string, token?: string): AnyClient =>
    createTRPCClientV10<AnyClient>({ links: [httpLinkV10({ url, headers: () => auth(token) })] }),
  'v10 httpBatchLink': (url: string, token?: string): AnyClient =>
    createTRPCClientV10<AnyClient>({ links: [httpBatchLinkV10({ url, headers: () => auth(token) })] }),
  'v11 httpLink': (url: string, token?: string): AnyClient =>
    createTRPCClient<AppRouter>({ links: [httpLink({ url, headers: () => auth(token) })] }),
  'v11 httpBatchLink': (url: string, token?: string): AnyClient =>
    createTRPCClient<AppRouter>({ links: [httpBatchLink({ url, headers: () => auth(token) })] }),
} as const;

function auth(token: string | undefined): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

const JSON_RPC = { 400: -32600, 401: -32001, 404: -32004, 413: -32013, 429: -32029 } as const;

/** Awaits a call that must fail and checks the typed error a client made of the answer. */
async function expectTyped(promise: Promise<unknown>, code: string, status: keyof typeof JSON_RPC) {
  const error = await promise.then(
    () => {
      throw new Error(`expected ${code}, the call succeeded`);
    },
    (e: AnyClient) => e,
  );
  expect(error?.name, String(error)).toBe('TRPCClientError');
  expect(error.message).not.toMatch(/Unable to transform/);
  expect(error.data).toMatchObject({ code, httpStatus: status });
  expect(error.shape?.code).toBe(JSON_RPC[status]);
  expect(error.message.length).toBeGreaterThan(0);
  return error;
}

function clientTests(backend: Backend) {
  describe(`tRPC clients on ${backend}`, () => {
    const api = useApi(backend, { env: { AUTH_RATE_LIMIT_PER_MINUTE: String(AUTH_LIMIT), SEED_PROVIDERS: '3' } });
    let token: string;
    beforeAll(async () => {
      const { signIn } = await import('../harness.js');
      api.advanceClock(MINUTE - (api.now().getTime() % MINUTE) + 50);
      ({ token } = await signIn(api, evmWallet()));
    });

    describe.each(Object.keys(clients) as (keyof typeof clients)[])('%s', (name) => {
      const make = (token?: string) => clients[name](`${api.url}/trpc`, token);
      const batched = name.includes('Batch');

      it('90 calls batched → 400 VALIDATION_ERROR on each (unbatched: 404 each)', async () => {
        const client = make();
        const calls = Array.from({ length: batched ? 90 : 12 }, (_, i) =>
          client.providers.stats.query({ id: 1_000 + i }),
        );
        const errors = await Promise.all(
          calls.map((p: Promise<unknown>) =>
            batched ? expectTyped(p, 'VALIDATION_ERROR', 400) : expectTyped(p, 'PROVIDER_NOT_FOUND', 404),
          ),
        );
        expect(errors).toHaveLength(batched ? 90 : 12);
        if (batched) expect(errors[0].message).toMatch(/at most 10 calls; this one has 90/);
      });

      it('a batch within the cap is served; past it every call gets the error', async () => {
        const client = make();
        const ten = await Promise.all([1, 2, 3, 1, 2, 3, 1, 2, 3, 1].map((id) => client.providers.get.query({ id })));
        expect(ten.map((p) => p.id)).toEqual([1, 2, 3, 1, 2, 3, 1, 2, 3, 1]);
        const eleven = Array.from({ length: 11 }, () => client.providers.get.query({ id: 1 }));
        for (const p of eleven) {
          if (batched) await expectTyped(p, 'VALIDATION_ERROR', 400);
          else expect((await p).id).toBe(1);
        }
      });

      it('a URL over 4 KiB → 400 VALIDATION_ERROR on every call', async () => {
        const client = make();
        const calls = Array.from({ length: batched ? 3 : 1 }, () =>
          client.providers.list.query({ limit: 5, padding: 'x'.repeat(4_200) }),
        );
        for (const p of calls) {
          const error = await expectTyped(p, 'VALIDATION_ERROR', 400);
          expect(error.data.issues).toEqual([{ path: ['url'], message: expect.any(String) }]);
        }
      });

      it('a body over 16 KiB → 413 PAYLOAD_TOO_LARGE', async () => {
        const client = make();
        const wallet = evmWallet().address;
        await expectTyped(
          client.auth.verify.mutate({ wallet, nonce: 'a'.repeat(32), signature: `0x${'ab'.repeat(9_000)}` }),
          'PAYLOAD_TOO_LARGE',
          413,
        );
      });

      it('an unknown procedure and an unknown provider → 404; no token → 401', async () => {
        const client = make();
        await expectTyped(client.providers.nope.query({ id: 1 }), 'NOT_FOUND', 404);
        await expectTyped(client.providers.get.query({ id: 999_999 }), 'PROVIDER_NOT_FOUND', 404);
        const unauthorized = await expectTyped(client.me.get.query(), 'UNAUTHORIZED', 401);
        expect(unauthorized.meta?.response?.headers.get('www-authenticate')).toMatch(/^Bearer/);
        expect(await make(token).me.get.query()).toMatchObject({ wallet: expect.any(String) });
      });

      it('the auth rate limit → 429 RATE_LIMITED with Retry-After', async () => {
        api.advanceClock(MINUTE - (api.now().getTime() % MINUTE) + 50);
        const client = make();
        const wallet = () => ({ wallet: evmWallet().address });
        for (let i = 0; i < AUTH_LIMIT; i++) await client.auth.nonce.query(wallet());
        const error = await expectTyped(client.auth.nonce.query(wallet()), 'RATE_LIMITED', 429);
        expect(error.meta?.response?.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
      });
    });

    it('malformed requests no client sends are still in tRPC’s envelope, one per call of a batch', async () => {
      const input = await call(api, 'GET', '/trpc/providers.get?input=%7Bnot-json');
      expect(input.status).toBe(400);
      expect(input.body.error).toMatchObject({ code: -32600, data: { code: 'VALIDATION_ERROR', httpStatus: 400 } });

      const batch = await call(
        api,
        'GET',
        '/trpc/providers.get,providers.nope?batch=1&input=%7B%220%22%3A%7B%22id%22%3A1%7D%7D',
      );
      expect(batch.status).toBe(207);
      expect(batch.body[0].result.data.id).toBe(1);
      expect(batch.body[1].error).toMatchObject({ code: -32004, data: { code: 'NOT_FOUND', httpStatus: 404 } });

      const body = await call(api, 'POST', '/trpc/providers.follow', {
        rawBody: '{"id":',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      });
      expect(body.status).toBe(400);
      expect(body.body.error.data.code).toBe('VALIDATION_ERROR');

      // Headers over 16 KiB never reach a handler; node's parser refuses them.
      const headers = await rawHttp(
        api.url,
        `GET /trpc/a,b?batch=1 HTTP/1.1\r\nHost: x\r\nX-Big: ${'y'.repeat(17_000)}\r\n\r\n`,
      );
      expect(headers.status).toBe(400);
      const envelopes = JSON.parse(headers.text);
      expect(envelopes).toHaveLength(2);
      expect(envelopes[1].error).toMatchObject({ code: -32600, data: { code: 'VALIDATION_ERROR', path: 'b' } });
    });
  });
}

clientTests('postgres');
clientTests('pglite');
