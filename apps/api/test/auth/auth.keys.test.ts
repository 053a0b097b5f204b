/**
 * Tokens end to end with a signing key the test holds: claims the server must refuse although
 * the signature is genuine (issuer, audience, future iat, kid), and a key rotation across a
 * restart with JWT_PREVIOUS_PUBLIC_KEYS, where nobody is signed out.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, randomUUID } from 'node:crypto';
import { scratchDatabaseForTests } from '@signal/test-support/vitest';
import { calculateJwkThumbprint, decodeProtectedHeader, type JWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, evmWallet, expectError, type Reply, signIn, solanaWallet, startApi, type TestApi } from '../harness.js';

function pemPair(type: 'ed25519' | 'p256') {
  const { privateKey } =
    type === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const publicPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
  return { privatePem, publicPem };
}

const kidOf = (key: KeyObject) => calculateJwkThumbprint(createPublicKey(key).export({ format: 'jwk' }) as JWK);

type Change = { claims?: Record<string, unknown>; header?: Record<string, unknown> };

function expectUnauthorized(reply: Reply, code = 'UNAUTHORIZED') {
  expectError(reply, 401, code);
  expect(reply.headers.get('www-authenticate') ?? '').toMatch(/^Bearer/);
}

describe('genuinely signed tokens with claims the server must refuse', () => {
  const key = pemPair('ed25519');
  const privateKey = createPrivateKey(key.privatePem);
  let api: TestApi;
  let kid: string;
  let userId: number;
  let wallet: string;
  let sessionId: string;
  let otherUsersSessionId: string;

  beforeAll(async () => {
    api = await startApi('postgres', { env: { JWT_PRIVATE_KEY: key.privatePem } });
    kid = await kidOf(privateKey);
    const session = await signIn(api, evmWallet());
    userId = session.user.id;
    wallet = session.user.wallet;
    sessionId = session.sessionId;
    otherUsersSessionId = (await signIn(api, evmWallet())).sessionId;
  });
  afterAll(async () => {
    await api?.stop();
  });

  /** A token as the server would issue it, with `change` applied to the claims or header. */
  async function forge(change: Change = {}) {
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      sub: String(userId),
      wallet,
      chain: 'evm',
      iss: api.config.jwtIssuer,
      aud: api.config.jwtAudience,
      iat: now,
      exp: now + 2_592_000,
      jti: randomUUID(),
      sid: sessionId,
      ...change.claims,
    };
    return new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT', ...change.header }).sign(privateKey);
  }
  const me = async (token: string) => call(api, 'GET', '/me', { token });

  it('a token built like the server builds them is accepted (the forgeries below differ in one thing)', async () => {
    const reply = await me(await forge());
    expect(reply.status).toBe(200);
    expect(reply.body.id).toBe(userId);
    const { kid: serverKid } = decodeProtectedHeader((await signIn(api, solanaWallet())).token);
    expect(serverKid).toBe(kid);
  });

  it.each<[string, Change]>([
    ['another issuer', { claims: { iss: 'someone-else' } }],
    ['no issuer', { claims: { iss: undefined } }],
    ['another audience', { claims: { aud: 'another-api' } }],
    ['an audience list without ours', { claims: { aud: ['a', 'b'] } }],
    ['iat 10 minutes in the future', { claims: { iat: Math.floor(Date.now() / 1000) + 600 } }],
    ['an unknown kid', { header: { kid: 'not-a-key-we-know' } }],
    ['no kid', { header: { kid: undefined } }],
    ['the other algorithm named in the header', { header: { alg: 'ES256' } }],
    ['no jti', { claims: { jti: undefined } }],
  ])('%s → 401 UNAUTHORIZED', async (_name, change) => {
    let token: string;
    try {
      token = await forge(change);
    } catch {
      // jose refuses to sign some headers (ES256 with an Ed25519 key): splice the header in.
      const genuine = await forge({ claims: change.claims ?? {} });
      const header = Buffer.from(JSON.stringify({ alg: 'EdDSA', kid, typ: 'JWT', ...change.header })).toString(
        'base64url',
      );
      token = [header, ...genuine.split('.').slice(1)].join('.');
    }
    expectUnauthorized(await me(token));
  });

  it('a token from before sessions (no sid) → 401 UNAUTHORIZED saying to sign in again', async () => {
    const reply = await me(await forge({ claims: { sid: undefined } }));
    expectUnauthorized(reply);
    expect(reply.body.message).toMatch(/before sessions.*sign in again/);
  });

  it("a genuine key naming an unknown session, or another user's, → 401 SESSION_REVOKED", async () => {
    expectUnauthorized(await me(await forge({ claims: { sid: randomUUID() } })), 'SESSION_REVOKED');
    expectUnauthorized(await me(await forge({ claims: { sid: otherUsersSessionId } })), 'SESSION_REVOKED');
  });

  it('iat a few seconds ahead (clock skew between servers) is accepted', async () => {
    expect((await me(await forge({ claims: { iat: Math.floor(Date.now() / 1000) + 10 } }))).status).toBe(200);
  });

  it('expired → 401 TOKEN_EXPIRED; exp beyond the 30 s tolerance only', async () => {
    const now = Math.floor(Date.now() / 1000);
    expectUnauthorized(await me(await forge({ claims: { iat: now - 3_000, exp: now - 60 } })), 'TOKEN_EXPIRED');
    expect((await me(await forge({ claims: { iat: now - 3_000, exp: now - 5 } }))).status).toBe(200);
  });
});

describe('signing key rotation across a restart (JWT_PREVIOUS_PUBLIC_KEYS)', () => {
  const a = pemPair('ed25519');
  // Rotating to the other algorithm as well: a P-256 key signs ES256.
  const b = pemPair('p256');
  const scratch = scratchDatabaseForTests();
  let running: TestApi | undefined;

  const start = async (env: Record<string, string>) => {
    await running?.stop();
    running = await startApi('postgres', { databaseUrl: scratch.url, env });
    return running;
  };

  afterAll(async () => {
    await running?.stop();
  });

  it('tokens of key A keep working after the switch to key B, until A is retired', async () => {
    const kidA = await kidOf(createPrivateKey(a.privatePem));
    const kidB = await kidOf(createPrivateKey(b.privatePem));

    let api = await start({ JWT_PRIVATE_KEY: a.privatePem });
    const wallet = evmWallet();
    const old = await signIn(api, wallet);
    expect(decodeProtectedHeader(old.token)).toMatchObject({ alg: 'EdDSA', kid: kidA });
    const pending = (await call(api, 'GET', `/auth/nonce?wallet=${wallet.address}`)).body;

    // Rotate: B signs, A's public key still verifies.
    api = await start({ JWT_PRIVATE_KEY: b.privatePem, JWT_PREVIOUS_PUBLIC_KEYS: a.publicPem });
    // A nonce issued under A is not accepted under B (its MAC secret is derived from the private
    // key, and only A's public half is left): the sign-in in flight asks for a new nonce.
    const stale = await call(api, 'POST', '/auth/verify', {
      body: { wallet: wallet.address, nonce: pending.nonce, signature: await wallet.sign(pending.message) },
    });
    expect(stale.status).toBe(401);
    expect(stale.body.code).toBe('INVALID_NONCE');
    const jwks = (await call(api, 'GET', '/.well-known/jwks.json')).body as { keys: JWK[] };
    expect(jwks.keys.map((k) => k.kid).sort()).toEqual([kidA, kidB].sort());
    expect(jwks.keys.find((k) => k.kid === kidB)).toMatchObject({ alg: 'ES256', kty: 'EC', crv: 'P-256' });
    for (const key of jwks.keys) expect(key).not.toHaveProperty('d');

    const meOld = await call(api, 'GET', '/me', { token: old.token });
    expect(meOld.status).toBe(200);
    expect(meOld.body.id).toBe(old.user.id);
    const fresh = await signIn(api, wallet);
    expect(decodeProtectedHeader(fresh.token)).toMatchObject({ alg: 'ES256', kid: kidB });
    expect(fresh.user.id).toBe(old.user.id);
    // Follows work with the old token too: it is a full session, not read-only.
    expect((await call(api, 'GET', '/me/following', { token: old.token })).status).toBe(200);

    // After the longest token lifetime, A is dropped: its tokens stop, B's go on.
    api = await start({ JWT_PRIVATE_KEY: b.privatePem });
    expect((await call(api, 'GET', '/.well-known/jwks.json')).body.keys.map((k: JWK) => k.kid)).toEqual([kidB]);
    expectUnauthorized(await call(api, 'GET', '/me', { token: old.token }));
    expect((await call(api, 'GET', '/me', { token: fresh.token })).status).toBe(200);
  });
});
