/**
 * Publisher routes (CONTRACT.md, Version 4, "Publishers and their keys" and its precise readings),
 * on both backends: statuses and codes for every credential and every wallet spelling; each
 * effective add and remove makes exactly one `publisher.*` log entry (its canonical JSON, read back
 * from the served log) and one `publisher.*` event, and a repeat makes neither; twelve concurrent
 * adds of one wallet make one publisher, one entry and one event.
 */
import { randomBytes } from 'node:crypto';
import { decodeEntryBundle, entriesPath, TILE_WIDTH } from '@signal/core/log';
import { describeBackends } from '@signal/test-support/vitest';
import { beforeAll, expect, it } from 'vitest';
import { readWholeFeed } from '../events-support.js';
import { call, createServiceKey, evmWallet, expectError, signIn, solanaWallet, useApi } from '../harness.js';
import { checkpointOfSize, fetchCheckpoint, fetchVerifierKey, get } from './log-support.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;

/** Every entry of the served log, as text. */
async function servedEntries(url: string, size: number): Promise<string[]> {
  const texts: string[] = [];
  for (let n = 0; n * TILE_WIDTH < size; n++) {
    const res = await get(url, `/log/${entriesPath(n, Math.min(TILE_WIDTH, size - n * TILE_WIDTH))}`);
    expect(res.status).toBe(200);
    texts.push(...decodeEntryBundle(res.body).map((entry) => new TextDecoder().decode(entry)));
  }
  return texts;
}

describeBackends('publisher routes on %s', (backend) => {
  const api = useApi(backend, { env: { ADMIN_KEY } });
  let writer: string;
  let other: string;
  let events: string;
  let userToken: string;
  let providerId: number;
  let key: string;

  const publishers = (id: number | string = providerId) => `/providers/${id}/publishers`;
  const publisherEvents = async () =>
    (await readWholeFeed(api, events)).filter((event) => event.type.startsWith('publisher.'));

  beforeAll(async () => {
    writer = await createServiceKey(api, ADMIN_KEY, 'writer', ['providers:write']);
    other = await createServiceKey(api, ADMIN_KEY, 'stats', ['stats:write']);
    events = await createServiceKey(api, ADMIN_KEY, 'events', ['events:read']);
    userToken = (await signIn(api, evmWallet())).token;
    providerId = (await call(api, 'POST', '/providers', { token: writer, body: { name: 'Publishing Desk' } })).body.id;
    key = await fetchVerifierKey(api.url);
  });

  it('refuses a missing credential (401), another scope or a user token (403), an unknown provider (404)', async () => {
    const wallet = evmWallet().address;
    for (const [method, path, body] of [
      ['POST', publishers(), { wallet }],
      ['DELETE', `${publishers()}/${wallet}`, undefined],
    ] as const) {
      expectError(await call(api, method, path, { body }), 401, 'UNAUTHORIZED');
      expectError(await call(api, method, path, { body, token: 'sgk_notakey' }), 401, 'UNAUTHORIZED');
      expectError(await call(api, method, path, { body, token: other }), 403, 'FORBIDDEN');
      expectError(await call(api, method, path, { body, token: userToken }), 403, 'FORBIDDEN');
    }
    expectError(
      await call(api, 'POST', publishers(9_007_199_254_740_991), { token: writer, body: { wallet } }),
      404,
      'PROVIDER_NOT_FOUND',
    );
    expectError(
      await call(api, 'DELETE', `${publishers(987_654)}/${wallet}`, { token: writer }),
      404,
      'PROVIDER_NOT_FOUND',
    );
    expectError(await call(api, 'GET', publishers(987_654)), 404, 'PROVIDER_NOT_FOUND');
    expectError(await call(api, 'GET', publishers('abc')), 400, 'VALIDATION_ERROR');
    expectError(await call(api, 'POST', publishers(), { token: writer, body: {} }), 400, 'VALIDATION_ERROR');
    expectError(
      await call(api, 'POST', publishers(), { token: writer, body: { wallet: 'nope' } }),
      400,
      'INVALID_WALLET',
    );
    // A mixed-case address whose EIP-55 checksum fails: one letter's case flipped.
    const letter = wallet.slice(2).search(/[a-fA-F]/) + 2;
    const flipped =
      wallet[letter] === wallet[letter]!.toLowerCase() ? wallet[letter]!.toUpperCase() : wallet[letter]!.toLowerCase();
    const badChecksum = `${wallet.slice(0, letter)}${flipped}${wallet.slice(letter + 1)}`;
    expectError(
      await call(api, 'POST', publishers(), { token: writer, body: { wallet: badChecksum } }),
      400,
      'INVALID_WALLET',
    );
    expectError(await call(api, 'DELETE', `${publishers()}/nope`, { token: writer }), 400, 'INVALID_WALLET');
    expectError(await call(api, 'DELETE', `${publishers()}/${wallet}`, { token: writer }), 404, 'NOT_FOUND');
    // Nothing of that reached the log or the feed.
    expect((await fetchCheckpoint(api.url, key)).size).toBe(0);
    expect(await publisherEvents()).toEqual([]);
  });

  it('adds, repeats, removes, repeats and re-adds: one entry and one event per effective change', async () => {
    const evm = evmWallet().address;
    const sol = solanaWallet().address;
    const before = (await fetchCheckpoint(api.url, key)).size;

    const added = await call(api, 'POST', publishers(), { token: writer, body: { wallet: evm.toLowerCase() } });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ providerId, wallet: evm, chain: 'evm', addedAt: expect.any(String), removedAt: null });
    const again = await call(api, 'POST', publishers(), {
      token: writer,
      body: { wallet: `0x${evm.slice(2).toUpperCase()}` },
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(added.body);
    const solana = await call(api, 'POST', publishers(), { token: writer, body: { wallet: sol } });
    expect(solana.status).toBe(201);
    expect(solana.body).toMatchObject({ wallet: sol, chain: 'solana', removedAt: null });

    const removed = await call(api, 'DELETE', `${publishers()}/${evm.toLowerCase()}`, { token: writer });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ providerId, wallet: evm, removed: true });
    const removedAgain = await call(api, 'DELETE', `${publishers()}/${evm}`, { token: writer });
    expect(removedAgain.status).toBe(200);
    expect(removedAgain.body).toEqual(removed.body);

    const readded = await call(api, 'POST', publishers(), { token: writer, body: { wallet: evm } });
    expect(readded.status).toBe(201);
    expect(readded.body.addedAt >= added.body.addedAt).toBe(true);

    const list = await call(api, 'GET', publishers());
    expect(list.status).toBe(200);
    const [first, second, third] = list.body.items;
    expect(list.body.items).toHaveLength(3);
    expect(first).toMatchObject({ wallet: evm, addedAt: added.body.addedAt, removedAt: expect.any(String) });
    expect(second).toEqual(solana.body);
    expect(third).toEqual(readded.body);

    // The log: four entries, canonical JSON with sorted keys, in the order of the changes.
    const checkpoint = await checkpointOfSize(api.url, key, before + 4);
    expect(checkpoint.size).toBe(before + 4);
    const entries = (await servedEntries(api.url, checkpoint.size)).slice(before);
    expect(entries).toEqual([
      `{"at":"${added.body.addedAt}","provider":${providerId},"type":"publisher.added","v":1,"wallet":"${evm}"}`,
      `{"at":"${solana.body.addedAt}","provider":${providerId},"type":"publisher.added","v":1,"wallet":"${sol}"}`,
      `{"at":"${first.removedAt}","provider":${providerId},"type":"publisher.removed","v":1,"wallet":"${evm}"}`,
      `{"at":"${readded.body.addedAt}","provider":${providerId},"type":"publisher.added","v":1,"wallet":"${evm}"}`,
    ]);
    // The feed: the same four changes, once each.
    const announced = (await publisherEvents()).map((event) => [event.type, event.data]);
    expect(announced).toEqual([
      ['publisher.added', { wallet: evm, providerId }],
      ['publisher.added', { wallet: sol, providerId }],
      ['publisher.removed', { wallet: evm, providerId }],
      ['publisher.added', { wallet: evm, providerId }],
    ]);
  });

  it('makes one publisher, one entry and one event of twelve concurrent adds of one wallet', async () => {
    const wallet = evmWallet().address;
    const before = (await fetchCheckpoint(api.url, key)).size;
    const eventsBefore = (await publisherEvents()).length;
    const replies = await Promise.all(
      Array.from({ length: 12 }, () => call(api, 'POST', publishers(), { token: writer, body: { wallet } })),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    for (const reply of replies) expect(reply.body).toEqual(replies[0]!.body);
    await checkpointOfSize(api.url, key, before + 1);
    // Past the poll interval a few times over: no second entry comes.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await fetchCheckpoint(api.url, key)).size).toBe(before + 1);
    expect((await publisherEvents()).length).toBe(eventsBefore + 1);
  });

  it('hides an archived provider’s publishers from the public read, and still takes changes', async () => {
    const id = (await call(api, 'POST', '/providers', { token: writer, body: { name: 'Archived Desk' } })).body.id;
    const wallet = evmWallet().address;
    expect((await call(api, 'POST', publishers(id), { token: writer, body: { wallet } })).status).toBe(201);
    expect((await call(api, 'DELETE', `/providers/${id}`, { token: writer })).status).toBe(200);
    expectError(await call(api, 'GET', publishers(id)), 404, 'PROVIDER_NOT_FOUND');
    expect((await call(api, 'DELETE', `${publishers(id)}/${wallet}`, { token: writer })).status).toBe(200);
  });
});
