/**
 * Crash safety of the built server (a child process): kill -9 in the middle of a follow storm
 * and of a sign-in storm, start it again on the same database, and check what the database
 * guarantees: follower counts equal follow rows, nothing acknowledged is lost, no nonce gives
 * two tokens, one user per wallet, and the tokens issued before the crash still work.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, useScratchDatabase } from '../harness.js';
import { type ApiProcess, signingKeyPem, spawnApi } from '../process.js';
import {
  checkFollowInvariants,
  checkLoginInvariants,
  followStorm,
  loginStorm,
  preparePlans,
  signInMany,
} from '../storm.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('kill -9 during load, then restart', () => {
  const { scratch, direct } = useScratchDatabase();
  let env: Record<string, string>;
  let api: ApiProcess | undefined;

  beforeAll(async () => {
    env = { DATABASE_URL: scratch.url, JWT_PRIVATE_KEY: signingKeyPem(), SEED_PROVIDERS: '12' };
  });
  afterAll(async () => {
    await api?.crash();
  });

  it('a follow storm: counts equal rows and every acknowledged change survives', async () => {
    api = await spawnApi(env);
    const server = api;
    const ids = (await call(server, 'GET', '/providers?limit=100&sortBy=id&order=asc')).body.items.map(
      (p: { id: number }) => p.id,
    );
    const plans = await preparePlans(server, await signInMany(server, 12), ids);
    let crashed = false;
    const storm = followStorm(plans, { target: () => server, stop: () => crashed, timeoutMs: 5_000 });
    await sleep(800);
    await server.crash();
    crashed = true;
    const result = await storm;
    expect(result.ok).toBeGreaterThan(0);
    // Cut off mid-storm: some requests got no answer at all.
    expect(result.failures.get(0) ?? 0).toBeGreaterThan(0);

    api = await spawnApi(env);
    const invariants = await checkFollowInvariants(direct.db, result, { target: api, providerIds: ids });
    expect(invariants).toMatchObject({ countMismatches: [], lostFollows: [], resurrected: [], apiMismatches: [] });
    // Sessions from before the crash go on.
    expect((await call(api, 'GET', '/me/following', { token: plans[0]!.token })).status).toBe(200);
    console.log(
      `kill -9 in a follow storm: ${result.requests} requests, ${result.ok} acknowledged, ` +
        `${result.failures.get(0) ?? 0} cut off; ${invariants.followRows} follow rows, counts exact`,
    );
  });

  it('a sign-in storm: no nonce spent twice, one user per wallet, every token still valid', async () => {
    api ??= await spawnApi(env);
    const server = api;
    let crashed = false;
    const storm = loginStorm({ target: () => server, workers: 8, copies: 3, stop: () => crashed });
    await sleep(1_500);
    await server.crash();
    crashed = true;
    const result = await storm;
    expect(result.tokens.length).toBeGreaterThan(0);

    api = await spawnApi(env);
    const restarted = api;
    expect(result.doubleSpent).toEqual([]);
    const invariants = await checkLoginInvariants(direct.db, result);
    expect(invariants).toEqual({ duplicateWallets: [], unusedButWon: [], duplicateJtis: 0, wrongUser: 0 });

    const replies = await Promise.all(result.tokens.map((t) => call(restarted, 'GET', '/me', { token: t.token })));
    expect(replies.filter((reply) => reply.status !== 200)).toEqual([]);
    // A nonce that gave a token gives no second one after the restart either.
    const [first] = result.tokens;
    const replay = await call(restarted, 'POST', '/auth/verify', {
      body: { wallet: first!.wallet, nonce: first!.nonce, signature: `0x${'1'.repeat(130)}` },
    });
    expectError(replay, 401, 'INVALID_NONCE');
    console.log(
      `kill -9 in a sign-in storm: ${result.attempts} sign-ins tried, ${result.tokens.length} tokens, ` +
        `0 nonces spent twice, all tokens valid after restart`,
    );
  });
});
