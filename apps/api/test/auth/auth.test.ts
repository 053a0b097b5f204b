import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, evmWallet, signIn, solanaWallet, type TestWallet, useApi } from '../harness.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe.each(['postgres', 'pglite'] as const)('wallet sign-in over REST on %s', (backend) => {
  const api = useApi(backend);

  describe.each([
    ['evm', evmWallet],
    ['solana', solanaWallet],
  ] as const)('%s wallet', (chain, makeWallet) => {
    let wallet: TestWallet;
    beforeAll(() => {
      wallet = makeWallet();
    });

    it('issues a nonce bound to the canonical wallet with the exact message to sign', async () => {
      const reply = await call(api, 'GET', `/auth/nonce?wallet=${wallet.address}`);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({
        nonce: expect.stringMatching(/^[A-Za-z0-9]{58}$/),
        message: `Sign this message to authenticate: ${reply.body.nonce}`,
        wallet: wallet.address,
        chain,
        format: 'plain',
        expiresAt: expect.stringMatching(ISO),
      });
      const ttl = Date.parse(reply.body.expiresAt) - Date.now();
      expect(ttl).toBeGreaterThan(290_000);
      expect(ttl).toBeLessThanOrEqual(300_000);
    });

    it('signs in: first login creates the user, the token works on /me, a second login finds the same user', async () => {
      const first = await signIn(api, wallet);
      expect(first).toMatchObject({ tokenType: 'Bearer', isNewUser: true });
      expect(first.user).toEqual({
        id: expect.any(Number),
        wallet: wallet.address,
        chain,
        createdAt: expect.stringMatching(ISO),
        lastLoginAt: expect.stringMatching(ISO),
        followingCount: 0,
        wallets: [
          {
            wallet: wallet.address,
            chain,
            linkedAt: first.user.createdAt,
            primary: true,
            lastLoginAt: first.user.lastLoginAt,
          },
        ],
      });
      const me = await call(api, 'GET', '/me', { token: first.token });
      expect(me.status).toBe(200);
      expect(me.body).toEqual(first.user);

      const second = await signIn(api, wallet);
      expect(second.isNewUser).toBe(false);
      expect(second.user.id).toBe(first.user.id);
      expect(second.token).not.toBe(first.token);
    });

    it('issues a 30-day JWT with the contract claims, verifiable with the published JWKS', async () => {
      const { token, expiresAt, user } = await signIn(api, wallet);
      const claims = decodeJwt(token);
      expect(claims.exp! - claims.iat!).toBe(2_592_000);
      expect(Date.parse(expiresAt)).toBe(claims.exp! * 1000);
      expect(claims).toMatchObject({
        sub: String(user.id),
        wallet: wallet.address,
        chain,
        iss: 'signal-auth',
        aud: 'signal-api',
        jti: expect.any(String),
      });
      const header = decodeProtectedHeader(token);
      expect(['EdDSA', 'ES256']).toContain(header.alg);
      const jwks = await call(api, 'GET', '/.well-known/jwks.json');
      expect(jwks.status).toBe(200);
      const verified = await jwtVerify(token, createLocalJWKSet(jwks.body), {
        issuer: 'signal-auth',
        audience: 'signal-api',
      });
      expect(verified.payload.sub).toBe(String(user.id));
    });
  });

  it('treats lowercase, uppercase and checksummed spellings of an EVM address as one user', async () => {
    const wallet = evmWallet();
    const hex = wallet.address.slice(2);
    const spellings = [`0x${hex.toLowerCase()}`, `0x${hex.toUpperCase()}`, wallet.address];
    const ids = new Set<number>();
    for (const spelling of spellings) {
      const nonce = await call(api, 'GET', `/auth/nonce?wallet=${spelling}`);
      expect(nonce.body.wallet).toBe(wallet.address);
      const verify = await call(api, 'POST', '/auth/verify', {
        body: { wallet: spelling, nonce: nonce.body.nonce, signature: await wallet.sign(nonce.body.message) },
      });
      expect(verify.status).toBe(200);
      expect(verify.body.user.wallet).toBe(wallet.address);
      ids.add(verify.body.user.id);
    }
    expect(ids.size).toBe(1);
  });

  it('keeps earlier unused nonces valid when a new one is issued', async () => {
    const wallet = evmWallet();
    const first = await call(api, 'GET', `/auth/nonce?wallet=${wallet.address}`);
    const second = await call(api, 'GET', `/auth/nonce?wallet=${wallet.address}`);
    expect(second.body.nonce).not.toBe(first.body.nonce);
    for (const nonce of [first, second]) {
      const verify = await call(api, 'POST', '/auth/verify', {
        body: { wallet: wallet.address, nonce: nonce.body.nonce, signature: await wallet.sign(nonce.body.message) },
      });
      expect(verify.status).toBe(200);
    }
  });

  it('accepts an EVM signature without the 0x prefix', async () => {
    const wallet = evmWallet();
    const nonce = await call(api, 'GET', `/auth/nonce?wallet=${wallet.address}`);
    const signature = (await wallet.sign(nonce.body.message)).slice(2);
    const verify = await call(api, 'POST', '/auth/verify', {
      body: { wallet: wallet.address, nonce: nonce.body.nonce, signature },
    });
    expect(verify.status).toBe(200);
  });
});
