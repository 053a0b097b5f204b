/**
 * Signals' lifecycle (CONTRACT.md, Version 4, "Signals" and its precise readings), on both
 * backends and two servers: open, update, partial closes in exact decimals
 * (`100 − 33.3 − 0.1 = 66.6`), a full close, a cancel, expiry judged at read time; each answer's
 * receipt checked by node:crypto (the checkpoint's signature, the inclusion proof of the served
 * entry), each statement hashing to its logged commitment; one event per statement with its log
 * index and no content.
 */
import { randomBytes } from 'node:crypto';
import { signalTerms } from '@signal/core/signal-examples';
import { describeBackends } from '@signal/test-support/vitest';
import { beforeAll, expect, it } from 'vitest';
import { readWholeFeed } from '../events-support.js';
import { call, createServiceKey, evmWallet, expectError, useServerPair } from '../harness.js';
import { checkpointOfSize, fetchVerifierKey } from '../log/log-support.js';
import { changeSignal, newDesk, openSignal, type SignalDesk } from './signal-support.js';
import { checkReceipt, commitmentOf, servedEntry, walletSigner } from './statement-support.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
const ORIGIN = 'lifecycle.test/signals';

describeBackends('signal lifecycle on %s', (backend) => {
  const { a, b } = useServerPair(backend, { ADMIN_KEY, LOG_ORIGIN: ORIGIN });
  const wallet = walletSigner(evmWallet());
  let verifierKey: string;
  let events: string;
  let desk: SignalDesk;
  let deskB: SignalDesk;

  beforeAll(async () => {
    const writer = await createServiceKey(a, ADMIN_KEY, 'writer', ['providers:write']);
    events = await createServiceKey(a, ADMIN_KEY, 'events', ['events:read']);
    desk = await newDesk(a, ORIGIN, writer, [wallet.signer]);
    deskB = { ...desk, api: b };
    verifierKey = await fetchVerifierKey(a.url);
  });

  /** The receipt holds, and the served entry is the statement's commitment line. */
  async function expectLogged(
    reply: { body: { receipt: { logIndex: number; checkpoint: string; proof: string[] } } },
    statement: string,
    signalId: string,
    type: string,
  ) {
    const { receipt } = reply.body;
    // the other server may not have seen that checkpoint yet (it polls every 100 ms)
    await checkpointOfSize(a.url, verifierKey, receipt.logIndex + 1);
    const entry = await servedEntry(a.url, verifierKey, receipt.logIndex);
    checkReceipt(receipt, entry, verifierKey);
    const fields = JSON.parse(entry);
    expect(fields).toEqual({
      commitment: commitmentOf(statement),
      provider: desk.providerId,
      receivedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      signal: signalId,
      type,
      v: 1,
    });
    return fields;
  }

  it('opens, updates, closes in exact decimals to 0, each answer with a receipt in a signed checkpoint', async () => {
    const { body, reply } = await openSignal(desk, wallet, { note: 'first' });
    expect(reply.status).toBe(201);
    const opened = JSON.parse(body.statement);
    const signal = reply.body.signal;
    expect(signal).toMatchObject({
      id: opened.id,
      providerId: desk.providerId,
      status: 'open',
      content: {
        ...signalTerms(),
        openPct: '100',
        expiresAt: null,
        note: 'first',
      },
    });
    expect(signal.revealAt).toBe(signal.publishedAt);
    const logged = await expectLogged(reply, body.statement, opened.id, 'signal.open');
    expect(signal.publishedAt).toBe(logged.receivedAt);
    expect(signal.statements).toEqual([
      {
        logIndex: reply.body.receipt.logIndex,
        type: 'signal.open',
        receivedAt: logged.receivedAt,
        commitment: commitmentOf(body.statement),
        statement: body.statement,
        signer: wallet.signer,
        signature: body.signature,
      },
    ]);

    // an update on the other server replaces the fields it names; [] and null clear
    const update = await changeSignal(deskB, wallet, opened.id, 'signal.update', { stop: null, targets: [] });
    expect(update.reply.status).toBe(201);
    expect(update.reply.body.signal.content).toMatchObject({ stop: null, targets: [], note: 'first' });
    await expectLogged(update.reply, update.body.statement, opened.id, 'signal.update');

    const first = await changeSignal(desk, wallet, opened.id, 'signal.close', { closePct: '33.3' });
    expect(first.reply.status).toBe(201);
    expect(first.reply.body.signal.content.openPct).toBe('66.7');
    const second = await changeSignal(deskB, wallet, opened.id, 'signal.close', { closePct: '0.1' });
    expect(second.reply.body.signal.content.openPct).toBe('66.6');
    await expectLogged(second.reply, second.body.statement, opened.id, 'signal.close');
    // beyond what is open: 400 naming closePct, nothing appended
    const beyond = await changeSignal(desk, wallet, opened.id, 'signal.close', { closePct: '66.60000001' });
    expect(expectError(beyond.reply, 400, 'VALIDATION_ERROR').issues?.map((i) => i.path)).toEqual([
      ['statement', 'closePct'],
    ]);
    const last = await changeSignal(desk, wallet, opened.id, 'signal.close', { closePct: '66.600' });
    expect(last.reply.status).toBe(201);
    expect(last.reply.body.signal).toMatchObject({ status: 'closed', content: { openPct: '0' } });
    // closed takes no more
    expectError(
      (await changeSignal(desk, wallet, opened.id, 'signal.update', { note: 'late' })).reply,
      409,
      'SIGNAL_CLOSED',
    );

    // the read on either server is the last answer's signal, statements in log order
    for (const server of [a, b]) {
      const read = await call(server, 'GET', `/providers/${desk.providerId}/signals/${opened.id}`);
      expect(read.status).toBe(200);
      expect(read.headers.get('cache-control')).toBe('no-store');
      expect(read.body).toEqual(last.reply.body.signal);
    }
    const indexes = last.reply.body.signal.statements.map((s: { logIndex: number }) => s.logIndex);
    expect(indexes).toEqual([...indexes].sort((x, y) => x - y));
    expect(indexes.length).toBe(5);

    // one event per statement, with its log index and no content
    const signalEvents = (await readWholeFeed(a, events)).filter(
      (event) => event.type.startsWith('signal.') && (event.data as { signalId: string }).signalId === opened.id,
    );
    expect(signalEvents.map((event) => [event.type, event.data])).toEqual([
      ['signal.opened', { providerId: desk.providerId, signalId: opened.id, logIndex: indexes[0] }],
      ['signal.updated', { providerId: desk.providerId, signalId: opened.id, logIndex: indexes[1] }],
      ['signal.closed', { providerId: desk.providerId, signalId: opened.id, logIndex: indexes[2] }],
      ['signal.closed', { providerId: desk.providerId, signalId: opened.id, logIndex: indexes[3] }],
      ['signal.closed', { providerId: desk.providerId, signalId: opened.id, logIndex: indexes[4] }],
    ]);
  });

  it('cancels; an unknown signal is 404; expiry is judged at read time and appends nothing', async () => {
    const { body } = await openSignal(desk, wallet);
    const id = JSON.parse(body.statement).id;
    const cancel = await changeSignal(desk, wallet, id, 'signal.cancel');
    expect(cancel.reply.status).toBe(201);
    expect(cancel.reply.body.signal.status).toBe('cancelled');
    expectError((await changeSignal(desk, wallet, id, 'signal.close', { closePct: '1' })).reply, 409, 'SIGNAL_CLOSED');
    expectError((await changeSignal(desk, wallet, 'nope', 'signal.cancel')).reply, 404, 'SIGNAL_NOT_FOUND');
    expectError(await call(a, 'GET', `/providers/${desk.providerId}/signals/nope`), 404, 'SIGNAL_NOT_FOUND');
    // An id of no signal's shape names no signal either: 404 whatever the shape (65 characters
    // were a 400 and `a.b` a 404 before).
    for (const id of ['a.b', '%00', 'x'.repeat(65), '%F0%9F%93%88', '..%2f..']) {
      expectError(await call(a, 'GET', `/providers/${desk.providerId}/signals/${id}`), 404, 'SIGNAL_NOT_FOUND');
    }
    expectError(await call(a, 'GET', `/providers/987654/signals/${id}`), 404, 'PROVIDER_NOT_FOUND');

    const soon = new Date(Date.now() + 1500).toISOString();
    const expiring = await openSignal(desk, wallet, { expiresAt: soon });
    expect(expiring.reply.status).toBe(201);
    const expiringId = expiring.reply.body.signal.id;
    expect(expiring.reply.body.signal.status).toBe('open');
    await new Promise((resolve) => setTimeout(resolve, 1600 - (Date.now() - Date.parse(soon) + 1500)));
    const read = await call(a, 'GET', `/providers/${desk.providerId}/signals/${expiringId}`);
    expect(read.body.status).toBe('expired');
    expect(read.body.statements.length).toBe(1);
    expectError(
      (await changeSignal(desk, wallet, expiringId, 'signal.update', { note: 'x' })).reply,
      409,
      'SIGNAL_CLOSED',
    );
  });
});
