/**
 * Attacks on the bearer token and the nonce: forged, tampered, expired and orphaned tokens,
 * a race of concurrent verifies of one nonce, and state that must survive a restart.
 */
import { base64url, decodeJwt, decodeProtectedHeader, generateKeyPair, type JWK, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, evmWallet, expectError, type Reply, signIn, solanaWallet, useApi, useServerPair } from '../harness.js';

const THIRTY_DAYS_MS = 2_592_000 * 1000;

function expectUnauthorized(reply: Reply, code = 'UNAUTHORIZED') {
  expectError(reply, 401, code);
  expect(reply.headers.get('www-authenticate') ?? '').toMatch(/^Bearer/);
}

/** Replaces the character at `index` of `text` with a different base64url character. */
function flipAt(text: string, index: number): string {
  const c = text[index];
  return text.slice(0, index) + (c === 'A' ? 'B' : 'A') + text.slice(index + 1);
}

describe('bearer tokens on postgres', () => {
  const api = useApi('postgres');
  let token: string;
  let jwks: { keys: JWK[] };

  beforeAll(async () => {
    ({ token } = await signIn(api, evmWallet()));
    jwks = (await call(api, 'GET', '/.well-known/jwks.json')).body;
  });

  const me = (authorization?: string) =>
    call(api, 'GET', '/me', authorization === undefined ? {} : { headers: { authorization } });

  it('the genuine token works (baseline)', async () => {
    expect((await me(`Bearer ${token}`)).status).toBe(200);
  });

  it('no Authorization header → 401 UNAUTHORIZED with WWW-Authenticate: Bearer', async () => {
    expectUnauthorized(await me());
  });

  it.each([
    ['Basic', 'Basic dXNlcjpwYXNz'],
    ['Bearer with nothing', 'Bearer'],
    ['Bearer with spaces only', 'Bearer    '],
    ['Bearer a.b.c', 'Bearer a.b.c'],
    ['Bearer garbage', 'Bearer not-a-token'],
    ['Bearer with two tokens', 'Bearer x.y.z x.y.z'],
    ['the token without the scheme', '__TOKEN__'],
    ['Token scheme', 'Token __TOKEN__'],
  ])('%s → 401 UNAUTHORIZED', async (_name, header) => {
    expectUnauthorized(await me(header.replace('__TOKEN__', token)));
  });

  it('a payload with one character changed → 401 UNAUTHORIZED', async () => {
    const [header, payload, signature] = token.split('.') as [string, string, string];
    for (const index of [2, Math.floor(payload.length / 2), payload.length - 3]) {
      expectUnauthorized(await me(`Bearer ${header}.${flipAt(payload, index)}.${signature}`));
    }
  });

  it('a signature with one character changed → 401 UNAUTHORIZED', async () => {
    const [header, payload, signature] = token.split('.') as [string, string, string];
    for (const index of [0, Math.floor(signature.length / 2), signature.length - 3]) {
      expectUnauthorized(await me(`Bearer ${header}.${payload}.${flipAt(signature, index)}`));
    }
  });

  it('a header with one character changed, or the signature removed → 401 UNAUTHORIZED', async () => {
    const [header, payload] = token.split('.') as [string, string, string];
    expectUnauthorized(await me(`Bearer ${flipAt(header, 5)}.${token.split('.').slice(1).join('.')}`));
    expectUnauthorized(await me(`Bearer ${header}.${payload}.`));
    expectUnauthorized(await me(`Bearer ${header}.${payload}`));
  });

  it('a token claiming another user (payload re-encoded, signature kept) → 401 UNAUTHORIZED', async () => {
    const [header, , signature] = token.split('.') as [string, string, string];
    const claims = { ...decodeJwt(token), sub: String(Number(decodeJwt(token).sub) + 1000) };
    const payload = base64url.encode(JSON.stringify(claims));
    expectUnauthorized(await me(`Bearer ${header}.${payload}.${signature}`));
  });

  it('alg none → 401 UNAUTHORIZED', async () => {
    const { kid } = decodeProtectedHeader(token);
    const payload = token.split('.')[1];
    for (const alg of ['none', 'None', 'NONE']) {
      const header = base64url.encode(JSON.stringify({ alg, typ: 'JWT', kid }));
      expectUnauthorized(await me(`Bearer ${header}.${payload}.`));
    }
  });

  it('HS256 signed with the server public key as the HMAC secret → 401 UNAUTHORIZED', async () => {
    const jwk = jwks.keys[0] as JWK;
    const claims = decodeJwt(token);
    const secrets = [
      jwk.x ? base64url.decode(jwk.x) : undefined,
      jwk.x ? new TextEncoder().encode(jwk.x) : undefined,
      new TextEncoder().encode(JSON.stringify(jwk)),
      new TextEncoder().encode(JSON.stringify(jwks)),
    ].filter((s): s is Uint8Array => s !== undefined);
    for (const secret of secrets) {
      const forged = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', kid: jwk.kid, typ: 'JWT' })
        .sign(secret);
      expectUnauthorized(await me(`Bearer ${forged}`));
    }
  });

  it('signed by another Ed25519 key under the server kid → 401 UNAUTHORIZED', async () => {
    const { kid } = decodeProtectedHeader(token);
    const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const forged = await new SignJWT(decodeJwt(token))
      .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT' })
      .sign(privateKey);
    expectUnauthorized(await me(`Bearer ${forged}`));
  });

  it('signed by another ES256 key under the server kid → 401 UNAUTHORIZED', async () => {
    const { kid } = decodeProtectedHeader(token);
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT(decodeJwt(token))
      .setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' })
      .sign(privateKey);
    expectUnauthorized(await me(`Bearer ${forged}`));
  });

  it('a deleted user: valid token → 404 WALLET_NOT_FOUND on /me', async () => {
    const wallet = solanaWallet();
    const session = await signIn(api, wallet);
    expect((await me(`Bearer ${session.token}`)).status).toBe(200);
    await api.db.db.deleteFrom('users').where('id', '=', session.user.id).execute();
    expectError(await me(`Bearer ${session.token}`), 404, 'WALLET_NOT_FOUND');
    // Signing in again makes a new user for the wallet.
    const again = await signIn(api, wallet);
    expect(again.isNewUser).toBe(true);
    expect(again.user.id).not.toBe(session.user.id);
  });

  it('50 concurrent verifies of one nonce: exactly one token, the rest INVALID_NONCE, one user row', async () => {
    const wallet = evmWallet();
    const nonce = await call(api, 'GET', `/auth/nonce?wallet=${wallet.address}`);
    const body = { wallet: wallet.address, nonce: nonce.body.nonce, signature: await wallet.sign(nonce.body.message) };
    const replies = await Promise.all(Array.from({ length: 50 }, () => call(api, 'POST', '/auth/verify', { body })));
    const ok = replies.filter((reply) => reply.status === 200);
    expect(ok).toHaveLength(1);
    expect(ok[0]?.body.isNewUser).toBe(true);
    for (const reply of replies.filter((r) => r.status !== 200)) expectError(reply, 401, 'INVALID_NONCE');
    const rows = await api.db.db.selectFrom('users').select('id').where('wallet', '=', wallet.address).execute();
    expect(rows).toHaveLength(1);
  });

  // Last in this block: it moves the server clock 30 days ahead.
  it('an expired token → 401 TOKEN_EXPIRED with WWW-Authenticate', async () => {
    const session = await signIn(api, solanaWallet());
    api.advanceClock(THIRTY_DAYS_MS - 60_000);
    expect((await me(`Bearer ${session.token}`)).status).toBe(200);
    api.advanceClock(2 * 60_000);
    expectUnauthorized(await me(`Bearer ${session.token}`), 'TOKEN_EXPIRED');
    // A tampered expired token is not "expired", it is invalid.
    const [h, p, s] = session.token.split('.') as [string, string, string];
    expectUnauthorized(await me(`Bearer ${h}.${p}.${flipAt(s, 10)}`));
  });
});

describe('two servers sharing one PostgreSQL database and one DATA_DIR', () => {
  const { a, b } = useServerPair();

  it('concurrent verifies of one nonce across both servers: exactly one token', async () => {
    const wallet = solanaWallet();
    const nonce = await call(a, 'GET', `/auth/nonce?wallet=${wallet.address}`);
    const body = { wallet: wallet.address, nonce: nonce.body.nonce, signature: await wallet.sign(nonce.body.message) };
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => call(i % 2 === 0 ? a : b, 'POST', '/auth/verify', { body })),
    );
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(1);
    for (const reply of replies.filter((r) => r.status !== 200)) expectError(reply, 401, 'INVALID_NONCE');
  });

  it('each accepts the tokens of the other', async () => {
    const session = await signIn(a, evmWallet());
    const me = await call(b, 'GET', '/me', { token: session.token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(session.user.id);
  });
});

describe('restart on pglite with a kept DATA_DIR', () => {
  const api = useApi('pglite');

  it('keeps the signing key, the used nonces and the users', async () => {
    const wallet = evmWallet();
    const nonce = await call(api, 'GET', `/auth/nonce?wallet=${wallet.address}`);
    const body = { wallet: wallet.address, nonce: nonce.body.nonce, signature: await wallet.sign(nonce.body.message) };
    const first = await call(api, 'POST', '/auth/verify', { body });
    expect(first.status).toBe(200);
    const unused = await call(api, 'GET', `/auth/nonce?wallet=${wallet.address}`);
    const jwksBefore = (await call(api, 'GET', '/.well-known/jwks.json')).body;

    await api.restart();

    expect((await call(api, 'GET', '/.well-known/jwks.json')).body).toEqual(jwksBefore);
    const me = await call(api, 'GET', '/me', { token: first.body.token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(first.body.user.id);

    expectError(await call(api, 'POST', '/auth/verify', { body }), 401, 'INVALID_NONCE');

    // A nonce issued before the restart and not used is still good.
    const viaOld = await call(api, 'POST', '/auth/verify', {
      body: { wallet: wallet.address, nonce: unused.body.nonce, signature: await wallet.sign(unused.body.message) },
    });
    expect(viaOld.status).toBe(200);
    expect(viaOld.body.user.id).toBe(first.body.user.id);

    const again = await signIn(api, wallet);
    expect(again.isNewUser).toBe(false);
    expect(again.user.id).toBe(first.body.user.id);
  });
});
