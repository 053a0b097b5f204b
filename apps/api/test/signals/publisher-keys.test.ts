/**
 * Delegated keys (CONTRACT.md, Version 4, "Publishers and their keys", "Signed statements" and
 * their precise readings), on both backends, signed by an EVM wallet (viem), a Solana wallet
 * (tweetnacl) and a delegated key (node:crypto): the checks in the contract's order with their
 * issue paths; the timeline at its edges (a key just past its expiry, a revoked key, a wallet
 * removed between two statements and added again); the byte-identical retry (200, nothing
 * appended, after the skew window and after the signer lost its right); concurrent duplicates on
 * two servers (one entry, one event); each statement in the log whole, one event per change.
 */
import { describeBackends } from '@signal/test-support/vitest';
import { beforeAll, expect, it } from 'vitest';
import { readWholeFeed } from '../events-support.js';
import { call, evmWallet, expectError, trpcClient } from '../harness.js';
import { checkpointOfSize, fetchCheckpoint } from '../log/log-support.js';
import {
  type Body,
  delegatedKey,
  delegationFields,
  post,
  SKEW_SECONDS,
  type StatementSigner,
  servedEntry,
  signed,
  useStatementServers,
  walletSigner,
} from './statement-support.js';

const ORIGIN = 'keys.test/signals';
const RATE_LIMIT = 40;

describeBackends('delegated keys on %s', (backend) => {
  const servers = useStatementServers(backend, ORIGIN, RATE_LIMIT);
  const { a, b, keys, evm, sol, wallet, solana } = servers;
  let providerId: number;

  const keysPath = (id: number = providerId) => `/providers/${id}/publisher-keys`;
  const revokePath = (key: string, id: number = providerId) => `${keysPath(id)}/${key}/revoke`;
  const now = () => new Date().toISOString();
  const delegation = (key: string, extra: Record<string, unknown> = {}) =>
    delegationFields(ORIGIN, providerId, key, extra);
  const revocation = (key: string, extra: Record<string, unknown> = {}) => ({
    issuedAt: now(),
    key,
    log: ORIGIN,
    provider: providerId,
    type: 'key.revoke',
    v: 1,
    ...extra,
  });
  const delegate = async (key: string, by: StatementSigner = wallet, extra = {}) =>
    post(a, keysPath(), await signed(delegation(key, extra), by));
  const keyEvents = async () =>
    (await readWholeFeed(a, keys.events)).filter((event) => event.type.startsWith('publisher_key.'));
  const addPublisher = (address: string, id = providerId) =>
    call(a, 'POST', `/providers/${id}/publishers`, { token: keys.writer, body: { wallet: address } });

  beforeAll(async () => {
    providerId = (await call(a, 'POST', '/providers', { token: keys.writer, body: { name: 'Key Desk' } })).body.id;
    expect((await addPublisher(evm.address)).status).toBe(201);
    expect((await addPublisher(sol.address)).status).toBe(201);
  });

  it('refuses in the contract order, each failure with its code and issue path', async () => {
    const key = delegatedKey().key;
    const body = await signed(delegation(key), wallet);
    const path = (reply: Awaited<ReturnType<typeof post>>, status: number, code: string) =>
      expectError(reply, status, code).issues?.map((issue) => issue.path);
    const raw = (statement: string, signer = evm.address, signature = body.signature) =>
      post(a, keysPath(), { statement, signer, signature });

    // body
    expect(
      path(
        await call(a, 'POST', keysPath(), { body: { signer: evm.address, signature: 'x' } }),
        400,
        'VALIDATION_ERROR',
      ),
    ).toContainEqual(['statement']);
    // JSON, canonical form (a space; a needless escape; 1.0), the 4,096 bytes
    for (const statement of [
      '{"v":1',
      body.statement.replace('"v":1', '"v": 1'),
      body.statement.replace('"key.delegate"', '"k\\u0065y.delegate"'),
      body.statement.replace('"v":1', '"v":1.0'),
      body.statement.replace('"type"', `"pad":"${'x'.repeat(4_100)}","type"`),
    ]) {
      expect(path(await raw(statement), 400, 'VALIDATION_ERROR')).toEqual([['statement']]);
    }
    // schema: a type this route does not take, an unknown field, a missing one, a key lifetime over 365 days
    expect(path(await delegate(key, wallet, { type: 'key.revoke' }), 400, 'VALIDATION_ERROR')).toEqual([
      ['statement', 'type'],
    ]);
    expect(path(await delegate(key, wallet, { leverage: 10 }), 400, 'VALIDATION_ERROR')).toContainEqual([
      'statement',
      'leverage',
    ]);
    expect(path(await delegate(key, wallet, { key: undefined }), 400, 'VALIDATION_ERROR')).toContainEqual([
      'statement',
      'key',
    ]);
    const tooLong = new Date(Date.now() + 366 * 86_400_000).toISOString();
    expect(path(await delegate(key, wallet, { expiresAt: tooLong }), 400, 'VALIDATION_ERROR')).toContainEqual([
      'statement',
      'expiresAt',
    ]);
    // log, then provider (even with a bad signer), then issuedAt
    expect(
      path(
        await post(a, keysPath(), { ...(await signed(delegation(key, { log: 'other/log' }), wallet)), signer: 'nope' }),
        400,
        'VALIDATION_ERROR',
      ),
    ).toEqual([['statement', 'log']]);
    expect(path(await delegate(key, wallet, { provider: providerId + 1 }), 400, 'VALIDATION_ERROR')).toEqual([
      ['statement', 'provider'],
    ]);
    const late = new Date(Date.now() - (SKEW_SECONDS + 5) * 1000).toISOString();
    expect(path(await delegate(key, wallet, { issuedAt: late }), 400, 'VALIDATION_ERROR')).toEqual([
      ['statement', 'issuedAt'],
    ]);
    // signer format before the provider: an unknown provider with a malformed signer is INVALID_WALLET
    const elsewhere = { ...delegation(key), provider: 987_654 };
    const unknownProvider = await signed(elsewhere, wallet);
    expectError(
      await post(a, keysPath(987_654), { ...unknownProvider, signer: 'ed25519:0OIl' }),
      400,
      'INVALID_WALLET',
    );
    expectError(await post(a, keysPath(987_654), unknownProvider), 404, 'PROVIDER_NOT_FOUND');
    // not allowed before the signature: a stranger's bad signature is 403; a publisher's is 401
    const stranger = evmWallet();
    expectError(await post(a, keysPath(), { ...body, signer: stranger.address }), 403, 'FORBIDDEN');
    expectError(
      await post(a, keysPath(), { ...body, signature: await stranger.sign(body.statement) }),
      401,
      'INVALID_SIGNATURE',
    );
    // a key cannot delegate: 403 even with its own good signature
    const bot = delegatedKey();
    expectError(await delegate(key, bot), 403, 'FORBIDDEN');
    // nothing of this reached the log or the feed
    expect(await keyEvents()).toEqual([]);
    expect((await call(a, 'GET', keysPath())).body.items).toEqual([]);
  });

  it('delegates with an EVM and a Solana wallet; the key revokes itself; each statement is in the log whole', async () => {
    const viaEvm = delegatedKey();
    const viaSolana = delegatedKey();
    const body = await signed(delegation(viaEvm.key), wallet);
    // an Authorization header is ignored, even one that is no credential at all
    const first = await post(a, keysPath(), body, 'sgk_not-a-key');
    expect(first.status).toBe(201);
    const parsed = JSON.parse(body.statement);
    expect(first.body).toEqual({
      key: viaEvm.key,
      providerId,
      wallet: evm.address,
      issuedAt: parsed.issuedAt,
      expiresAt: parsed.expiresAt,
      revokedAt: null,
      logIndex: expect.any(Number),
    });
    const second = await delegate(viaSolana.key, solana);
    expect(second.status).toBe(201);
    expect(second.body.wallet).toBe(sol.address);

    // the entry is the statement whole, in canonical JSON, in a signed checkpoint already
    const checkpoint = await fetchCheckpoint(a.url, keys.verifierKey);
    expect(checkpoint.size).toBeGreaterThan(first.body.logIndex);
    const entry = await servedEntry(a.url, keys.verifierKey, first.body.logIndex);
    const fields = JSON.parse(entry);
    expect(fields).toEqual({
      provider: providerId,
      receivedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      signature: body.signature,
      signer: evm.address,
      statement: body.statement,
      type: 'key.delegate',
      v: 1,
    });
    expect(entry).toBe(JSON.stringify(fields)); // keys written in sorted order, no white space

    // the key revokes itself (an Ed25519 signature by node:crypto)
    const revoked = await post(a, revokePath(viaEvm.key), await signed(revocation(viaEvm.key), viaEvm));
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ key: viaEvm.key, revoked: true, logIndex: expect.any(Number) });
    expect(revoked.body.logIndex).toBeGreaterThan(first.body.logIndex);
    expect(JSON.parse(await servedEntry(a.url, keys.verifierKey, revoked.body.logIndex))).toMatchObject({
      signer: viaEvm.key,
      type: 'key.revoke',
    });
    // again, by the wallet with a new statement: the first revoke's answer, nothing appended
    const again = await post(a, revokePath(viaEvm.key), await signed(revocation(viaEvm.key), wallet));
    expect(again.status).toBe(200);
    expect(again.body).toEqual(revoked.body);

    const list = await call(a, 'GET', keysPath());
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([{ ...first.body, revokedAt: expect.any(String) }, second.body]);
    expect(Date.parse(list.body.items[0].revokedAt)).toBeGreaterThanOrEqual(Date.parse(first.body.issuedAt));
    // the same list over tRPC
    expect(await trpcClient(b).publisherKeys.list.query({ id: providerId })).toEqual(list.body);
    expect((await keyEvents()).map((event) => [event.type, event.data])).toEqual([
      ['publisher_key.delegated', { key: viaEvm.key, wallet: evm.address, providerId }],
      ['publisher_key.delegated', { key: viaSolana.key, wallet: sol.address, providerId }],
      ['publisher_key.revoked', { key: viaEvm.key, wallet: evm.address, providerId }],
    ]);
    // a key is delegated once, revoked or not; the path's key must be the statement's
    expectError(await delegate(viaEvm.key), 409, 'IDEMPOTENCY_CONFLICT');
    const mismatch = await post(a, revokePath(viaSolana.key), await signed(revocation(viaEvm.key), wallet));
    expect(expectError(mismatch, 400, 'VALIDATION_ERROR').issues?.map((issue) => issue.path)).toEqual([
      ['statement', 'key'],
    ]);
    expectError(
      await post(a, revokePath(delegatedKey().key), await signed(revocation('x'), wallet)),
      400,
      'VALIDATION_ERROR',
    );
    const never = delegatedKey().key;
    expectError(await post(a, revokePath(never), await signed(revocation(never), wallet)), 404, 'NOT_FOUND');
  });

  it('a retry gets the first answer with 200 and appends nothing, after the skew window and a lost right too', async () => {
    const temp = evmWallet();
    expect((await addPublisher(temp.address)).status).toBe(201);
    const key = delegatedKey().key;
    const body = await signed(delegation(key), walletSigner(temp));
    const first = await post(a, keysPath(), body);
    expect(first.status).toBe(201);
    const before = (await keyEvents()).length;
    // past SIGNAL_MAX_SKEW_SECONDS, and with the signer no longer a publisher
    await servers.waitPastSkewWindow();
    const sizeBeforeRemoval = (await fetchCheckpoint(a.url, keys.verifierKey)).size;
    expect(
      (await call(a, 'DELETE', `/providers/${providerId}/publishers/${temp.address}`, { token: keys.writer })).status,
    ).toBe(200);
    // the removal's own entry is in the log before the retries are counted
    const sizeBefore = (await checkpointOfSize(a.url, keys.verifierKey, sizeBeforeRemoval + 1)).size;
    for (const server of [a, b]) {
      const retry = await post(server, keysPath(), body);
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual(first.body);
    }
    expect((await keyEvents()).length).toBe(before);
    expect((await fetchCheckpoint(a.url, keys.verifierKey)).size).toBe(sizeBefore);
    // a fresh statement of the same key after the window: not a retry, and the right is gone
    expectError(await delegate(delegatedKey().key, walletSigner(temp)), 403, 'FORBIDDEN');
  });

  it('concurrent duplicates on two servers make one entry and one event', async () => {
    const key = delegatedKey().key;
    const body: Body = await signed(delegation(key), solana);
    const before = (await keyEvents()).length;
    const replies = await servers.postCopiesAtOnce(keysPath(), body);
    for (const reply of replies) expect(reply.body).toEqual(replies[0]!.body);
    const after = await keyEvents();
    expect(after.length).toBe(before + 1);
    expect(after.at(-1)!.data).toEqual({ key, wallet: sol.address, providerId });
    expect(JSON.parse(await servedEntry(a.url, keys.verifierKey, replies[0]!.body.logIndex)).statement).toBe(
      body.statement,
    );
  });

  it('the timeline at its edges: a key past its expiry, a wallet removed between two statements and added again', async () => {
    const short = delegatedKey();
    const expiresAt = new Date(Date.now() + 1_200).toISOString();
    expect((await delegate(short.key, wallet, { expiresAt })).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(expiresAt) - Date.now()) + 5));
    const late = await post(a, revokePath(short.key), await signed(revocation(short.key), short));
    expect(expectError(late, 403, 'FORBIDDEN').message).toContain('key expired');
    // a publisher wallet may still revoke the expired key (the path's key percent-encoded, as a client may send it)
    const byWallet = await post(
      a,
      revokePath(encodeURIComponent(short.key)),
      await signed(revocation(short.key), wallet),
    );
    expect(byWallet.status).toBe(200);

    const desk = evmWallet();
    expect((await addPublisher(desk.address)).status).toBe(201);
    const bot = delegatedKey();
    const spare = delegatedKey();
    expect((await delegate(bot.key, walletSigner(desk))).status).toBe(201);
    expect(
      (await call(a, 'DELETE', `/providers/${providerId}/publishers/${desk.address}`, { token: keys.writer })).status,
    ).toBe(200);
    expectError(await delegate(spare.key, walletSigner(desk)), 403, 'FORBIDDEN');
    const orphan = await post(a, revokePath(bot.key), await signed(revocation(bot.key), bot));
    expect(expectError(orphan, 403, 'FORBIDDEN').message).toContain('key wallet removed');
    // added again: the wallet signs again, its old key stays dead
    expect((await addPublisher(desk.address)).status).toBe(201);
    expect((await delegate(spare.key, walletSigner(desk))).status).toBe(201);
    expectError(await post(a, revokePath(bot.key), await signed(revocation(bot.key), bot)), 403, 'FORBIDDEN');
  });

  it('limits statements per signer (429), never by forgeries naming it, and archived providers leave the routes (404)', async () => {
    const publisher = evmWallet();
    expect((await addPublisher(publisher.address)).status).toBe(201);
    await servers.expectStatementLimits(
      keysPath(),
      (by) => signed(delegation(delegatedKey().key), by),
      walletSigner(publisher),
    );

    const archived = (await call(a, 'POST', '/providers', { token: keys.writer, body: { name: 'Closed Desk' } })).body
      .id;
    expect((await addPublisher(evm.address, archived)).status).toBe(201);
    expect((await call(a, 'DELETE', `/providers/${archived}`, { token: keys.writer })).status).toBe(200);
    const body = await signed({ ...delegation(delegatedKey().key), provider: archived }, wallet);
    expectError(await post(a, keysPath(archived), body), 404, 'PROVIDER_NOT_FOUND');
    expectError(await call(a, 'GET', keysPath(archived)), 404, 'PROVIDER_NOT_FOUND');
  }, 60_000);
});
