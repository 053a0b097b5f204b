/**
 * Fake accounts, attacked as the Sybil loop does it: fresh wallet → nonce → verify, again and
 * again, from one address, from one IPv6 /64, and from many /64s of one /56. New accounts are
 * limited per address (IPv6: per /64) and per /56, each with its own budget, in the transaction
 * that creates the user: past a budget 429 RATE_LIMITED with Retry-After, no user, the nonce
 * unused; concurrent attempts never overshoot; a returning wallet is never limited. Client
 * addresses come through TRUST_PROXY=1 and X-Forwarded-For (the test is the proxy), as
 * loopback cannot bind IPv6 networks.
 */
import type { Backend } from '@signal/db';
import { describe, expect, it } from 'vitest';
import { call, evmWallet, type Reply, signIn, type TestApi, type TestWallet, useApi } from '../harness.js';

const PER_ADDRESS = 4;
const PER_56 = 10;

/** One sign-in attempt as the client at `address`: the verify reply and the nonce it used. */
async function attempt(api: TestApi, address: string, wallet: TestWallet = evmWallet()) {
  const headers = { 'x-forwarded-for': address };
  const nonce = await call(api, 'GET', `/auth/nonce?wallet=${wallet.address}`, { headers });
  expect(nonce.status).toBe(200);
  const reply: Reply = await call(api, 'POST', '/auth/verify', {
    headers,
    body: { wallet: wallet.address, nonce: nonce.body.nonce, signature: await wallet.sign(nonce.body.message) },
  });
  return { reply, nonce: nonce.body.nonce as string, wallet };
}

async function userCount(api: TestApi): Promise<number> {
  const row = await api.db.db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function nonceUsed(api: TestApi, nonce: string): Promise<boolean> {
  return (await api.db.db.selectFrom('used_nonces').select('nonce').where('nonce', '=', nonce).execute()).length > 0;
}

/** N attempts one after another: how many created an account, and the refusals. */
async function loop(api: TestApi, addresses: (i: number) => string, n: number) {
  const before = await userCount(api);
  const refused: Awaited<ReturnType<typeof attempt>>[] = [];
  for (let i = 0; i < n; i++) {
    const result = await attempt(api, addresses(i));
    if (result.reply.status !== 200) refused.push(result);
  }
  return { created: (await userCount(api)) - before, refused };
}

function newAccounts(backend: Backend) {
  describe(`new accounts per address, /64 and /56 on ${backend}`, () => {
    const api = useApi(backend, {
      env: {
        TRUST_PROXY: '1',
        NEW_USER_RATE_LIMIT_PER_HOUR: String(PER_ADDRESS),
        NEW_USER_RATE_LIMIT_PER_HOUR_PER_56: String(PER_56),
      },
    });

    it('the Sybil loop from one address: the budget, then 429 with Retry-After, no user, the nonce unused', async () => {
      const { created, refused } = await loop(api, () => '198.51.100.7', 12);
      expect(created).toBe(PER_ADDRESS);
      expect(refused).toHaveLength(12 - PER_ADDRESS);
      for (const { reply, nonce } of refused) {
        expect(reply.status).toBe(429);
        expect(reply.body.code).toBe('RATE_LIMITED');
        expect(reply.body.message).toMatch(/new accounts an hour from this address/);
        const retryAfter = Number(reply.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThan(0);
        expect(retryAfter).toBeLessThanOrEqual(3600);
        expect(reply.headers.get('ratelimit-policy')).toBe(`"new-user";q=${PER_ADDRESS};w=3600`);
        expect(await nonceUsed(api, nonce)).toBe(false);
      }
      // Another address has its own budget.
      expect((await attempt(api, '198.51.100.8')).reply.status).toBe(200);
    });

    it('a returning wallet is never limited, even past the budget of its address', async () => {
      const address = '198.51.100.9';
      const returning: TestWallet[] = [];
      for (let i = 0; i < PER_ADDRESS; i++) {
        const { reply, wallet } = await attempt(api, address);
        expect(reply.status).toBe(200);
        returning.push(wallet);
      }
      const refused = await attempt(api, address);
      expect(refused.reply.status).toBe(429);
      for (const wallet of returning) {
        const again = await signIn(api, wallet, { headers: { 'x-forwarded-for': address } });
        expect(again.isNewUser).toBe(false);
      }
    });

    it('concurrent sign-ins of fresh wallets from one address never overshoot the budget', async () => {
      const before = await userCount(api);
      const results = await Promise.all(Array.from({ length: 16 }, () => attempt(api, '198.51.100.10')));
      const statuses = results.map(({ reply }) => reply.status).sort();
      expect(statuses.filter((s) => s === 200)).toHaveLength(PER_ADDRESS);
      expect(statuses.filter((s) => s === 429)).toHaveLength(16 - PER_ADDRESS);
      expect((await userCount(api)) - before).toBe(PER_ADDRESS);
    });

    it('one IPv6 /64: every address in it shares one budget', async () => {
      const { created, refused } = await loop(api, (i) => `2001:db8:0:1::${(i + 1).toString(16)}`, 10);
      expect(created).toBe(PER_ADDRESS);
      expect(refused.every(({ reply }) => reply.status === 429)).toBe(true);
    });

    it('many /64s of one /56: each /64 its own budget, all of them the /56 budget', async () => {
      // 2001:db8:0:a00::/56 holds 2001:db8:0:a00::/64 … 2001:db8:0:aff::/64.
      const { created, refused } = await loop(api, (i) => `2001:db8:0:a${i.toString(16).padStart(2, '0')}::1`, 16);
      expect(created).toBe(PER_56);
      expect(refused[0]?.reply.body.message).toMatch(/new accounts an hour from this \/56 network/);
      // A /64 of another /56 is not affected.
      expect((await attempt(api, '2001:db8:0:b00::1')).reply.status).toBe(200);
    });
  });
}

newAccounts('postgres');
newAccounts('pglite');
