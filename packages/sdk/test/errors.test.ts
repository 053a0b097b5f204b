/**
 * Failures reach the caller as one typed error: the contract's code and status from the real
 * API, NETWORK_ERROR when there is no API answer, and wallet errors untouched.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, type SignalApiError, type Signer } from '@signal/sdk';
import { evmSigner } from '@signal/sdk/evm';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { failure, useApi } from './support/api.js';
import { countingSigner } from './support/wallets.js';

const api = useApi();

function expectApiError(error: SignalApiError, code: string, status: number) {
  expect({ code: error.code, status: error.status, name: error.name }).toEqual({
    code,
    status,
    name: 'SignalApiError',
  });
  expect(error.message.length).toBeGreaterThan(0);
}

const evmAccountSigner = () => evmSigner(privateKeyToAccount(generatePrivateKey()));

/** A real HTTP server on a free port that answers every request with `respond`. */
async function startHttp(respond: Parameters<typeof createHttpServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createHttpServer(respond);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('errors from the API', () => {
  const client = () => createClient({ baseUrl: api.url });

  it('401: an authenticated call without token or signer → UNAUTHORIZED', async () => {
    expectApiError(await failure(client().me.get()), 'UNAUTHORIZED', 401);
    expectApiError(await failure(client().providers.follow(1)), 'UNAUTHORIZED', 401);
    expectApiError(await failure(client().me.following()), 'UNAUTHORIZED', 401);
  });

  it('401: a signature by another key → INVALID_SIGNATURE, and no token is stored', async () => {
    const victim = privateKeyToAccount(generatePrivateKey());
    const impostor = evmAccountSigner();
    const lying: Signer = { ...impostor, chain: 'evm', getAddress: async () => victim.address };
    const signal = createClient({ baseUrl: api.url, signer: lying });
    expectApiError(await failure(signal.signIn()), 'INVALID_SIGNATURE', 401);
    expect(await signal.getToken()).toBeNull();
  });

  it('404: an unknown provider → PROVIDER_NOT_FOUND', async () => {
    expectApiError(await failure(client().providers.get(999_999)), 'PROVIDER_NOT_FOUND', 404);
    expectApiError(await failure(client().providers.stats(999_999)), 'PROVIDER_NOT_FOUND', 404);
    const signedIn = createClient({ baseUrl: api.url, signer: evmAccountSigner() });
    expectApiError(await failure(signedIn.providers.follow(999_999)), 'PROVIDER_NOT_FOUND', 404);
  });

  it('400: out-of-range input → VALIDATION_ERROR with issues naming the field', async () => {
    const error = await failure(client().providers.list({ limit: 1000 }));
    expectApiError(error, 'VALIDATION_ERROR', 400);
    expect(error.issues).toEqual([{ path: ['limit'], message: expect.any(String) }]);

    expectApiError(await failure(client().providers.get(0)), 'VALIDATION_ERROR', 400);
    // A JavaScript caller can get past the types; the API still answers in the contract's terms.
    const untyped = client().providers.list as (query: unknown) => Promise<unknown>;
    const sortError = await failure(untyped({ sortBy: 'popularity' }));
    expect(sortError.issues.map((issue) => issue.path)).toEqual([['sortBy']]);
  });

  it('400: a malformed wallet → INVALID_WALLET', async () => {
    expectApiError(await failure(client().auth.nonce('not-a-wallet')), 'INVALID_WALLET', 400);
    const bad: Signer = { chain: 'evm', getAddress: async () => '0x123', signMessage: async () => '0x00' };
    expectApiError(await failure(createClient({ baseUrl: api.url, signer: bad }).signIn()), 'INVALID_WALLET', 400);
  });

  it('401: verify with an unknown nonce → INVALID_NONCE', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const error = await failure(
      client().auth.verify({ wallet: account.address, nonce: 'a'.repeat(32), signature: '0x00' }),
    );
    expectApiError(error, 'INVALID_NONCE', 401);
  });
});

describe('no answer from the API → NETWORK_ERROR', () => {
  it('a refused connection → NETWORK_ERROR, status 0, with the cause kept', async () => {
    const { url, server } = await startHttp((_req, res) => res.end());
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const signal = createClient({ baseUrl: url, signer: evmAccountSigner() });
    for (const call of [signal.providers.list(), signal.signIn(), signal.me.get()]) {
      const error = await failure(call);
      expectApiError(error, 'NETWORK_ERROR', 0);
      expect(error.message).toContain(url);
      expect(error.cause).toBeDefined();
    }
  });

  it('a server that is not the API (a proxy error page) → NETWORK_ERROR with its HTTP status', async () => {
    const { url, server } = await startHttp((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>Bad Gateway</body></html>');
    });
    try {
      const error = await failure(createClient({ baseUrl: url }).providers.list());
      expectApiError(error, 'NETWORK_ERROR', 502);
      expect(error.message).toContain('HTTP 502');
    } finally {
      server.close();
    }
  });

  it('a server asking the wallet to sign anything but the contract message → refused before signing', async () => {
    // A real server answering auth.nonce like the API would, but with a message of its own.
    const { url, server } = await startHttp((_req, res) => {
      const nonce = 'a'.repeat(32);
      const data = { nonce, message: `Sign in to another-site.example: ${nonce}`, wallet: '0x', chain: 'evm' };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ result: { data } }));
    });
    try {
      const counted = countingSigner(evmAccountSigner());
      const error = await failure(createClient({ baseUrl: url, signer: counted.signer }).signIn());
      expectApiError(error, 'NETWORK_ERROR', 200);
      expect(error.message).toMatch(/unexpected message/);
      expect(counted.signatures).toBe(0);
    } finally {
      server.close();
    }
  });
});

describe('wallet errors', () => {
  it('a declined signature reaches the caller as the wallet threw it, and nothing is stored', async () => {
    class UserRejectedRequestError extends Error {}
    const account = privateKeyToAccount(generatePrivateKey());
    const declining: Signer = {
      chain: 'evm',
      getAddress: async () => account.address,
      signMessage: async () => {
        throw new UserRejectedRequestError('User rejected the request.');
      },
    };
    const signal = createClient({ baseUrl: api.url, signer: declining });
    await expect(signal.signIn()).rejects.toBeInstanceOf(UserRejectedRequestError);
    await expect(signal.me.get()).rejects.toBeInstanceOf(UserRejectedRequestError);
    expect(await signal.getToken()).toBeNull();
  });
});
