/**
 * The same procedures over tRPC with the real @trpc/client: sign-in for both wallet
 * families, /me with a bearer token, and the contract's codes in error.data.code with the
 * HTTP status of the contract.
 */
import type { TRPCClientError } from '@trpc/client';
import { describe, expect, it } from 'vitest';
import type { AppRouter } from '../../src/index.js';
import { call, evmWallet, solanaWallet, trpcClient, trpcFailure, useApi } from '../harness.js';

const api = useApi('postgres');

function expectCode(error: TRPCClientError<AppRouter>, code: string, httpStatus: number) {
  expect(error.data?.code).toBe(code);
  expect(error.data?.httpStatus).toBe(httpStatus);
  expect(error.message.length).toBeGreaterThan(0);
  expect(JSON.stringify(error.shape)).not.toContain('stack');
}

describe.each([
  ['evm', evmWallet],
  ['solana', solanaWallet],
] as const)('sign-in over tRPC with a %s wallet', (chain, makeWallet) => {
  it('nonce → verify → me.get', async () => {
    const wallet = makeWallet();
    const anonymous = trpcClient(api);
    const nonce = await anonymous.auth.nonce.query({ wallet: wallet.address });
    expect(nonce).toMatchObject({
      wallet: wallet.address,
      chain,
      message: `Sign this message to authenticate: ${nonce.nonce}`,
    });
    const session = await anonymous.auth.verify.mutate({
      wallet: wallet.address,
      nonce: nonce.nonce,
      signature: await wallet.sign(nonce.message),
    });
    expect(session).toMatchObject({ tokenType: 'Bearer', isNewUser: true, user: { wallet: wallet.address, chain } });

    const me = await trpcClient(api, session.token).me.get.query();
    expect(me).toEqual(session.user);

    // The same user over REST: both transports give the same shape.
    const rest = await call(api, 'GET', '/me', { token: session.token });
    expect(rest.body).toEqual(me);
  });
});

describe('errors over tRPC', () => {
  it('bad wallet → INVALID_WALLET, httpStatus 400', async () => {
    expectCode(await trpcFailure(trpcClient(api).auth.nonce.query({ wallet: 'garbage' })), 'INVALID_WALLET', 400);
    const wallet = evmWallet();
    expectCode(
      await trpcFailure(
        trpcClient(api).auth.verify.mutate({ wallet: 'garbage', nonce: 'x'.repeat(32), signature: '0x' }),
      ),
      'INVALID_WALLET',
      400,
    );
    expect(wallet.address).toMatch(/^0x/);
  });

  it('unknown nonce → INVALID_NONCE, httpStatus 401', async () => {
    const wallet = solanaWallet();
    const nonce = 'a'.repeat(32);
    expectCode(
      await trpcFailure(
        trpcClient(api).auth.verify.mutate({
          wallet: wallet.address,
          nonce,
          signature: await wallet.sign(`Sign this message to authenticate: ${nonce}`),
        }),
      ),
      'INVALID_NONCE',
      401,
    );
  });

  it('bad signature → INVALID_SIGNATURE, httpStatus 401', async () => {
    const wallet = evmWallet();
    const anonymous = trpcClient(api);
    const nonce = await anonymous.auth.nonce.query({ wallet: wallet.address });
    expectCode(
      await trpcFailure(
        anonymous.auth.verify.mutate({
          wallet: wallet.address,
          nonce: nonce.nonce,
          signature: await evmWallet().sign(nonce.message),
        }),
      ),
      'INVALID_SIGNATURE',
      401,
    );
  });

  it('me.get without a token → UNAUTHORIZED, httpStatus 401', async () => {
    expectCode(await trpcFailure(trpcClient(api).me.get.query()), 'UNAUTHORIZED', 401);
    expectCode(await trpcFailure(trpcClient(api, 'not.a.token').me.get.query()), 'UNAUTHORIZED', 401);
  });

  it('bad input types → VALIDATION_ERROR, httpStatus 400, with issues naming the fields', async () => {
    const error = await trpcFailure(
      trpcClient(api).auth.verify.mutate({ wallet: 1, nonce: null, signature: {} } as unknown as {
        wallet: string;
        nonce: string;
        signature: string;
      }),
    );
    expectCode(error, 'VALIDATION_ERROR', 400);
    const issues = (error.data as { issues?: { path: (string | number)[] }[] }).issues ?? [];
    expect(issues.map((issue) => issue.path[0]).sort()).toEqual(['nonce', 'signature', 'wallet']);

    expectCode(
      await trpcFailure(trpcClient(api).auth.nonce.query({} as unknown as { wallet: string })),
      'VALIDATION_ERROR',
      400,
    );
    expectCode(
      await trpcFailure(trpcClient(api).auth.nonce.query({ wallet: 42 } as unknown as { wallet: string })),
      'VALIDATION_ERROR',
      400,
    );
  });
});

describe('HTTP status of tRPC error responses', () => {
  const trpcGet = (path: string, input: unknown, headers: Record<string, string> = {}) =>
    call(api, 'GET', `/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers });

  it('a bad wallet → HTTP 400 with data.code INVALID_WALLET', async () => {
    const reply = await trpcGet('auth.nonce', { wallet: 'garbage' });
    expect(reply.status).toBe(400);
    expect(reply.body.error.data).toMatchObject({ code: 'INVALID_WALLET', httpStatus: 400 });
  });

  it('the same through the batch endpoint → HTTP 400', async () => {
    const reply = await call(
      api,
      'GET',
      `/trpc/auth.nonce?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: { wallet: 'garbage' } }))}`,
    );
    expect(reply.status).toBe(400);
    expect(reply.body[0].error.data.code).toBe('INVALID_WALLET');
  });

  it('two failing calls of one status in a batch → that status', async () => {
    const input = { 0: { wallet: 'garbage' }, 1: { wallet: '0x123' } };
    const reply = await call(
      api,
      'GET',
      `/trpc/auth.nonce,auth.nonce?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`,
    );
    expect(reply.status).toBe(400);
    expect(reply.body.map((item: { error: { data: { code: string } } }) => item.error.data.code)).toEqual([
      'INVALID_WALLET',
      'INVALID_WALLET',
    ]);
  });

  it('me.get without a token → HTTP 401 with WWW-Authenticate', async () => {
    const reply = await call(api, 'GET', '/trpc/me.get');
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate') ?? '').toMatch(/^Bearer/);
    expect(reply.body.error.data.code).toBe('UNAUTHORIZED');
  });

  it('unknown nonce over POST → HTTP 401', async () => {
    const wallet = evmWallet();
    const reply = await call(api, 'POST', '/trpc/auth.verify', {
      body: { wallet: wallet.address, nonce: 'b'.repeat(32), signature: '0x00' },
    });
    expect(reply.status).toBe(401);
    expect(reply.body.error.data.code).toBe('INVALID_NONCE');
  });

  it('bad input types → HTTP 400 VALIDATION_ERROR', async () => {
    const reply = await call(api, 'POST', '/trpc/auth.verify', { body: { wallet: 1 } });
    expect(reply.status).toBe(400);
    expect(reply.body.error.data.code).toBe('VALIDATION_ERROR');
  });

  it('an unknown procedure → HTTP 404 NOT_FOUND', async () => {
    const reply = await call(api, 'GET', '/trpc/auth.nope');
    expect(reply.status).toBe(404);
    expect(reply.body.error.data.code).toBe('NOT_FOUND');
  });

  it('a body over 16 KiB → HTTP 413 PAYLOAD_TOO_LARGE', async () => {
    const reply = await call(api, 'POST', '/trpc/auth.verify', {
      body: { wallet: 'x', nonce: 'y', signature: 'z'.repeat(17 * 1024) },
    });
    expect(reply.status).toBe(413);
    expect(reply.body.error.data.code).toBe('PAYLOAD_TOO_LARGE');
  });
});
