/**
 * The signal statement routes' checks (CONTRACT.md, Version 4, "Signed statements", "Signals" and
 * their precise readings), on both backends and two servers: the validation matrix in the
 * contract's order with its issue paths; every signer kind (an EVM wallet by viem, a Solana
 * wallet by tweetnacl, a delegated key by node:crypto); the authorization timeline at its edges
 * (a key just past its expiry, a revoked key, a wallet removed between two statements); ids
 * shared by opens and updates; the byte-identical retry (200, nothing appended, after the skew
 * window); concurrent duplicates on two servers (one entry, one event); the per-signer limit.
 */
import { describeBackends } from '@signal/test-support/vitest';
import { beforeAll, expect, it } from 'vitest';
import { readWholeFeed } from '../events-support.js';
import { call, evmWallet, expectError } from '../harness.js';
import { checkpointOfSize, fetchCheckpoint } from '../log/log-support.js';
import {
  changeFields,
  changeSignal,
  newDesk,
  newId,
  openFields,
  openSignal,
  type SignalDesk,
  signalsPath,
  updatesPath,
} from './signal-support.js';
import {
  checkReceipt,
  delegatedKey,
  delegationFields,
  post,
  postFrom,
  SKEW_SECONDS,
  servedEntry,
  signed,
  useStatementServers,
  walletSigner,
} from './statement-support.js';

const ORIGIN = 'statements.test/signals';
const RATE_LIMIT = 30;

describeBackends('signal statements on %s', (backend) => {
  const servers = useStatementServers(backend, ORIGIN, RATE_LIMIT);
  const { a, b, keys, evm, sol, wallet, solana } = servers;
  let desk: SignalDesk;

  const signalEvents = async () =>
    (await readWholeFeed(a, keys.events)).filter(
      (event) =>
        event.type.startsWith('signal.') && (event.data as { providerId: number }).providerId === desk.providerId,
    );
  const paths = (reply: { status: number; body: unknown }, status: number, code: string) =>
    expectError(reply as never, status, code).issues?.map((issue) => issue.path);
  const keyStatement = (key: string, extra: Record<string, unknown> = {}) =>
    delegationFields(ORIGIN, desk.providerId, key, extra);
  const delegate = async (key: string, extra: Record<string, unknown> = {}) =>
    post(a, `/providers/${desk.providerId}/publisher-keys`, await signed(keyStatement(key, extra), wallet));

  beforeAll(async () => {
    desk = await newDesk(a, ORIGIN, keys.writer, [evm.address, sol.address]);
  });

  it('refuses in the contract order, each failure with its code and issue path, appending nothing', async () => {
    const path = signalsPath(desk.providerId);
    const fields = openFields(desk);
    const body = await signed(fields, wallet);
    const raw = (statement: string, signer = evm.address) =>
      post(a, path, { statement, signer, signature: body.signature });
    const open = async (extra: Record<string, unknown>, by = wallet) =>
      post(a, path, await signed(openFields(desk, extra), by));

    // body, JSON, canonical form, the 4,096 bytes
    expect(
      paths(await call(a, 'POST', path, { body: { signer: evm.address, signature: 'x' } }), 400, 'VALIDATION_ERROR'),
    ).toContainEqual(['statement']);
    for (const statement of [
      '{"v":1',
      body.statement.replace('"v":1', '"v": 1'),
      body.statement.replace('"v":1', '"v":1.0'),
      body.statement.replace('"signal.open"', '"sign\\u0061l.open"'),
      body.statement.replace('"type"', `"pad":"${'x'.repeat(4_100)}","type"`),
    ]) {
      expect(paths(await raw(statement), 400, 'VALIDATION_ERROR')).toEqual([['statement']]);
    }
    // schema: each field's path from "statement"
    const schema: [Record<string, unknown>, (string | number)[]][] = [
      [{ type: 'signal.update' }, ['statement', 'type']],
      [{ leverage: 10 }, ['statement', 'leverage']],
      [{ stop: undefined }, ['statement', 'stop']],
      [{ targets: undefined }, ['statement', 'targets']],
      [{ expiresAt: undefined }, ['statement', 'expiresAt']],
      [{ entry: { type: 'limit', price: '01.5' } }, ['statement', 'entry', 'price']],
      [{ entry: { type: 'limit', price: '0' } }, ['statement', 'entry', 'price']],
      [{ sizePct: '100.000000000001' }, ['statement', 'sizePct']],
      [{ sizePct: '0' }, ['statement', 'sizePct']],
      [{ targets: Array.from({ length: 11 }, () => '1') }, ['statement', 'targets']],
      [{ instrument: 'btc-usd' }, ['statement', 'instrument']],
      [{ note: 'a\u0007b' }, ['statement', 'note']],
      [{ note: 'x'.repeat(501) }, ['statement', 'note']],
      [{ id: 'has space' }, ['statement', 'id']],
      [{ salt: 'short' }, ['statement', 'salt']],
      [{ side: 'up' }, ['statement', 'side']],
      [{ expiresAt: new Date(Date.now() - 1000).toISOString() }, ['statement', 'expiresAt']],
    ];
    for (const [extra, where] of schema) {
      expect(paths(await open(extra), 400, 'VALIDATION_ERROR'), JSON.stringify(extra)).toContainEqual(where);
    }
    // log, then provider (even with a bad signer), then issuedAt
    expect(
      paths(
        await post(a, path, { ...(await signed(openFields(desk, { log: 'x/y' }), wallet)), signer: 'nope' }),
        400,
        'VALIDATION_ERROR',
      ),
    ).toEqual([['statement', 'log']]);
    expect(paths(await open({ provider: desk.providerId + 1 }), 400, 'VALIDATION_ERROR')).toEqual([
      ['statement', 'provider'],
    ]);
    const late = new Date(Date.now() - (SKEW_SECONDS + 5) * 1000).toISOString();
    expect(paths(await open({ issuedAt: late }), 400, 'VALIDATION_ERROR')).toEqual([['statement', 'issuedAt']]);
    // signer format, before the provider
    const elsewhere = await signed({ ...openFields(desk), provider: 987_654 }, wallet);
    expectError(await post(a, signalsPath(987_654), { ...elsewhere, signer: '0x12' }), 400, 'INVALID_WALLET');
    expectError(await post(a, signalsPath(987_654), elsewhere), 404, 'PROVIDER_NOT_FOUND');
    // not allowed (403) before the signature (401); signed now, within the skew window
    const stranger = evmWallet();
    Object.assign(body, await signed({ ...fields, issuedAt: new Date().toISOString() }, wallet));
    expectError(await post(a, path, { ...body, signer: stranger.address }), 403, 'FORBIDDEN');
    expectError(
      await post(a, path, { ...body, signature: await stranger.sign(body.statement) }),
      401,
      'INVALID_SIGNATURE',
    );

    // the update route: its types, the path's signal, an update naming nothing
    const opened = await post(a, path, body);
    expect(opened.status).toBe(201);
    const id = fields.id as string;
    const change = async (
      type: 'signal.update' | 'signal.close' | 'signal.cancel',
      extra: Record<string, unknown>,
      signalId = id,
    ) => post(a, updatesPath(desk.providerId, signalId), await signed(changeFields(desk, id, type, extra), wallet));
    expect(paths(await change('signal.update', {}), 400, 'VALIDATION_ERROR')).toBeDefined();
    expect(paths(await change('signal.update', { type: 'signal.open' }), 400, 'VALIDATION_ERROR')).toEqual([
      ['statement', 'type'],
    ]);
    expect(paths(await change('signal.update', { note: 'x' }, 'other'), 400, 'VALIDATION_ERROR')).toEqual([
      ['statement', 'signal'],
    ]);
    expect(paths(await change('signal.close', { closePct: '100.5' }), 400, 'VALIDATION_ERROR')).toEqual([
      ['statement', 'closePct'],
    ]);
    expect(
      paths(await change('signal.update', { note: 'x', signal: undefined }), 400, 'VALIDATION_ERROR'),
    ).toContainEqual(['statement', 'signal']);
    // ids: an open's id again (by an open or an update) and an update's id again → 409
    expectError(await open({ id }), 409, 'IDEMPOTENCY_CONFLICT');
    expectError(await change('signal.update', { id, note: 'x' }), 409, 'IDEMPOTENCY_CONFLICT');
    const updateId = newId('u');
    expect((await change('signal.update', { id: updateId, note: 'x' })).status).toBe(201);
    expectError(await change('signal.cancel', { id: updateId }), 409, 'IDEMPOTENCY_CONFLICT');
    expectError(await open({ id: updateId }), 409, 'IDEMPOTENCY_CONFLICT');
    // the state checks come after the signature: a stranger learns nothing of openPct
    const strangerClose = await signed(
      changeFields(desk, id, 'signal.close', { closePct: '100' }),
      walletSigner(stranger),
    );
    expectError(await post(a, updatesPath(desk.providerId, id), strangerClose), 403, 'FORBIDDEN');
    const unknown = await signed(changeFields(desk, 'nope', 'signal.cancel'), walletSigner(stranger));
    expectError(await post(a, updatesPath(desk.providerId, 'nope'), unknown), 403, 'FORBIDDEN');

    // only the open and the one update reached the log and the feed
    expect((await signalEvents()).map((event) => event.type)).toEqual(['signal.opened', 'signal.updated']);
  });

  it('takes every signer kind: an EVM wallet, a Solana wallet and a delegated key, each on either server', async () => {
    const bot = delegatedKey();
    expect((await delegate(bot.key)).status).toBe(201);
    const opened = await openSignal({ ...desk, api: b }, solana);
    expect(opened.reply.status).toBe(201);
    const id = opened.reply.body.signal.id;
    const byKey = await changeSignal(desk, bot, id, 'signal.close', { closePct: '50' });
    expect(byKey.reply.status).toBe(201);
    const byWallet = await changeSignal({ ...desk, api: b }, wallet, id, 'signal.update', { note: 'half off' });
    expect(byWallet.reply.status).toBe(201);
    expect(byWallet.reply.body.signal.statements.map((s: { signer: string }) => s.signer)).toEqual([
      sol.address,
      bot.key,
      evm.address,
    ]);
    expect(byWallet.reply.body.signal.content).toMatchObject({ openPct: '50', note: 'half off' });
    await checkpointOfSize(a.url, keys.verifierKey, byWallet.reply.body.receipt.logIndex + 1);
    checkReceipt(
      byWallet.reply.body.receipt,
      await servedEntry(a.url, keys.verifierKey, byWallet.reply.body.receipt.logIndex),
      keys.verifierKey,
    );
  });

  it('the timeline at its edges: a key just past its expiry, a revoked key, a wallet removed between two statements', async () => {
    const short = delegatedKey();
    const expiresAt = new Date(Date.now() + 1_200).toISOString();
    expect((await delegate(short.key, { expiresAt })).status).toBe(201);
    const before = await openSignal(desk, short);
    expect(before.reply.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(expiresAt) - Date.now()) + 1));
    const after = await changeSignal(desk, short, before.reply.body.signal.id, 'signal.update', { note: 'late' });
    expect(expectError(after.reply, 403, 'FORBIDDEN').message).toContain('key expired');

    const revoked = delegatedKey();
    expect((await delegate(revoked.key)).status).toBe(201);
    const revoke = await post(
      a,
      `/providers/${desk.providerId}/publisher-keys/${revoked.key}/revoke`,
      await signed(
        {
          issuedAt: new Date().toISOString(),
          key: revoked.key,
          log: ORIGIN,
          provider: desk.providerId,
          type: 'key.revoke',
          v: 1,
        },
        revoked,
      ),
    );
    expect(revoke.status).toBe(200);
    expect(expectError((await openSignal(desk, revoked)).reply, 403, 'FORBIDDEN').message).toContain('key revoked');

    const temp = evmWallet();
    expect(
      (
        await call(a, 'POST', `/providers/${desk.providerId}/publishers`, {
          token: keys.writer,
          body: { wallet: temp.address },
        })
      ).status,
    ).toBe(201);
    const tempKey = delegatedKey();
    expect(
      (
        await post(
          a,
          `/providers/${desk.providerId}/publisher-keys`,
          await signed(keyStatement(tempKey.key), walletSigner(temp)),
        )
      ).status,
    ).toBe(201);
    const first = await openSignal(desk, walletSigner(temp));
    expect(first.reply.status).toBe(201);
    expect(
      (await call(b, 'DELETE', `/providers/${desk.providerId}/publishers/${temp.address}`, { token: keys.writer }))
        .status,
    ).toBe(200);
    const id = first.reply.body.signal.id;
    expectError((await changeSignal(desk, walletSigner(temp), id, 'signal.cancel')).reply, 403, 'FORBIDDEN');
    expect(
      expectError((await changeSignal(desk, tempKey, id, 'signal.cancel')).reply, 403, 'FORBIDDEN').message,
    ).toContain('key wallet removed');
    // another publisher still may
    expect((await changeSignal(desk, wallet, id, 'signal.cancel')).reply.status).toBe(201);
  });

  it('a retry gets the first answer’s body with 200 and appends nothing, after the skew window and the log’s growth, on either server', async () => {
    const { body, reply } = await openSignal(desk, wallet);
    expect(reply.status).toBe(201);
    // The log grows past the first answer's checkpoint, and its signal is updated since.
    expect(
      (await changeSignal(desk, wallet, reply.body.signal.id, 'signal.close', { closePct: '10' })).reply.status,
    ).toBe(201);
    const count = (await signalEvents()).length;
    await servers.waitPastSkewWindow();
    const size = (await fetchCheckpoint(a.url, keys.verifierKey)).size;
    expect(size).toBeGreaterThan(reply.body.receipt.logIndex + 1);
    for (const server of [a, b]) {
      const retry = await post(server, signalsPath(desk.providerId), body);
      expect(retry.status).toBe(200);
      // Byte for byte the first answer: its signal as the open left it, its checkpoint, its proof.
      expect(retry.body).toEqual(reply.body);
      checkReceipt(
        retry.body.receipt,
        await servedEntry(a.url, keys.verifierKey, reply.body.receipt.logIndex),
        keys.verifierKey,
      );
    }
    expect((await fetchCheckpoint(a.url, keys.verifierKey)).size).toBe(size);
    expect((await signalEvents()).length).toBe(count);
  });

  it('concurrent duplicates on two servers make one entry and one event', async () => {
    // (concurrent copies count against the signer's limit: they are retries only once the first committed)
    const body = await signed(openFields(desk), solana);
    const count = (await signalEvents()).length;
    const replies = await servers.postCopiesAtOnce(signalsPath(desk.providerId), body);
    // One body for all six: the first answer's, whichever was built first.
    for (const reply of replies) expect(reply.body).toEqual(replies[0]!.body);
    const after = await signalEvents();
    expect(after.length).toBe(count + 1);
    expect(after.at(-1)!.data).toEqual({
      providerId: desk.providerId,
      signalId: replies[0]!.body.signal.id,
      logIndex: replies[0]!.body.receipt.logIndex,
    });
    const list = await call(a, 'GET', `${signalsPath(desk.providerId)}?limit=100`);
    expect(list.body.items.filter((s: { id: string }) => s.id === replies[0]!.body.signal.id)).toHaveLength(1);
  });

  it('orders a removal with the removed wallet’s statements racing it: none accepted after it, in time or in the log', async () => {
    const raced = await newDesk(a, ORIGIN, keys.writer, []);
    const publishers = `/providers/${raced.providerId}/publishers`;
    let accepted = 0;
    let refused = 0;
    // Until both outcomes were seen a few times (the timing is the machine's), 40 trials at most;
    // the removal from 0 to 7 ms after the first statement.
    for (let trial = 0; trial < 40 && (trial < 10 || accepted < 3 || refused < 3); trial++) {
      const signer = evmWallet();
      expect((await call(a, 'POST', publishers, { token: keys.writer, body: { wallet: signer.address } })).status).toBe(
        201,
      );
      const bodies = await Promise.all([0, 1, 2].map(() => signed(openFields(raced), walletSigner(signer))));
      // The removal and three statements at once, on both servers, the removal a little late or early.
      const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      const [removal, ...opens] = await Promise.all([
        later(trial % 8).then(() =>
          call(trial % 2 ? b : a, 'DELETE', `${publishers}/${signer.address}`, { token: keys.writer }),
        ),
        // From an address of the trial's own: the refused ones spend its budget, not the others'.
        ...bodies.map((body, i) =>
          later(i).then(() => postFrom(i % 2 ? a : b, signalsPath(raced.providerId), body, `127.0.1.${trial}`)),
        ),
      ]);
      expect(removal!.status).toBe(200);
      const row = (await call(a, 'GET', publishers)).body.items.find(
        (item: { wallet: string }) => item.wallet === signer.address,
      );
      for (const open of opens) {
        expect([201, 403], JSON.stringify(open.body)).toContain(open.status);
        if (open.status !== 201) {
          refused += 1;
          continue;
        }
        accepted += 1;
        const [statement] = open.body.signal.statements;
        expect(Date.parse(statement.receivedAt), JSON.stringify({ statement, row })).toBeLessThan(
          Date.parse(row.removedAt),
        );
        // And in the log: the removal's entry comes after the statement's (signed within 1 s of its answer).
        let removedAt = -1;
        for (let index = statement.logIndex + 1, tries = 0; removedAt < 0 && tries < 200; tries++) {
          const { size } = await fetchCheckpoint(a.url, keys.verifierKey);
          for (; index < size && removedAt < 0; index++) {
            const entry = JSON.parse(await servedEntry(a.url, keys.verifierKey, index));
            if (entry.type === 'publisher.removed' && entry.wallet === signer.address) removedAt = index;
          }
          if (removedAt < 0) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(removedAt, `the removal of ${signer.address} after entry ${statement.logIndex}`).toBeGreaterThan(
          statement.logIndex,
        );
      }
    }
    console.log(`removal races: ${accepted} statements accepted before their removal, ${refused} refused after it`);
    // Some statements won their race (else the ordering above was never tried).
    expect(accepted).toBeGreaterThan(0);
  }, 60_000);

  it('limits statements per signer (429), never by forgeries naming it, and an archived provider takes none (404)', async () => {
    const publisher = walletSigner(evmWallet());
    const limited = await newDesk(a, ORIGIN, keys.writer, [publisher.signer]);
    await servers.expectStatementLimits(
      signalsPath(limited.providerId),
      (by) => signed(openFields(limited), by),
      publisher,
    );

    const owner = walletSigner(evmWallet());
    const archived = await newDesk(a, ORIGIN, keys.writer, [owner.signer]);
    const kept = await openSignal(archived, owner);
    expect(kept.reply.status).toBe(201);
    expect((await call(a, 'DELETE', `/providers/${archived.providerId}`, { token: keys.writer })).status).toBe(200);
    expectError((await openSignal(archived, owner)).reply, 404, 'PROVIDER_NOT_FOUND');
    expectError(await call(a, 'GET', signalsPath(archived.providerId)), 404, 'PROVIDER_NOT_FOUND');
    expectError(
      await call(a, 'GET', `${signalsPath(archived.providerId)}/${kept.reply.body.signal.id}`),
      404,
      'PROVIDER_NOT_FOUND',
    );
  }, 60_000);
});
