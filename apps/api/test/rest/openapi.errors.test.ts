/**
 * The error examples of /openapi.json are what the server answers: each code is provoked on a
 * real server, over REST, on an operation that lists it, and the answer's body must equal the
 * document's example for that operation, status and code, to the letter. The examples are made by
 * the constructors the service throws (openapi/error-docs.ts); this test fails if one is ever
 * written by hand again and drifts. INTERNAL_ERROR and SERVICE_UNAVAILABLE are not provoked: their
 * examples come out of toWireError, the mapping every answer goes through.
 */
import { randomBytes } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, evmWallet, type Reply, signIn, type TestWallet, useApi } from '../harness.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;

/**
 * The wallet the examples name (0xf39F…2266): the first well-known development account of
 * Hardhat and Anvil, so an answer that names the wallet matches the example exactly.
 */
const exampleAccount = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const exampleWallet: TestWallet = {
  address: exampleAccount.address,
  chain: 'evm',
  sign: (message) => exampleAccount.signMessage({ message }),
};

/** A session id no user has (the SESSION_NOT_FOUND example's). */
const UNKNOWN_SESSION = 'c81d4e2a-5f60-4b7e-9a13-2e4f6b8d0c15';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, any> }>> };

function exampleIn(doc: Doc, method: string, path: string, status: number, code: string): unknown {
  const response = doc.paths[path]?.[method.toLowerCase()]?.responses[status];
  return response?.content?.['application/json']?.examples?.[code]?.value;
}

describe('the error examples of /openapi.json are the answers', () => {
  const api = useApi('postgres', { env: { ADMIN_KEY } });
  let doc: Doc;
  beforeAll(async () => {
    doc = (await call(api, 'GET', '/openapi.json')).body;
  });

  /** Asserts that `reply` is an error the document shows for `method path`, word for word. */
  function expectExample(reply: Reply, method: string, path: string, code: string) {
    expect(reply.body?.code, JSON.stringify(reply.body)).toBe(code);
    const example = exampleIn(doc, method, path, reply.status, code);
    expect(example, `${method} ${path} documents no ${reply.status} ${code}`).toBeDefined();
    expect(reply.body).toEqual(example);
  }

  const nonceFor = async (wallet: TestWallet, token?: string, purpose = '') =>
    (await call(api, 'GET', `/auth/nonce?wallet=${wallet.address}${purpose}`, { token })).body as {
      nonce: string;
      message: string;
    };

  it('VALIDATION_ERROR: the example field of GET /providers, refused', async () => {
    const example = exampleIn(doc, 'GET', '/providers', 400, 'VALIDATION_ERROR') as { issues: { path: string[] }[] };
    const field = example.issues[0]!.path[0]!;
    expectExample(await call(api, 'GET', `/providers?${field}=x`), 'GET', '/providers', 'VALIDATION_ERROR');
  });

  it('INVALID_WALLET, INVALID_SIGNATURE, PAYLOAD_TOO_LARGE on sign-in', async () => {
    // The example wallet with one letter's case changed: its EIP-55 checksum fails.
    const flipped = exampleWallet.address.replace(/[a-f]/, (c) => c.toUpperCase());
    expectExample(await call(api, 'GET', `/auth/nonce?wallet=${flipped}`), 'GET', '/auth/nonce', 'INVALID_WALLET');
    const { nonce, message } = await nonceFor(exampleWallet);
    const signature = await evmWallet().sign(message);
    const verify = (body: unknown) => call(api, 'POST', '/auth/verify', { body });
    expectExample(
      await verify({ wallet: exampleWallet.address, nonce, signature }),
      'POST',
      '/auth/verify',
      'INVALID_SIGNATURE',
    );
    const huge = { wallet: exampleWallet.address, nonce, signature: 'x'.repeat(40_000) };
    expectExample(await verify(huge), 'POST', '/auth/verify', 'PAYLOAD_TOO_LARGE');
  });

  it('UNAUTHORIZED, FORBIDDEN both ways, SESSION_NOT_FOUND, SESSION_REVOKED, PROVIDER_NOT_FOUND, NOT_FOUND', async () => {
    expectExample(await call(api, 'GET', '/me'), 'GET', '/me', 'UNAUTHORIZED');
    const { token } = await signIn(api, evmWallet());
    expectExample(
      await call(api, 'POST', '/providers', { token, body: { name: 'Refused' } }),
      'POST',
      '/providers',
      'FORBIDDEN',
    );
    expectExample(await call(api, 'GET', '/me', { token: ADMIN_KEY }), 'GET', '/me', 'FORBIDDEN');
    expectExample(
      await call(api, 'DELETE', `/me/sessions/${UNKNOWN_SESSION}`, { token }),
      'DELETE',
      '/me/sessions/{id}',
      'SESSION_NOT_FOUND',
    );
    expectExample(await call(api, 'GET', '/providers/5'), 'GET', '/providers/{id}', 'PROVIDER_NOT_FOUND');
    expectExample(await call(api, 'GET', '/providers/5/statistics'), 'GET', '/providers/{id}', 'NOT_FOUND');
    expect((await call(api, 'POST', '/auth/logout', { token })).status).toBe(200);
    expectExample(await call(api, 'GET', '/me', { token }), 'GET', '/me', 'SESSION_REVOKED');
  });

  it('LAST_WALLET and WALLET_ALREADY_LINKED with the example wallet', async () => {
    const owner = await signIn(api, exampleWallet);
    expectExample(
      await call(api, 'DELETE', `/me/wallets/${exampleWallet.address}`, { token: owner.token }),
      'DELETE',
      '/me/wallets/{wallet}',
      'LAST_WALLET',
    );
    const other = await signIn(api, evmWallet());
    const { nonce, message } = await nonceFor(exampleWallet, other.token, '&purpose=link');
    const signature = await exampleWallet.sign(message);
    expectExample(
      await call(api, 'POST', '/me/wallets', {
        token: other.token,
        body: { wallet: exampleWallet.address, nonce, signature },
      }),
      'POST',
      '/me/wallets',
      'WALLET_ALREADY_LINKED',
    );
  });

  it('IDEMPOTENCY_CONFLICT: one key, another body', async () => {
    const create = (name: string) =>
      call(api, 'POST', '/providers', { token: ADMIN_KEY, body: { name }, headers: { 'idempotency-key': 'one-key' } });
    expect((await create('First Body')).status).toBe(201);
    expectExample(await create('Second Body'), 'POST', '/providers', 'IDEMPOTENCY_CONFLICT');
  });

  it('WALLET_NOT_FOUND: the token of a user deleted since', async () => {
    const { token, user } = await signIn(api, evmWallet());
    await api.db.db.deleteFrom('users').where('id', '=', user.id).execute();
    expectExample(await call(api, 'GET', '/me', { token }), 'GET', '/me', 'WALLET_NOT_FOUND');
  });

  // Last: they move the server's clock.
  it('INVALID_NONCE (expired) and TOKEN_EXPIRED', async () => {
    const { token } = await signIn(api, evmWallet());
    const { nonce, message } = await nonceFor(exampleWallet);
    const signature = await exampleWallet.sign(message);
    api.advanceClock(31 * 86_400_000);
    expectExample(
      await call(api, 'POST', '/auth/verify', { body: { wallet: exampleWallet.address, nonce, signature } }),
      'POST',
      '/auth/verify',
      'INVALID_NONCE',
    );
    expectExample(await call(api, 'GET', '/me', { token }), 'GET', '/me', 'TOKEN_EXPIRED');
  });
});

describe('the RATE_LIMITED example is the answer', () => {
  const api = useApi('postgres', { env: { AUTH_RATE_LIMIT_PER_MINUTE: '60' } });

  it('the 61st nonce of a minute: the example but for the seconds left', async () => {
    const doc = (await call(api, 'GET', '/openapi.json')).body as Doc;
    let reply: Reply | undefined;
    for (let i = 0; i <= 60; i += 1) reply = await call(api, 'GET', `/auth/nonce?wallet=${exampleWallet.address}`);
    expect(reply!.status).toBe(429);
    const example = exampleIn(doc, 'GET', '/auth/nonce', 429, 'RATE_LIMITED') as { message: string };
    const seconds = (text: string) => text.replace(/retry in \d+ s$/, 'retry in N s');
    expect(reply!.body.code).toBe('RATE_LIMITED');
    expect(seconds(reply!.body.message)).toBe(seconds(example.message));
  });
});
