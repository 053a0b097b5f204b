/**
 * Abuse limits on sign-in: the per-address rate limit (REST and tRPC, X-Forwarded-For only
 * behind TRUST_PROXY (right-most entries), IPv6 by /64, exact under concurrency, kept in the database); nonces no
 * one can hoard (issuing writes nothing, so a flood for a wallet neither locks its owner out
 * nor grows the database); and the purge that keeps the used-nonce and counter tables bounded.
 */
import { Agent, request } from 'node:http';
import { purgeExpiredAuthState } from '@signal/db';
import { describe, expect, it } from 'vitest';
import { authStatePurgeCutoffs, USED_NONCE_RETENTION_MS } from '../../src/ops/maintenance.js';
import {
  call,
  evmWallet,
  expectError,
  type Reply,
  requestNonce,
  signIn,
  solanaWallet,
  type TestApi,
  useApi,
  verifySigned,
} from '../harness.js';

const LIMIT = 5;
const MINUTE = 60_000;

/** Moves the server clock to just after the start of a rate-limit window: a minute of room. */
function toWindowStart(api: TestApi) {
  api.advanceClock(MINUTE - (api.now().getTime() % MINUTE) + 50);
}

function expectRateLimited(reply: Reply, maxSeconds: number) {
  expectError(reply, 429, 'RATE_LIMITED');
  const retryAfter = reply.headers.get('retry-after');
  expect(retryAfter).toMatch(/^[1-9][0-9]*$/);
  expect(Number(retryAfter)).toBeLessThanOrEqual(maxSeconds);
}

async function countRows(api: TestApi, table: 'used_nonces' | 'rate_limit_hits' | 'users') {
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
    for (let i = 0; i < LIMIT; i++) expect((await requestNonce(api, evmWallet().address, client())).status).toBe(200);
    expectRateLimited(await requestNonce(api, evmWallet().address, client()), 60);
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
    expect((await requestNonce(api, evmWallet().address, client())).status).toBe(200);
  });

  it('counts concurrent requests exactly: 3 × the limit at once, exactly the limit pass', async () => {
    const api = server();
    toWindowStart(api);
    const replies = await Promise.all(
      Array.from({ length: 3 * LIMIT }, () => requestNonce(api, solanaWallet().address, client())),
    );
    expect(replies.filter((r) => r.status === 200)).toHaveLength(LIMIT);
    for (const reply of replies.filter((r) => r.status !== 200)) expectRateLimited(reply, 60);
  });
}

/** GET from another client address: a socket bound to `localAddress` (any 127/8 address is loopback). */
function getFrom(agent: Agent, api: TestApi, path: string): Promise<{ status: number; body: any; from?: string }> {
  const { hostname, port } = new URL(api.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port: Number(port), path, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString()),
          from: req.socket?.localAddress,
        }),
      );
    });
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', reject);
    req.end();
  });
}

/** The hoarding attack of issue 12, performed: it must change nothing for the wallet's owner. */
function hoardingTests(server: () => TestApi) {
  it('another address asks 1,000 nonces for a wallet: none is stored, the owner signs in, the first 50 each verify once', async () => {
    const api = server();
    const owner = evmWallet();
    const tables = ['used_nonces', 'users', 'rate_limit_hits'] as const;
    const rowsNow = async () => Promise.all(tables.map((table) => countRows(api, table)));
    const before = await rowsNow();
    const usedBefore = before[0] as number;
    const attacker = new Agent({ keepAlive: true, maxSockets: 20, localAddress: '127.0.0.2' } as never);
    const hoarded: { nonce: string; message: string; wallet: string }[] = [];
    try {
      for (let batch = 0; batch < 20; batch++) {
        const replies = await Promise.all(
          Array.from({ length: 50 }, () => getFrom(attacker, api, `/auth/nonce?wallet=${owner.address.toLowerCase()}`)),
        );
        for (const reply of replies) {
          expect(reply.status).toBe(200);
          expect(reply.from).toBe('127.0.0.2');
          hoarded.push(reply.body);
        }
      }
    } finally {
      attacker.destroy();
    }
    expect(hoarded).toHaveLength(1_000);
    expect(new Set(hoarded.map((n) => n.nonce)).size).toBe(1_000);
    expect(hoarded.every((n) => n.wallet === owner.address)).toBe(true);
    // Not one of them wrote a row anywhere.
    expect(await rowsNow()).toEqual(before);

    // The owner, from its own address, signs in as if nothing had happened.
    const session = await signIn(api, owner);
    expect(session.user.wallet).toBe(owner.address);
    // Every hoarded nonce is still the owner's to use: each of the first 50 exactly once.
    for (const nonce of hoarded.slice(0, 50)) {
      expect((await verifySigned(api, owner, nonce)).status).toBe(200);
      expectError(await verifySigned(api, owner, nonce), 401, 'INVALID_NONCE');
    }
    // One row per sign-in, none per request: 1 + 50.
    expect(await countRows(api, 'used_nonces')).toBe(usedBefore + 51);
    // And the rest die with their TTL.
    api.advanceClock(api.config.nonceTtlSeconds * 1000);
    const late = expectError(await verifySigned(api, owner, hoarded[50]!), 401, 'INVALID_NONCE');
    expect(late.message).toBe('nonce has expired');
  });
}

describe('auth rate limit on postgres', () => {
  const api = useApi('postgres', { env: { AUTH_RATE_LIMIT_PER_MINUTE: String(LIMIT) } });

  rateLimitTests(
    () => api,
    () => ({}),
  );

  it('ignores X-Forwarded-For without TRUST_PROXY: a client cannot pick a new address', async () => {
    toWindowStart(api);
    for (let i = 0; i < LIMIT; i++) {
      expect((await requestNonce(api, evmWallet().address, { 'x-forwarded-for': `10.0.0.${i}` })).status).toBe(200);
    }
    expectRateLimited(await requestNonce(api, evmWallet().address, { 'x-forwarded-for': '10.0.1.1' }), 60);
  });
});

describe('auth rate limit behind a proxy (TRUST_PROXY=true)', () => {
  const api = useApi('postgres', { env: { AUTH_RATE_LIMIT_PER_MINUTE: String(LIMIT), TRUST_PROXY: 'true' } });

  const exhaust = async (forwardedFor: string) => {
    for (let i = 0; i < LIMIT; i++) {
      expect((await requestNonce(api, evmWallet().address, { 'x-forwarded-for': forwardedFor })).status).toBe(200);
    }
  };

  it('keys on the right-most X-Forwarded-For entry (one hop), never the client-written left end', async () => {
    toWindowStart(api);
    await exhaust('10.0.0.1, 203.0.113.7');
    expectRateLimited(await requestNonce(api, evmWallet().address, { 'x-forwarded-for': '10.9.9.9, 203.0.113.7' }), 60);
    expectRateLimited(await requestNonce(api, evmWallet().address, { 'x-forwarded-for': '203.0.113.7' }), 60);
    // Another client behind the same proxy has its own count.
    expect(
      (await requestNonce(api, evmWallet().address, { 'x-forwarded-for': '203.0.113.7, 203.0.113.8' })).status,
    ).toBe(200);
  });

  it('treats an IPv6 /64 as one client, and an IPv4-mapped address as the IPv4 one', async () => {
    toWindowStart(api);
    await exhaust('2001:db8:1:2::1');
    expectRateLimited(await requestNonce(api, evmWallet().address, { 'x-forwarded-for': '2001:db8:1:2:ffff::9' }), 60);
    expect((await requestNonce(api, evmWallet().address, { 'x-forwarded-for': '2001:db8:1:3::1' })).status).toBe(200);

    await exhaust('198.51.100.4');
    expectRateLimited(await requestNonce(api, evmWallet().address, { 'x-forwarded-for': '::ffff:198.51.100.4' }), 60);
  });

  it('falls back to the socket address when the header is not an IP address', async () => {
    toWindowStart(api);
    // Every garbage value lands in the one bucket of the socket's address (the proxy's).
    for (let i = 0; i < LIMIT; i++) {
      expect((await requestNonce(api, evmWallet().address, { 'x-forwarded-for': `garbage-${i}` })).status).toBe(200);
    }
    expectRateLimited(await requestNonce(api, evmWallet().address, { 'x-forwarded-for': 'more-garbage' }), 60);
    expectRateLimited(await requestNonce(api, evmWallet().address), 60);
  });
});

for (const backend of ['postgres', 'pglite'] as const) {
  describe(`nobody can hoard a wallet's nonces on ${backend}`, () => {
    // The address limit is off (the harness default), as it is for a botnet with 1,000
    // addresses: what stands between the attacker and the owner is the nonce design alone.
    const api = useApi(backend);

    hoardingTests(() => api);
  });
}

describe('the same limits on PGlite (one server, behind a proxy)', () => {
  const api = useApi('pglite', { env: { AUTH_RATE_LIMIT_PER_MINUTE: String(LIMIT), TRUST_PROXY: 'true' } });

  // One client uses up the limit.
  rateLimitTests(
    () => api,
    () => ({ 'x-forwarded-for': '192.0.2.1' }),
  );
});

describe('purge of used nonces and ended rate-limit windows', () => {
  const api = useApi('postgres', { env: { AUTH_RATE_LIMIT_PER_MINUTE: '1000000', TRUST_PROXY: 'true' } });

  const purgeAt = (at: Date, extra: { batchSize?: number; maxBatches?: number } = {}) =>
    purgeExpiredAuthState(api.db.db, { ...authStatePurgeCutoffs(at), ...extra });

  it('a flood of nonce requests from 600 addresses stores no nonce; used ones go once expired', async () => {
    // A minute of room: the windows written below must all still be open at the first purge.
    toWindowStart(api);
    const wallets = Array.from({ length: 40 }, () => evmWallet().address);
    const requests = wallets.flatMap((wallet, w) =>
      Array.from({ length: 15 }, (_, i) => () => requestNonce(api, wallet, { 'x-forwarded-for': `10.1.${w}.${i}` })),
    );
    const statuses: number[] = [];
    for (let i = 0; i < requests.length; i += 50) {
      statuses.push(...(await Promise.all(requests.slice(i, i + 50).map((r) => r()))).map((r) => r.status));
    }
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(await countRows(api, 'used_nonces')).toBe(0);
    expect(await countRows(api, 'rate_limit_hits')).toBeGreaterThanOrEqual(600);

    // 30 sign-ins: one used-nonce row each.
    for (let i = 0; i < 30; i++) await signIn(api, i % 2 ? evmWallet() : solanaWallet());
    expect(await countRows(api, 'used_nonces')).toBe(30);

    // Nothing is purged while the nonces are live and the window is open.
    expect(await purgeAt(api.now())).toEqual({ nonces: 0, rateLimitWindows: 0, sessions: 0 });

    api.advanceClock(api.config.nonceTtlSeconds * 1000 + USED_NONCE_RETENTION_MS + MINUTE);
    // Bounded: one batch of 10 per table when asked for one.
    expect(await purgeAt(api.now(), { batchSize: 10, maxBatches: 1 })).toEqual({
      nonces: 10,
      rateLimitWindows: 10,
      sessions: 0,
    });
    const rest = await purgeAt(api.now(), { batchSize: 10 });
    expect(rest.nonces).toBe(20);
    expect(await countRows(api, 'used_nonces')).toBe(0);
    expect(await countRows(api, 'rate_limit_hits')).toBe(0);
  });

  it('keeps a used nonce past its expiry for the retention margin (a server with a slow clock still finds it)', async () => {
    const wallet = solanaWallet();
    await signIn(api, wallet);
    const used = await api.db.db
      .selectFrom('used_nonces')
      .select('expires_at')
      .where('wallet', '=', wallet.address)
      .execute();
    expect(used).toHaveLength(1);
    const expiry = used[0]!.expires_at.getTime();
    await purgeAt(new Date(expiry + USED_NONCE_RETENTION_MS - 1_000));
    expect(
      await api.db.db.selectFrom('used_nonces').select('nonce').where('wallet', '=', wallet.address).execute(),
    ).toHaveLength(1);
    await purgeAt(new Date(expiry + USED_NONCE_RETENTION_MS + 1_000));
    expect(
      await api.db.db.selectFrom('used_nonces').select('nonce').where('wallet', '=', wallet.address).execute(),
    ).toHaveLength(0);
  });

  it('runs by itself at start (and every minute after)', async () => {
    const past = new Date(api.now().getTime() - 3_600_000);
    await api.db.db
      .insertInto('used_nonces')
      .values(
        Array.from({ length: 50 }, (_, i) => ({
          nonce: `expired${i}`.padEnd(58, 'x'),
          wallet: 'w',
          expires_at: past,
          used_at: past,
        })),
      )
      .execute();
    await api.db.db.insertInto('rate_limit_hits').values({ bucket: 'old', window_start: past, hits: 1 }).execute();
    await api.restart();
    const leftovers = async () => {
      const nonces = await api.db.db.selectFrom('used_nonces').select('nonce').where('wallet', '=', 'w').execute();
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
