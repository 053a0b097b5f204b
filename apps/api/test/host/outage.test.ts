/**
 * Database outages, through a TCP proxy between the service and PostgreSQL that the test cuts
 * (connections destroyed, new ones refused) or stalls (connections accepted, never answered).
 * The service must answer 503 SERVICE_UNAVAILABLE in bounded time, keep /health at 200, say
 * 503 on /ready, and recover by itself when the proxy is back; a follow storm across the cut
 * loses no acknowledged change and leaves every followerCount equal to its rows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  call,
  evmWallet,
  expectError,
  signIn,
  startApi,
  type TestApi,
  trpcClient,
  trpcFailure,
  useScratchDatabase,
} from '../harness.js';
import { checkFollowInvariants, followStorm, preparePlans, signInMany } from '../storm.js';
import { TcpProxy } from '../tcp-proxy.js';

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: Math.round(performance.now() - started) };
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    if (await check()) return Math.round(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`not within ${timeoutMs} ms`);
}

/** The bound docs/deployment.md ("Database outages") promises: a pooled connect gives up after 5 s, plus slack for a loaded machine. */
const ANSWER_BOUND_MS = 6_500;

describe('database outage behind a TCP proxy', () => {
  const { scratch, direct } = useScratchDatabase();
  let proxy: TcpProxy;
  let api: TestApi;
  let token: string;

  beforeAll(async () => {
    const url = new URL(scratch.url);
    proxy = new TcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    await proxy.listen();
    const proxied = new URL(scratch.url);
    proxied.port = String(proxy.port);
    api = await startApi('postgres', { databaseUrl: proxied.toString(), env: { SEED_PROVIDERS: '10' } });
    ({ token } = await signIn(api, evmWallet()));
  });
  afterAll(async () => {
    await proxy?.restore();
    await api?.stop();
    await proxy?.close();
  });

  const providers = () => call(api, 'GET', '/providers/1');
  const available = async () => (await providers()).status === 200;

  /** A verify body, signed in advance: nonce and signature need no database. */
  async function signedNonce() {
    const wallet = evmWallet();
    const issued = (await call(api, 'GET', `/auth/nonce?wallet=${wallet.address}`)).body;
    return { wallet: wallet.address, nonce: issued.nonce, signature: await wallet.sign(issued.message) };
  }

  it('cut: 503 SERVICE_UNAVAILABLE at once on every transport, /ready 503, /health 200; back by itself', async () => {
    expect((await call(api, 'GET', '/ready')).status).toBe(200);
    const signed = await signedNonce();
    await proxy.cut();

    const requests = {
      'GET /providers/1': () => providers(),
      'GET /providers': () => call(api, 'GET', '/providers'),
      'GET /me': () => call(api, 'GET', '/me', { token }),
      'POST /providers/1/follow': () => call(api, 'POST', '/providers/1/follow', { token }),
      // A sign-in needs the database to record its nonce as used.
      'POST /auth/verify': () => call(api, 'POST', '/auth/verify', { body: signed }),
    };
    const times: Record<string, number> = {};
    for (const [name, request] of Object.entries(requests)) {
      const { value, ms } = await timed(request);
      expectError(value, 503, 'SERVICE_UNAVAILABLE');
      expect(value.headers.get('retry-after')).toMatch(/^[0-9]+$/);
      times[name] = ms;
      expect(ms).toBeLessThan(ANSWER_BOUND_MS);
    }
    // Issuing a nonce writes nothing (it authenticates itself), so with the address limit off
    // (the harness default) it needs no database at all.
    expect((await call(api, 'GET', `/auth/nonce?wallet=${evmWallet().address}`)).status).toBe(200);
    const overTrpc = await trpcFailure(trpcClient(api).providers.get.query({ id: 1 }));
    expect(overTrpc.data?.code).toBe('SERVICE_UNAVAILABLE');
    expect(overTrpc.data?.httpStatus).toBe(503);

    const ready = await timed(() => call(api, 'GET', '/ready'));
    expectError(ready.value, 503, 'SERVICE_UNAVAILABLE');
    expect(ready.ms).toBeLessThan(3_000);
    expect((await call(api, 'GET', '/health')).body).toEqual({ status: 'ok' });

    await proxy.restore();
    const recoveredMs = await waitFor(available, 10_000);
    expect((await call(api, 'GET', '/ready')).status).toBe(200);
    expect((await call(api, 'GET', '/me', { token })).status).toBe(200);
    console.log(
      `outage (refused): 503 in ${JSON.stringify(times)} ms; /ready 503 in ${ready.ms} ms; recovered ${recoveredMs} ms after restore`,
    );
  });

  it('stall (connections accepted, never answered): 503 within the connect timeout, not a hang', async () => {
    const signed = await signedNonce();
    await proxy.stall();
    const replies = await Promise.all([
      ...['/providers/1', '/providers'].map((path) => timed(() => call(api, 'GET', path))),
      timed(() => call(api, 'POST', '/auth/verify', { body: signed })),
    ]);
    for (const { value, ms } of replies) {
      expectError(value, 503, 'SERVICE_UNAVAILABLE');
      expect(ms).toBeLessThan(ANSWER_BOUND_MS);
    }
    const ready = await timed(() => call(api, 'GET', '/ready'));
    expect(ready.value.status).toBe(503);
    expect(ready.ms).toBeLessThan(3_000);
    expect((await call(api, 'GET', '/health')).status).toBe(200);

    await proxy.restore();
    const recoveredMs = await waitFor(available, 10_000);
    console.log(
      `outage (stalled): 503 after ${replies.map((r) => r.ms).join(', ')} ms; /ready 503 in ${ready.ms} ms; recovered ${recoveredMs} ms after restore`,
    );
  });

  it('a follow storm across a cut: every acknowledged change is there, counts equal rows', async () => {
    const ids = (await call(api, 'GET', '/providers?limit=100&sortBy=id&order=asc')).body.items.map(
      (p: { id: number }) => p.id,
    );
    const plans = await preparePlans(api, await signInMany(api, 8), ids);
    let stop = false;
    const storm = followStorm(plans, { target: () => api, stop: () => stop });

    await new Promise((resolve) => setTimeout(resolve, 300));
    await proxy.cut();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await proxy.restore();
    await waitFor(available, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    stop = true;
    const result = await storm;

    // Failures were all the contract's 503, none took long, and some requests failed at all.
    expect([...result.failures.keys()]).toEqual([503]);
    expect([...result.codes.keys()]).toEqual(['SERVICE_UNAVAILABLE']);
    expect(result.slowestMs).toBeLessThan(ANSWER_BOUND_MS);
    expect(result.ok).toBeGreaterThan(0);

    // And the API says the same as the rows.
    const invariants = await checkFollowInvariants(direct.db, result, { target: api, providerIds: ids });
    expect(invariants).toMatchObject({ countMismatches: [], lostFollows: [], resurrected: [], apiMismatches: [] });
    console.log(
      `storm across the cut: ${result.requests} requests, ${result.ok} acknowledged, ${result.failures.get(503) ?? 0} × 503; ` +
        `${result.followed.size} follows and ${result.unfollowed.size} unfollows acknowledged, all in the database`,
    );
  });
});
