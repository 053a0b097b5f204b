/**
 * Abuse limits on sign-in: the per-address rate limit (REST and tRPC, X-Forwarded-For only
 * behind TRUST_PROXY (right-most entries), IPv6 by /64, exact under concurrency, kept in the database), the cap on
 * unused nonces per wallet, and the purge that keeps the nonce and counter tables bounded.
 */
import { purgeExpiredAuthState } from '@signal/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_UNUSED_NONCES_PER_WALLET } from '../src/routers/auth.router.js';
import { call, evmWallet, expectError, type Reply, signIn, solanaWallet, startApi, type TestApi } from './harness.js';

const LIMIT = 5;
const MINUTE = 60_000;

/** Moves the server clock to just after the start of a rate-limit window: a minute of room. */
function toWindowStart(api: TestApi) {
  api.advanceClock(MINUTE - (api.now().getTime() % MINUTE) + 50);
}

const nonceFor = (api: TestApi, wallet: string, headers: Record<string, string> = {}) =>
  call(api, 'GET', `/auth/nonce?wallet=${encodeURIComponent(wallet)}`, { headers });

function expectRateLimited(reply: Reply, maxSeconds: number) {
  expectError(reply, 429, 'RATE_LIMITED');
  const retryAfter = reply.headers.get('retry-after');
  expect(retryAfter).toMatch(/^[1-9][0-9]*$/);
  expect(Number(retryAfter)).toBeLessThanOrEqual(maxSeconds);
}

async function countRows(api: TestApi, table: 'auth_nonces' | 'rate_limit_hits') {
  const row = await api.db.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

type Headers = () => Record<string, string>;

/** The limit itself; `client` gives the headers of the one client that uses it up. */
function rateLimitTests(server: () => TestApi, client: Headers) {
  it(`allows ${LIMIT} nonce and ${LIMIT} verify requests a minute per address, then 429 with Retry-After`, async () => {
    const api = server();
    toWindowStart(api);
    for (let i = 0; i < LIMIT; i++) expect((await nonceFor(api, evmWallet().address, client())).status).toBe(200);
    expectRateLimited(await nonceFor(api, evmWallet().address, client()), 60);
    // tRPC's auth.nonce is the same endpoint, so it shares the count.
    const input = encodeURIComponent(JSON.stringify({ wallet: evmWallet().address }));
    const overTrpc = await call(api, 'GET', `/trpc/auth.nonce?input=${input}`, { headers: client() });
    expect(overTrpc.status).toBe(429);
    expect(overTrpc.body.error.data).toMatchObject({ code: 'RATE_LIMITED', httpStatus: 429 });
    expect(overTrpc.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);

    // Verify has its own count, and malformed attempts use it up too.
    for (let i = 0; i < LIMIT; i++) {
      expectError(await call(api, 'POST', '/auth/verify', { body: {}, headers: client() }), 400, 'VALIDATION_ERROR');
    }
    expectRateLimited(await call(api, 'POST', '/auth/verify', { body: {}, headers: client() }), 60);

    // Other routes are not limited.
    expect((await call(api, 'GET', '/providers', { headers: client() })).status).toBe(200);

    // The next window starts from zero.
    api.advanceClock(MINUTE);
    expect((await nonceFor(api, evmWallet().address, client())).status).toBe(200);
  });

  it('counts concurrent requests exactly: 3 × the limit at once, exactly the limit pass', async () => {
    const api = server();
    toWindowStart(api);
    const replies = await Promise.all(
      Array.from({ length: 3 * LIMIT }, () => nonceFor(api, solanaWallet().address, client())),
    );
    expect(replies.filter((r) => r.status === 200)).toHaveLength(LIMIT);
    for (const reply of replies.filter((r) => r.status !== 200)) expectRateLimited(reply, 60);
  });
}

/** The per-wallet cap; `client` gives each request's headers (a fresh address keeps the limit out of it). */
function nonceCapTests(server: () => TestApi, client: Headers) {
  it(`holds at most ${MAX_UNUSED_NONCES_PER_WALLET}; a sign-in or an expiry frees a slot`, async () => {
    const api = server();
    const wallet = evmWallet();
    const issued = [];
    for (let i = 0; i < MAX_UNUSED_NONCES_PER_WALLET; i++) {
      const reply = await nonceFor(api, wallet.address, client());
      expect(reply.status).toBe(200);
      issued.push(reply.body);
    }
    // The same wallet in lower case is the same wallet.
    const capped = await nonceFor(api, wallet.address.toLowerCase(), client());
    expectRateLimited(capped, 300);
    expect(Number(capped.headers.get('retry-after'))).toBeGreaterThan(290);
    // Other wallets are not affected.
    expect((await nonceFor(api, evmWallet().address, client())).status).toBe(200);

    // Every issued nonce still works (the contract: earlier unused ones stay valid), and
    // using one frees a slot.
    const first = issued[0];
    const login = await call(api, 'POST', '/auth/verify', {
      headers: client(),
      body: { wallet: wallet.address, nonce: first.nonce, signature: await wallet.sign(first.message) },
    });
    expect(login.status).toBe(200);
    expect((await nonceFor(api, wallet.address, client())).status).toBe(200);
    expectRateLimited(await nonceFor(api, wallet.address, client()), 300);

    // Once they expire, the wallet may ask again.
    api.advanceClock(api.config.nonceTtlSeconds * 1000 + 1_000);
    expect((await nonceFor(api, wallet.address, client())).status).toBe(200);
  });

  it('is exact under concurrency: 30 requests at once for one wallet issue exactly the cap', async () => {
    const api = server();
    const wallet = solanaWallet();
    const replies = await Promise.all(Array.from({ length: 30 }, () => nonceFor(api, wallet.address, client())));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(MAX_UNUSED_NONCES_PER_WALLET);
    for (const reply of replies.filter((r) => r.status !== 200)) expectRateLimited(reply, 300);
    const rows = await api.db.db
      .selectFrom('auth_nonces')
      .select('nonce')
      .where('wallet', '=', wallet.address)
      .execute();
    expect(rows).toHaveLength(MAX_UNUSED_NONCES_PER_WALLET);
  });
}

let address = 0;
const freshAddress: Headers = () => ({ 'x-forwarded-for': `198.18.${(++address >> 8) & 255}.${address & 255}` });

describe('auth rate limit on postgres', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi('postgres', { env: { AUTH_RATE_LIMIT_PER_MINUTE: String(LIMIT) } });
  });
  afterAll(async () => {
    await api?.stop();
  });

  rateLimitTests(
    () => api,
    () => ({}),
  );

  it('ignores X-Forwarded-For without TRUST_PROXY: a client cannot pick a new address', async () => {
    toWindowStart(api);
    for (let i = 0; i < LIMIT; i++) {
      expect((await nonceFor(api, evmWallet().address, { 'x-forwarded-for': `10.0.0.${i}` })).status).toBe(200);
    }
    expectRateLimited(await nonceFor(api, evmWallet().address, { 'x-forwarded-for': '10.0.1.1' }), 60);
  });
});

describe('auth rate limit behind a proxy (TRUST_PROXY=true)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi('postgres', { env: { AUTH_RATE_LIMIT_PER_MINUTE: String(LIMIT), TRUST_PROXY: 'true' } });
  });
  afterAll(async () => {
    await api?.stop();
  });

  const exhaust = async (forwardedFor: string) => {
    for (let i = 0; i < LIMIT; i++) {
      expect((await nonceFor(api, evmWallet().address, { 'x-forwarded-for': forwardedFor })).status).toBe(200);
    }
  };

  it('keys on the right-most X-Forwarded-For entry (one hop), never the client-written left end', async () => {
    toWindowStart(api);
    await exhaust('10.0.0.1, 203.0.113.7');
    expectRateLimited(await nonceFor(api, evmWallet().address, { 'x-forwarded-for': '10.9.9.9, 203.0.113.7' }), 60);
    expectRateLimited(await nonceFor(api, evmWallet().address, { 'x-forwarded-for': '203.0.113.7' }), 60);
    // Another client behind the same proxy has its own count.
    expect((await nonceFor(api, evmWallet().address, { 'x-forwarded-for': '203.0.113.7, 203.0.113.8' })).status).toBe(
      200,
    );
  });

  it('treats an IPv6 /64 as one client, and an IPv4-mapped address as the IPv4 one', async () => {
    toWindowStart(api);
    await exhaust('2001:db8:1:2::1');
    expectRateLimited(await nonceFor(api, evmWallet().address, { 'x-forwarded-for': '2001:db8:1:2:ffff::9' }), 60);
    expect((await nonceFor(api, evmWallet().address, { 'x-forwarded-for': '2001:db8:1:3::1' })).status).toBe(200);

    await exhaust('198.51.100.4');
    expectRateLimited(await nonceFor(api, evmWallet().address, { 'x-forwarded-for': '::ffff:198.51.100.4' }), 60);
  });

  it('falls back to the socket address when the header is not an IP address', async () => {
    toWindowStart(api);
    // Every garbage value lands in the one bucket of the socket's address (the proxy's).
    for (let i = 0; i < LIMIT; i++) {
      expect((await nonceFor(api, evmWallet().address, { 'x-forwarded-for': `garbage-${i}` })).status).toBe(200);
    }
    expectRateLimited(await nonceFor(api, evmWallet().address, { 'x-forwarded-for': 'more-garbage' }), 60);
    expectRateLimited(await nonceFor(api, evmWallet().address), 60);
  });
});

describe('unused nonces per wallet on postgres', () => {
  let api: TestApi;
  beforeAll(async () => {
    // The address limit is off (the harness default): only the per-wallet cap applies.
    api = await startApi('postgres');
  });
  afterAll(async () => {
    await api?.stop();
  });

  nonceCapTests(
    () => api,
    () => ({}),
  );
});

describe('the same limits on PGlite (one server, behind a proxy)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi('pglite', { env: { AUTH_RATE_LIMIT_PER_MINUTE: String(LIMIT), TRUST_PROXY: 'true' } });
  });
  afterAll(async () => {
    await api?.stop();
  });

  // One client uses up the limit; the cap tests send each request from another address.
  rateLimitTests(
    () => api,
    () => ({ 'x-forwarded-for': '192.0.2.1' }),
  );
  nonceCapTests(() => api, freshAddress);
});

describe('purge of expired nonces and ended rate-limit windows', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi('postgres', { env: { AUTH_RATE_LIMIT_PER_MINUTE: '1000000', TRUST_PROXY: 'true' } });
  });
  afterAll(async () => {
    await api?.stop();
  });

  it('a flood of nonces from many addresses shrinks back to nothing once they expire', async () => {
    const wallets = Array.from({ length: 40 }, () => evmWallet().address);
    // 40 wallets × 15 requests from 600 addresses: the cap holds each wallet at 10.
    const requests = wallets.flatMap((wallet, w) =>
      Array.from({ length: 15 }, (_, i) => () => nonceFor(api, wallet, { 'x-forwarded-for': `10.1.${w}.${i}` })),
    );
    const statuses: number[] = [];
    for (let i = 0; i < requests.length; i += 50) {
      statuses.push(...(await Promise.all(requests.slice(i, i + 50).map((r) => r()))).map((r) => r.status));
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(wallets.length * MAX_UNUSED_NONCES_PER_WALLET);
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(await countRows(api, 'auth_nonces')).toBe(wallets.length * MAX_UNUSED_NONCES_PER_WALLET);
    expect(await countRows(api, 'rate_limit_hits')).toBeGreaterThanOrEqual(600);

    // Nothing is purged while the nonces are live and the window is open.
    const early = api.now();
    expect(
      await purgeExpiredAuthState(api.db.db, { now: early, windowsBefore: new Date(early.getTime() - MINUTE) }),
    ).toEqual({ nonces: 0, rateLimitWindows: 0 });

    api.advanceClock(api.config.nonceTtlSeconds * 1000 + MINUTE);
    const later = api.now();
    const options = { now: later, windowsBefore: new Date(later.getTime() - MINUTE), batchSize: 100 };
    // Bounded: one batch of 100 per table when asked for one.
    expect(await purgeExpiredAuthState(api.db.db, { ...options, maxBatches: 1 })).toEqual({
      nonces: 100,
      rateLimitWindows: 100,
    });
    const rest = await purgeExpiredAuthState(api.db.db, options);
    expect(rest.nonces).toBe(wallets.length * MAX_UNUSED_NONCES_PER_WALLET - 100);
    expect(await countRows(api, 'auth_nonces')).toBe(0);
    expect(await countRows(api, 'rate_limit_hits')).toBe(0);
  });

  it('keeps live nonces, unused or used, until they expire', async () => {
    const wallet = solanaWallet();
    await signIn(api, wallet);
    await nonceFor(api, wallet.address);
    const now = api.now();
    await purgeExpiredAuthState(api.db.db, { now, windowsBefore: new Date(now.getTime() - MINUTE) });
    const rows = await api.db.db
      .selectFrom('auth_nonces')
      .select('used_at')
      .where('wallet', '=', wallet.address)
      .execute();
    expect(rows.map((r) => r.used_at === null).sort()).toEqual([false, true]);
  });

  it('runs by itself at start (and every minute after)', async () => {
    const past = new Date(api.now().getTime() - 3_600_000);
    await api.db.db
      .insertInto('auth_nonces')
      .values(
        Array.from({ length: 50 }, (_, i) => ({
          nonce: `expired${i}`.padEnd(32, 'x'),
          wallet: 'w',
          issued_at: past,
          expires_at: past,
        })),
      )
      .execute();
    await api.db.db.insertInto('rate_limit_hits').values({ bucket: 'old', window_start: past, hits: 1 }).execute();
    await api.restart();
    const leftovers = async () => {
      const nonces = await api.db.db.selectFrom('auth_nonces').select('nonce').where('wallet', '=', 'w').execute();
      const windows = await api.db.db
        .selectFrom('rate_limit_hits')
        .select('bucket')
        .where('bucket', '=', 'old')
        .execute();
      return nonces.length + windows.length;
    };
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline && (await leftovers()) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await leftovers()).toBe(0);
  });
});
