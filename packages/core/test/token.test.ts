import { createHmac, createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../src/errors.js';
import { createTokenService, TOKEN_TTL_SECONDS, type TokenService, type TokenServiceOptions } from '../src/token.js';

const ISSUER = 'signal-test';
const AUDIENCE = 'signal-test-api';
const SUBJECT = {
  userId: 42,
  wallet: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  chain: 'evm' as const,
  sessionId: '5b0e6f9a-3c4d-4e5f-8a9b-0c1d2e3f4a5b',
};
const DAY = 86_400_000;

interface KeyPems {
  privatePem: string;
  publicPem: string;
}

function keyPems(type: 'ed25519' | 'p256' | 'secp256k1'): KeyPems {
  const { privateKey, publicKey } =
    type === 'ed25519'
      ? generateKeyPairSync('ed25519')
      : generateKeyPairSync('ec', { namedCurve: type === 'p256' ? 'P-256' : 'secp256k1' });
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }) as string,
  };
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const decodePart = (token: string, index: 0 | 1) =>
  JSON.parse(Buffer.from(token.split('.')[index] as string, 'base64url').toString('utf8')) as Record<string, unknown>;

/** Awaits `promise` and returns its DomainError; fails if it resolves or throws something else. */
async function rejection(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a DomainError, but the promise resolved');
}

async function expectAuthError(promise: Promise<unknown>, code: 'UNAUTHORIZED' | 'TOKEN_EXPIRED'): Promise<void> {
  const error = await rejection(promise);
  expect(error.code).toBe(code);
  expect(error.status).toBe(401);
  expect(error.challenge).toMatchObject({ error: 'invalid_token' });
}

const ALGORITHMS = [
  { name: 'EdDSA', keyType: 'ed25519', jwk: { kty: 'OKP', crv: 'Ed25519' } },
  { name: 'ES256', keyType: 'p256', jwk: { kty: 'EC', crv: 'P-256' } },
] as const;

describe.each(ALGORITHMS)('token service with an $name key', ({ name: alg, keyType, jwk: jwkShape }) => {
  const keys = keyPems(keyType);
  const otherKeys = keyPems(keyType);
  const service = (overrides: Partial<TokenServiceOptions> = {}): Promise<TokenService> =>
    createTokenService({ privateKeyPem: keys.privatePem, issuer: ISSUER, audience: AUDIENCE, ...overrides });

  /** The kid the service puts in its headers. */
  async function currentKid(tokens: TokenService): Promise<string> {
    const { token } = await tokens.issue(SUBJECT);
    return decodePart(token, 0).kid as string;
  }

  /** A token with the standard claims, signed by `privatePem` under the given header. */
  function signWith(privatePem: string, header: Record<string, unknown>, claims: Record<string, unknown> = {}) {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      sub: String(SUBJECT.userId),
      wallet: SUBJECT.wallet,
      chain: SUBJECT.chain,
      iss: ISSUER,
      aud: AUDIENCE,
      iat: now,
      exp: now + 3600,
      jti: '00000000-0000-4000-8000-000000000000',
      sid: SUBJECT.sessionId,
      ...claims,
    })
      .setProtectedHeader({ alg, typ: 'JWT', ...header })
      .sign(createPrivateKey(privatePem));
  }

  it('round-trips issue → verify with userId, wallet and chain', async () => {
    const tokens = await service();
    const issued = await tokens.issue(SUBJECT);
    const claims = await tokens.verify(issued.token);
    expect(claims.userId).toBe(SUBJECT.userId);
    expect(claims.wallet).toBe(SUBJECT.wallet);
    expect(claims.chain).toBe('evm');
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(claims.sessionId).toBe(SUBJECT.sessionId);
    expect(claims.expiresAt.getTime()).toBe(issued.expiresAt.getTime());
    expect(tokens.expiresAt(claims.issuedAt).getTime()).toBe(issued.expiresAt.getTime());

    const solana = await tokens.verify(
      (
        await tokens.issue({
          userId: 7,
          wallet: 'AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9',
          chain: 'solana',
          sessionId: 'other-session',
        })
      ).token,
    );
    expect(solana).toMatchObject({
      userId: 7,
      wallet: 'AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9',
      chain: 'solana',
    });
  });

  it('sets exp - iat = 2592000 and the contract claims', async () => {
    const tokens = await service();
    const { token, expiresAt } = await tokens.issue(SUBJECT);
    const payload = decodePart(token, 1);
    expect(TOKEN_TTL_SECONDS).toBe(2_592_000);
    expect((payload.exp as number) - (payload.iat as number)).toBe(2_592_000);
    expect(expiresAt.getTime()).toBe((payload.exp as number) * 1000);
    expect(payload).toMatchObject({
      sub: '42',
      wallet: SUBJECT.wallet,
      chain: 'evm',
      sid: SUBJECT.sessionId,
      iss: ISSUER,
      aud: AUDIENCE,
    });
    expect(typeof payload.jti).toBe('string');
    // Every token gets its own jti.
    const second = decodePart((await tokens.issue(SUBJECT)).token, 1);
    expect(second.jti).not.toBe(payload.jti);
  });

  it('refuses a well-signed token that names no session (issued before sessions) as UNAUTHORIZED', async () => {
    const tokens = await service();
    for (const sid of [undefined, '', 7]) {
      const token = await signWith(keys.privatePem, { kid: await currentKid(tokens) }, { sid });
      const error = await tokens.verify(token).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ code: 'UNAUTHORIZED' });
      expect((error as DomainError).message).toMatch(/before sessions/);
    }
  });

  it('puts alg and kid in the header', async () => {
    const { token } = await (await service()).issue(SUBJECT);
    const header = decodePart(token, 0);
    expect(header.alg).toBe(alg);
    expect(typeof header.kid).toBe('string');
    expect((header.kid as string).length).toBeGreaterThan(0);
  });

  it('publishes the key in jwks(), and jose verifies the token with it', async () => {
    const tokens = await service();
    const { token } = await tokens.issue(SUBJECT);
    const kid = decodePart(token, 0).kid as string;
    const jwks = tokens.jwks();
    const key = jwks.keys.find((k) => k.kid === kid);
    expect(key).toMatchObject({ ...jwkShape, kid, alg, use: 'sig' });
    // Only the public half is published.
    expect(key).not.toHaveProperty('d');
    for (const k of jwks.keys) expect(k).not.toHaveProperty('d');

    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: [alg],
    });
    expect(protectedHeader.kid).toBe(kid);
    expect(payload.sub).toBe('42');
  });

  it('keeps the same kid across restarts with the same key', async () => {
    expect(await currentKid(await service())).toBe(await currentKid(await service()));
    expect(await currentKid(await service())).not.toBe(
      await currentKid(await service({ privateKeyPem: otherKeys.privatePem })),
    );
  });

  it('answers TOKEN_EXPIRED once 30 days have passed', async () => {
    let clock = new Date('2024-01-01T00:00:00Z');
    const tokens = await service({ now: () => clock });
    const { token } = await tokens.issue(SUBJECT);
    clock = new Date(clock.getTime() + 30 * DAY - 60_000);
    await expect(tokens.verify(token)).resolves.toMatchObject({ userId: 42 });
    clock = new Date(clock.getTime() + 2 * 60_000);
    await expectAuthError(tokens.verify(token), 'TOKEN_EXPIRED');
    clock = new Date(clock.getTime() + 365 * DAY);
    await expectAuthError(tokens.verify(token), 'TOKEN_EXPIRED');
  });

  it('answers UNAUTHORIZED, not TOKEN_EXPIRED, for an expired token that is also tampered', async () => {
    let clock = new Date('2024-01-01T00:00:00Z');
    const tokens = await service({ now: () => clock });
    const { token } = await tokens.issue(SUBJECT);
    const [header, , signature] = token.split('.');
    const forged = `${header}.${b64url({ ...decodePart(token, 1), sub: '1' })}.${signature}`;
    clock = new Date(clock.getTime() + 31 * DAY);
    await expectAuthError(tokens.verify(forged), 'UNAUTHORIZED');
  });

  it('answers UNAUTHORIZED for a tampered payload, header or signature', async () => {
    const tokens = await service();
    const { token } = await tokens.issue(SUBJECT);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const claims = decodePart(token, 1);
    for (const changed of [
      { ...claims, sub: '1' },
      { ...claims, wallet: '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB' },
      { ...claims, exp: (claims.exp as number) + 1000 },
    ]) {
      await expectAuthError(tokens.verify(`${header}.${b64url(changed)}.${signature}`), 'UNAUTHORIZED');
    }
    const headerClaims = decodePart(token, 0);
    await expectAuthError(
      tokens.verify(`${b64url({ ...headerClaims, typ: 'at+jwt' })}.${payload}.${signature}`),
      'UNAUTHORIZED',
    );
    // Change a character in the middle of the signature (the last one may only hold padding bits).
    const middle = Math.floor(signature.length / 2);
    const flipped = `${signature.slice(0, middle)}${signature[middle] === 'A' ? 'B' : 'A'}${signature.slice(middle + 1)}`;
    await expectAuthError(tokens.verify(`${header}.${payload}.${flipped}`), 'UNAUTHORIZED');
    await expectAuthError(tokens.verify(`${header}.${payload}.`), 'UNAUTHORIZED');
    await expectAuthError(tokens.verify(`${header}.${payload}`), 'UNAUTHORIZED');
  });

  it('remembers a verified token, but not for its tampered copies, and not past its expiry', async () => {
    let clock = new Date('2024-01-01T00:00:00Z');
    const tokens = await service({ now: () => clock });
    const { token } = await tokens.issue(SUBJECT);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    await expect(tokens.verify(token)).resolves.toMatchObject({ userId: 42 });
    await expect(tokens.verify(token)).resolves.toMatchObject({ userId: 42 });
    const forged = `${header}.${b64url({ ...decodePart(token, 1), sub: '1' })}.${signature}`;
    await expectAuthError(tokens.verify(forged), 'UNAUTHORIZED');
    await expectAuthError(tokens.verify(`${header}.${payload}.${signature}x`), 'UNAUTHORIZED');
    clock = new Date(clock.getTime() + 30 * DAY + 31_000);
    await expectAuthError(tokens.verify(token), 'TOKEN_EXPIRED');
  });

  it('answers UNAUTHORIZED for malformed tokens', async () => {
    const tokens = await service();
    for (const token of ['', 'abc', 'a.b.c', '...', 'Bearer x.y.z', `${b64url({})}.${b64url({})}.AAAA`]) {
      await expectAuthError(tokens.verify(token), 'UNAUTHORIZED');
    }
  });

  it('answers UNAUTHORIZED for a token signed by another key', async () => {
    const tokens = await service();
    const stranger = await service({ privateKeyPem: otherKeys.privatePem });
    await expectAuthError(tokens.verify((await stranger.issue(SUBJECT)).token), 'UNAUTHORIZED');
    // Another key that claims this service's kid.
    const forged = await signWith(otherKeys.privatePem, { kid: await currentKid(tokens) });
    await expectAuthError(tokens.verify(forged), 'UNAUTHORIZED');
  });

  it("answers UNAUTHORIZED for an alg 'none' token", async () => {
    const tokens = await service();
    const { token } = await tokens.issue(SUBJECT);
    const payload = token.split('.')[1] as string;
    const kid = await currentKid(tokens);
    for (const header of [{ alg: 'none' }, { alg: 'none', typ: 'JWT' }, { alg: 'none', kid }, { alg: 'None', kid }]) {
      await expectAuthError(tokens.verify(`${b64url(header)}.${payload}.`), 'UNAUTHORIZED');
      await expectAuthError(tokens.verify(`${b64url(header)}.${payload}`), 'UNAUTHORIZED');
    }
  });

  it('answers UNAUTHORIZED for an HS256 token keyed with the public key', async () => {
    const tokens = await service();
    const { token } = await tokens.issue(SUBJECT);
    const payload = token.split('.')[1] as string;
    const kid = await currentKid(tokens);
    const publicJwk = tokens.jwks().keys.find((k) => k.kid === kid);
    const secrets = [
      Buffer.from(keys.publicPem),
      Buffer.from(JSON.stringify(publicJwk)),
      Buffer.from(publicJwk?.x ?? '', 'base64url'),
    ];
    for (const secret of secrets) {
      for (const header of [
        { alg: 'HS256', typ: 'JWT', kid },
        { alg: 'HS256', typ: 'JWT' },
      ]) {
        const signingInput = `${b64url(header)}.${payload}`;
        const mac = createHmac('sha256', secret).update(signingInput).digest('base64url');
        await expectAuthError(tokens.verify(`${signingInput}.${mac}`), 'UNAUTHORIZED');
      }
    }
  });

  it('answers UNAUTHORIZED for a token that names the other asymmetric algorithm', async () => {
    const tokens = await service();
    const { token } = await tokens.issue(SUBJECT);
    const [, payload, signature] = token.split('.');
    const header = decodePart(token, 0);
    const otherAlg = alg === 'EdDSA' ? 'ES256' : 'EdDSA';
    await expectAuthError(
      tokens.verify(`${b64url({ ...header, alg: otherAlg })}.${payload}.${signature}`),
      'UNAUTHORIZED',
    );
  });

  it('answers UNAUTHORIZED for a wrong issuer or audience', async () => {
    const tokens = await service();
    const { token } = await tokens.issue(SUBJECT);
    await expectAuthError((await service({ issuer: 'someone-else' })).verify(token), 'UNAUTHORIZED');
    await expectAuthError((await service({ audience: 'another-api' })).verify(token), 'UNAUTHORIZED');
    // A token from a service with another issuer / audience, on the same key.
    await expectAuthError(tokens.verify((await (await service({ issuer: 'x' })).issue(SUBJECT)).token), 'UNAUTHORIZED');
    await expectAuthError(
      tokens.verify((await (await service({ audience: 'x' })).issue(SUBJECT)).token),
      'UNAUTHORIZED',
    );
  });

  it('answers UNAUTHORIZED for an iat 10 minutes in the future, and tolerates small skew', async () => {
    const realNow = Date.now();
    const verifier = await service({ now: () => new Date(realNow) });
    const ahead = await service({ now: () => new Date(realNow + 10 * 60_000) });
    await expectAuthError(verifier.verify((await ahead.issue(SUBJECT)).token), 'UNAUTHORIZED');
    const slightlyAhead = await service({ now: () => new Date(realNow + 10_000) });
    await expect(verifier.verify((await slightlyAhead.issue(SUBJECT)).token)).resolves.toMatchObject({ userId: 42 });
  });

  it('answers UNAUTHORIZED for an unknown or missing kid, even when the signature is good', async () => {
    const tokens = await service();
    await expectAuthError(tokens.verify(await signWith(keys.privatePem, { kid: 'unknown-kid' })), 'UNAUTHORIZED');
    await expectAuthError(tokens.verify(await signWith(keys.privatePem, {})), 'UNAUTHORIZED');
    // Control: the same construction with the right kid is accepted.
    await expect(
      tokens.verify(await signWith(keys.privatePem, { kid: await currentKid(tokens) })),
    ).resolves.toMatchObject({
      userId: 42,
    });
  });

  it('answers UNAUTHORIZED for well-signed tokens with malformed claims', async () => {
    const tokens = await service();
    const kid = await currentKid(tokens);
    const malformed: Record<string, unknown>[] = [
      { sub: 'abc' },
      { sub: '0' },
      { sub: '-1' },
      { sub: '1.5' },
      { sub: '9007199254740993' },
      { sub: 42 },
      { sub: ' 42' },
      { sub: '0x2a' },
      { sub: '4.2e1' },
      { sub: '042' },
      { chain: 'bitcoin' },
      { wallet: 5 },
      { jti: 7 },
      { exp: 'soon' },
      // Missing required claims.
      { sub: undefined },
      { exp: undefined },
      { iat: undefined },
      { jti: undefined },
      { wallet: undefined },
      { chain: undefined },
      { iss: undefined },
      { aud: undefined },
    ];
    for (const claims of malformed) {
      const token = await signWith(keys.privatePem, { kid }, claims);
      const outcome = await tokens.verify(token).then(
        () => 'accepted',
        (error: DomainError) => error.code,
      );
      // The claims in the comparison say which case failed.
      expect({ claims, outcome }).toEqual({ claims, outcome: 'UNAUTHORIZED' });
      await expectAuthError(tokens.verify(token), 'UNAUTHORIZED');
    }
  });

  it('accepts tokens of a previous key listed in previousPublicKeyPems, and only then', async () => {
    const oldService = await service({ privateKeyPem: otherKeys.privatePem });
    const { token } = await oldService.issue(SUBJECT);
    const rotated = await service({ previousPublicKeyPems: [otherKeys.publicPem] });
    await expect(rotated.verify(token)).resolves.toMatchObject({ userId: 42, wallet: SUBJECT.wallet, chain: 'evm' });
    // New tokens are signed with the new key, and the JWKS lists both.
    const newToken = (await rotated.issue(SUBJECT)).token;
    expect(decodePart(newToken, 0).kid).not.toBe(decodePart(token, 0).kid);
    expect(
      rotated
        .jwks()
        .keys.map((k) => k.kid)
        .sort(),
    ).toEqual([decodePart(token, 0).kid, decodePart(newToken, 0).kid].sort());
    await expectAuthError((await service()).verify(token), 'UNAUTHORIZED');
    // The old service does not accept the new key's tokens.
    await expectAuthError(oldService.verify(newToken), 'UNAUTHORIZED');
  });
});

describe('token service: keys of both algorithms and of unsupported types', () => {
  it('rotates across algorithms: an ES256 service accepts tokens of a previous EdDSA key', async () => {
    const oldKeys = keyPems('ed25519');
    const newKeys = keyPems('p256');
    const old = await createTokenService({ privateKeyPem: oldKeys.privatePem, issuer: ISSUER, audience: AUDIENCE });
    const rotated = await createTokenService({
      privateKeyPem: newKeys.privatePem,
      previousPublicKeyPems: [oldKeys.publicPem],
      issuer: ISSUER,
      audience: AUDIENCE,
    });
    const oldToken = (await old.issue(SUBJECT)).token;
    await expect(rotated.verify(oldToken)).resolves.toMatchObject({ userId: 42 });
    await expect(rotated.verify((await rotated.issue(SUBJECT)).token)).resolves.toMatchObject({ userId: 42 });
    expect(
      rotated
        .jwks()
        .keys.map((k) => k.alg)
        .sort(),
    ).toEqual(['ES256', 'EdDSA']);

    // The EdDSA kid may not be used with ES256, nor the ES256 kid with EdDSA.
    const [, payload, signature] = oldToken.split('.');
    const header = decodePart(oldToken, 0);
    await expectAuthError(
      rotated.verify(`${b64url({ ...header, alg: 'ES256' })}.${payload}.${signature}`),
      'UNAUTHORIZED',
    );
  });

  it('refuses to start with a key that is neither Ed25519 nor P-256', async () => {
    await expect(
      createTokenService({ privateKeyPem: keyPems('secp256k1').privatePem, issuer: ISSUER, audience: AUDIENCE }),
    ).rejects.toThrow(/Ed25519 or EC P-256/);
  });
});
