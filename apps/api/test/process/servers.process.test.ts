/**
 * Two API processes on one PostgreSQL database, sharing the signing key (JWT_PRIVATE_KEY) and
 * nothing else: sign-in state, follows and the auth rate limit live in the database, so either
 * process may serve any request, as behind a load balancer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  evmWallet,
  expectError,
  roomInRateWindow,
  signIn,
  solanaWallet,
  useScratchDatabase,
} from '../harness.js';
import { type ApiProcess, signingKeyPem, spawnApi } from '../process.js';
import { checkFollowInvariants, followStorm, preparePlans, signInMany } from '../storm.js';

const LIMIT = 30;

describe('two API processes on one database', () => {
  const { scratch, direct } = useScratchDatabase();
  let a: ApiProcess;
  let b: ApiProcess;
  /** A different client address per call, so the shared rate limit stays out of the way. */
  let address = 0;
  const anotherClient = () => ({ 'x-forwarded-for': `10.20.${(++address >> 8) & 255}.${address & 255}` });

  beforeAll(async () => {
    const env = {
      DATABASE_URL: scratch.url,
      JWT_PRIVATE_KEY: signingKeyPem(),
      SEED_PROVIDERS: '12',
      AUTH_RATE_LIMIT_PER_MINUTE: String(LIMIT),
      TRUST_PROXY: 'true',
    };
    // Started together: migrations and the demo seed are serialised by advisory locks.
    [a, b] = await Promise.all([spawnApi(env), spawnApi(env)]);
  });
  afterAll(async () => {
    await a?.crash();
    await b?.crash();
  });

  it('started together, they seeded once', async () => {
    expect((await call(a, 'GET', '/providers')).body.total).toBe(12);
    expect((await call(b, 'GET', '/providers')).body.total).toBe(12);
  });

  it('a nonce issued by one verifies on the other; tokens work on both', async () => {
    for (const [issuer, verifier] of [
      [a, b],
      [b, a],
    ] as const) {
      const wallet = solanaWallet();
      const nonce = await call(issuer, 'GET', `/auth/nonce?wallet=${wallet.address}`);
      const login = await call(verifier, 'POST', '/auth/verify', {
        body: { wallet: wallet.address, nonce: nonce.body.nonce, signature: await wallet.sign(nonce.body.message) },
      });
      expect(login.status).toBe(200);
      for (const server of [a, b]) {
        const me = await call(server, 'GET', '/me', { token: login.body.token });
        expect(me.status).toBe(200);
        expect(me.body.id).toBe(login.body.user.id);
      }
    }
    expect((await call(a, 'GET', '/.well-known/jwks.json')).body).toEqual(
      (await call(b, 'GET', '/.well-known/jwks.json')).body,
    );
  });

  it('100 concurrent verifies of one nonce, split across both: exactly one token', async () => {
    const usedRows = async () =>
      Number(
        (
          await direct.db
            .selectFrom('used_nonces')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const rowsBefore = await usedRows();
    const wallet = evmWallet();
    // Nonces from both servers: issuing stores nothing, so any server opens any other's.
    const issued = [];
    for (let i = 0; i < 20; i++)
      issued.push(
        (await call(i % 2 ? a : b, 'GET', `/auth/nonce?wallet=${wallet.address}`, { headers: anotherClient() })).body,
      );
    expect(await usedRows()).toBe(rowsBefore);
    const nonce = issued[0];
    const body = { wallet: wallet.address, nonce: nonce.nonce, signature: await wallet.sign(nonce.message) };
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        call(i % 2 === 0 ? a : b, 'POST', '/auth/verify', { body, headers: anotherClient() }),
      ),
    );
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(1);
    for (const reply of replies.filter((r) => r.status !== 200)) {
      expect(expectError(reply, 401, 'INVALID_NONCE').message).toBe('nonce has already been used');
    }
    const users = await direct.db.selectFrom('users').select('id').where('wallet', '=', wallet.address).execute();
    expect(users).toHaveLength(1);
    expect(await usedRows()).toBe(rowsBefore + 1);
    // The other nonces are untouched by the race, whichever server issued them.
    for (const [i, other] of issued.slice(1, 5).entries()) {
      const login = await call(i % 2 ? b : a, 'POST', '/auth/verify', {
        headers: anotherClient(),
        body: { wallet: wallet.address, nonce: other.nonce, signature: await wallet.sign(other.message) },
      });
      expect(login.status).toBe(200);
    }
  });

  it('a follow storm across both leaves exact counts, the same seen from either', async () => {
    const list = (await call(a, 'GET', '/providers?limit=100&sortBy=id&order=asc')).body.items as {
      id: number;
      followerCount: number;
    }[];
    const before = new Map(list.map((p) => [p.id, p.followerCount]));
    const ids = list.map((p) => p.id);
    const plans = await preparePlans(a, await signInMany(b, 12), ids);
    // Every operation of every user twice over, alternating servers request by request.
    const result = await followStorm(plans, {
      target: (i) => (i % 2 === 0 ? a : b),
      stop: () => false,
      maxRequests: 2 * ids.length,
    });
    expect(result.failures.size).toBe(0);
    expect(result.followed.size).toBe(plans.reduce((n, p) => n + p.follow.length, 0));
    expect(result.unfollowed.size).toBe(plans.reduce((n, p) => n + p.unfollow.length, 0));

    const invariants = await checkFollowInvariants(direct.db, result);
    expect(invariants).toMatchObject({ countMismatches: [], lostFollows: [], resurrected: [] });
    // Exact: each provider gained one follower per plan that follows it, and the unfollowed
    // ones were followed for the storm only.
    for (const id of ids) {
      const expected = before.get(id)! + plans.filter((p) => p.follow.includes(id)).length;
      expect((await call(a, 'GET', `/providers/${id}`)).body.followerCount).toBe(expected);
      expect((await call(b, 'GET', `/providers/${id}`)).body.followerCount).toBe(expected);
    }
    console.log(`two servers, follow storm: ${result.requests} requests, all 200, counts exact on both`);
  });

  it(`the rate limit is shared: ${LIMIT} a minute for a client across both, not ${2 * LIMIT}`, async () => {
    await roomInRateWindow();
    const client = { 'x-forwarded-for': '203.0.113.99' };
    const replies = await Promise.all(
      Array.from({ length: 3 * LIMIT }, (_, i) =>
        call(i % 2 === 0 ? a : b, 'GET', `/auth/nonce?wallet=${evmWallet().address}`, { headers: client }),
      ),
    );
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(LIMIT);
    for (const reply of replies.filter((r) => r.status !== 200)) {
      expectError(reply, 429, 'RATE_LIMITED');
      expect(Number(reply.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Both servers turned the client away, and another client is unaffected.
    expect((await call(a, 'GET', `/auth/nonce?wallet=${evmWallet().address}`, { headers: client })).status).toBe(429);
    expect((await call(b, 'GET', `/auth/nonce?wallet=${evmWallet().address}`, { headers: client })).status).toBe(429);
    expect((await signIn(a, evmWallet())).token).toEqual(expect.any(String));
  });
});
