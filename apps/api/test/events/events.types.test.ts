/**
 * The event types the feed test (events.feed.test.ts) does not trigger, each from its real
 * trigger through the public surface and read back from the feed with its data, on PostgreSQL
 * and PGlite: provider.created/updated/archived/restored and provider.stats.updated by the
 * operator's routes, wallet.linked/unlinked (with the unlinked wallet's session.revoked); and
 * none from the writes that change nothing (a repeated archive, a PATCH to the same values, a
 * restore of a live provider, a wallet linked again, an unlink refused).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readWholeFeed } from '../events-support.js';
import { call, evmWallet, signIn, solanaWallet, type TestWallet, useApi } from '../harness.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;

describe.each(['postgres', 'pglite'] as const)('event types from their triggers on %s', (backend) => {
  const api = useApi(backend, { env: { ADMIN_KEY, SEED_PROVIDERS: '1' } });

  /** The events since the feed's length `from`, as [type, data]. */
  const since = async (from: number) =>
    (await readWholeFeed(api, ADMIN_KEY)).slice(from).map(({ type, data }) => [type, data]);
  const write = (method: string, path: string, body?: unknown) => call(api, method, path, { token: ADMIN_KEY, body });

  it('provider.* and provider.stats.updated, none from a write that changed nothing', async () => {
    const from = (await readWholeFeed(api, ADMIN_KEY)).length;
    const created = await write('POST', '/providers', { name: 'Event Desk' });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    expect((await write('PATCH', `/providers/${id}`, { description: 'Swing trades' })).status).toBe(200);
    // The same values again, and a restore of a provider that is not archived: nothing.
    expect((await write('PATCH', `/providers/${id}`, { description: 'Swing trades' })).status).toBe(200);
    expect((await write('PATCH', `/providers/${id}`, { archived: false })).status).toBe(200);
    expect((await write('DELETE', `/providers/${id}`)).status).toBe(200);
    expect((await write('DELETE', `/providers/${id}`)).status).toBe(200); // idempotent: nothing
    expect((await write('PATCH', `/providers/${id}`, { archived: false })).status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect((await write('POST', `/providers/${id}/performance`, { points: [{ date: today, nav: 1.02 }] })).status).toBe(
      200,
    );
    expect(await since(from)).toEqual([
      ['provider.created', { providerId: id }],
      ['provider.updated', { providerId: id }],
      ['provider.archived', { providerId: id }],
      ['provider.restored', { providerId: id }],
      ['provider.stats.updated', { providerId: id }],
    ]);
  });

  it('wallet.linked and wallet.unlinked (with its sessions revoked), none from a repeated link or a refused unlink', async () => {
    const owner = evmWallet();
    const start = await signIn(api, owner);
    const userId = start.user.id;
    const link = async (wallet: TestWallet) => {
      const issued = await call(api, 'GET', `/auth/nonce?wallet=${encodeURIComponent(wallet.address)}&purpose=link`, {
        token: start.token,
      });
      const signature = await wallet.sign(issued.body.message);
      return call(api, 'POST', '/me/wallets', {
        token: start.token,
        body: { wallet: wallet.address, nonce: issued.body.nonce, signature },
      });
    };
    const sol = solanaWallet();
    const from = (await readWholeFeed(api, ADMIN_KEY)).length;
    expect((await link(sol)).status).toBe(201);
    expect((await link(sol)).status).toBe(200); // already linked: nothing
    const solSession = await signIn(api, sol);
    expect((await call(api, 'DELETE', `/me/wallets/${evmWallet().address}`, { token: start.token })).status).toBe(404);
    expect((await call(api, 'DELETE', `/me/wallets/${sol.address}`, { token: start.token })).status).toBe(200);
    expect((await call(api, 'DELETE', `/me/wallets/${owner.address}`, { token: start.token })).status).toBe(409);
    expect(await since(from)).toEqual([
      ['wallet.linked', { userId, wallet: sol.address, chain: 'solana' }],
      ['session.created', { userId, sessionId: solSession.sessionId }],
      ['wallet.unlinked', { userId, wallet: sol.address, chain: 'solana' }],
      ['session.revoked', { userId, sessionId: solSession.sessionId }],
    ]);
  });
});
