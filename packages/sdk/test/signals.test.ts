/**
 * Publishing and reading signals through the SDK against the real API, on both backends: a
 * provider's publisher opens, updates, closes (exact decimals: 100 − 33.3 − 0.1 = 66.6) and
 * cancels signals with each signer kind (an EVM wallet through viem, a Solana Keypair, a key the
 * wallet delegated with `delegateKey`; after `revokeKey` that key's next open is a typed 403); a
 * lost answer is sent again with the same bytes and gets the first answer, with one statement in
 * the log; `signals.list/get/mine` show the content to a follower before the reveal and not to
 * anyone else; `signals.live` hands a follower's client each statement, and resumes after an id.
 */
import { createHash, randomBytes } from 'node:crypto';
import { signalTerms } from '@signal/core/signal-examples';
import {
  createClient as createReaderClient,
  createServiceClient,
  memoryTokenStore,
  type SignalLiveEvent,
} from '@signal/sdk';
import { evmSigner } from '@signal/sdk/evm';
import { checkInclusionAnswer, openCheckpoint } from '@signal/sdk/log';
import {
  createClient,
  createPublisher,
  ed25519StatementSigner,
  generateEd25519Key,
  type Publisher,
  type SignalTerms,
} from '@signal/sdk/publisher';
import { solanaSigner } from '@signal/sdk/solana';
import { Keypair } from '@solana/web3.js';
import canonicalize from 'canonicalize';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { failure, useApi } from './support/api.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
const ORIGIN = 'sdk.test/signals';
const HOUR = 3600;

const terms = (extra: Partial<SignalTerms> = {}): SignalTerms => ({ ...signalTerms(), expiresAt: null, ...extra });

/**
 * The global fetch, losing the answer of the first request to `procedure` (the request reaches
 * the API and is answered; the client sees a network failure) and keeping every body it sent.
 */
function losingFetch(procedure: string) {
  const sent: string[] = [];
  let lose = 1;
  const fetchAndLose: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (String(input).includes(`/trpc/${procedure}`)) {
      sent.push(String(init?.body));
      if (lose-- > 0) {
        await response.arrayBuffer();
        throw new TypeError('fetch failed (the answer was lost)');
      }
    }
    return response;
  };
  return { fetch: fetchAndLose, sent };
}

/** Waits until `until` says so (the stream's events have come), or fails after `ms`. */
const eventually = async (until: () => boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!until()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

describe.each(['postgres', 'pglite'] as const)('signals through the SDK on %s', (backend) => {
  const api = useApi(backend, { env: { ADMIN_KEY, LOG_ORIGIN: ORIGIN } });
  const account = privateKeyToAccount(generatePrivateKey());
  const keypair = Keypair.generate();
  let providerId: number;
  let wallet: Publisher;
  let solana: Publisher;

  /** The follower's client: signed in with its own wallet, following the provider. */
  let follower: ReturnType<typeof createReaderClient>;
  const anonymous = () => createReaderClient({ baseUrl: api.url });

  const addPublisher = async (address: string) => {
    const response = await fetch(`${api.url}/providers/${providerId}/publishers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ wallet: address }),
    });
    expect(response.status).toBe(201);
  };

  beforeAll(async () => {
    const operator = createServiceClient({ baseUrl: api.url, key: ADMIN_KEY });
    providerId = (await operator.createProvider({ name: 'SDK Desk', revealDelaySeconds: HOUR })).id;
    await addPublisher(account.address);
    await addPublisher(keypair.publicKey.toBase58());
    const client = createClient({ baseUrl: api.url });
    wallet = client.publisher(providerId, evmSigner(account));
    solana = client.publisher(providerId, solanaSigner(keypair));
    follower = createReaderClient({ baseUrl: api.url, signer: evmSigner(privateKeyToAccount(generatePrivateKey())) });
    await follower.providers.follow(providerId);
  });

  it('reads the log origin from the server, once', async () => {
    expect(await wallet.origin()).toBe(ORIGIN);
    expect(await solana.origin()).toBe(ORIGIN);
  });

  it('an EVM wallet opens, updates and closes with exact decimals; a closed signal takes no update', async () => {
    const opened = await wallet.open(terms({ note: 'Breakout above the range' }));
    const id = opened.signal.id;
    expect(opened.signal).toMatchObject({
      providerId,
      status: 'open',
      content: { instrument: 'BTC-USD', openPct: '100', stop: signalTerms().stop, note: 'Breakout above the range' },
    });
    expect(opened.signal.statements).toHaveLength(1);
    expect(opened.signal.statements[0]).toMatchObject({ type: 'signal.open', signer: account.address });
    // The receipt: a signed checkpoint holding the entry, and the entry's inclusion proof in it,
    // the entry rebuilt here from the statement (its commitment is the statement's SHA-256).
    const view = opened.signal.statements[0]!;
    expect(view.commitment).toBe(
      createHash('sha256')
        .update(view.statement as string)
        .digest('hex'),
    );
    const entry = canonicalize({
      commitment: view.commitment,
      provider: providerId,
      receivedAt: view.receivedAt,
      signal: id,
      type: 'signal.open',
      v: 1,
    }) as string;
    const leaf = createHash('sha256')
      .update(Buffer.concat([Buffer.from([0]), Buffer.from(entry)]))
      .digest('base64');
    const checkpoint = openCheckpoint(opened.receipt.checkpoint, await anonymous().log.key());
    expect(checkpoint.size).toBeGreaterThan(opened.receipt.logIndex);
    const inclusion = {
      index: opened.receipt.logIndex,
      size: checkpoint.size,
      leafHash: leaf,
      proof: opened.receipt.proof,
    };
    expect(checkInclusionAnswer(inclusion, checkpoint)).toBe(true);
    expect(checkInclusionAnswer({ ...inclusion, index: inclusion.index + 1 }, checkpoint)).toBe(false);

    const updated = await wallet.update(id, { stop: '96000', targets: [] });
    expect(updated.signal.content).toMatchObject({ stop: '96000', targets: [], note: 'Breakout above the range' });
    expect((await wallet.close(id, '33.3')).signal.content?.openPct).toBe('66.7');
    expect((await wallet.close(id, '0.1')).signal.content?.openPct).toBe('66.6');
    const error = await failure(wallet.close(id, '66.7'));
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
    expect(error.issues.map((issue) => issue.path)).toContainEqual(['statement', 'closePct']);
    const closed = await wallet.close(id, '66.6');
    expect(closed.signal).toMatchObject({ status: 'closed', content: { openPct: '0' } });
    expect(closed.signal.statements.map((statement) => statement.type)).toEqual([
      'signal.open',
      'signal.update',
      'signal.close',
      'signal.close',
      'signal.close',
    ]);
    expect(await failure(wallet.update(id, { note: 'too late' }))).toMatchObject({
      code: 'SIGNAL_CLOSED',
      status: 409,
    });
    expect(await failure(wallet.cancel('no-such-signal'))).toMatchObject({ code: 'SIGNAL_NOT_FOUND', status: 404 });
  });

  it('a Solana Keypair opens and cancels', async () => {
    const opened = await solana.open(terms({ instrument: 'SOL/USDC', side: 'short', entry: { type: 'market' } }));
    expect(opened.signal.statements[0]?.signer).toBe(keypair.publicKey.toBase58());
    const cancelled = await solana.cancel(opened.signal.id);
    expect(cancelled.signal).toMatchObject({ id: opened.signal.id, status: 'cancelled' });
    expect(await failure(solana.close(opened.signal.id, '10'))).toMatchObject({ code: 'SIGNAL_CLOSED' });
  });

  it('a delegated key publishes after delegateKey; after revokeKey its next open is a 403', async () => {
    const bot = await generateEd25519Key();
    const expiresAt = new Date(Date.now() + 30 * 86_400_000);
    const delegated = await wallet.delegateKey(bot, { expiresAt });
    expect(delegated).toMatchObject({
      key: bot.key,
      providerId,
      wallet: account.address,
      expiresAt: expiresAt.toISOString(),
      revokedAt: null,
    });
    expect(delegated.logIndex).toEqual(expect.any(Number));
    // The bot alone: the publisher without a reader's client, signing with the key.
    const asBot = createPublisher({ baseUrl: api.url, providerId, signer: ed25519StatementSigner(bot.secretKey) });
    const opened = await asBot.open(terms({ sizePct: '0.5' }));
    expect(opened.signal.statements[0]?.signer).toBe(bot.key);
    expect((await asBot.close(opened.signal.id, '50')).signal.content?.openPct).toBe('50');

    const revoked = await wallet.revokeKey(bot.key);
    expect(revoked).toMatchObject({ key: bot.key, revoked: true, logIndex: expect.any(Number) });
    // Idempotent: the first revoke's answer.
    expect(await wallet.revokeKey(bot)).toEqual(revoked);
    const refused = await failure(asBot.open(terms()));
    expect(refused).toMatchObject({ code: 'FORBIDDEN', status: 403 });
    // A key never delegated may not sign either.
    const stranger = createPublisher({
      baseUrl: api.url,
      providerId,
      signer: ed25519StatementSigner((await generateEd25519Key()).secretKey),
    });
    expect(await failure(stranger.open(terms()))).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('a delegation whose answer is lost is sent again byte for byte: the first answer, not a second delegation', async () => {
    const { fetch: losing, sent } = losingFetch('publisherKeys.delegate');
    const publisher = createPublisher({ baseUrl: api.url, providerId, signer: evmSigner(account), fetch: losing });
    const bot = await generateEd25519Key();
    // Signed again (a new issuedAt), a second delegation of the key would be a 409.
    const delegated = await publisher.delegateKey(bot, { expiresAt: new Date(Date.now() + 86_400_000) });
    expect(sent).toHaveLength(2);
    expect(sent[1]).toBe(sent[0]);
    expect(delegated).toMatchObject({ key: bot.key, wallet: account.address, revokedAt: null });
    const listed = await (await fetch(`${api.url}/providers/${providerId}/publisher-keys`)).json();
    expect((listed as { items: { key: string }[] }).items.filter((item) => item.key === bot.key)).toHaveLength(1);
    expect(await failure(publisher.delegateKey(bot, { expiresAt: new Date(Date.now() + 86_400_000) }))).toMatchObject({
      code: 'IDEMPOTENCY_CONFLICT',
      status: 409,
    });
  });

  it('a lost answer is sent again with the same bytes: the first answer, one statement in the log', async () => {
    const { fetch: losing, sent } = losingFetch('signals.open');
    const publisher = createPublisher({ baseUrl: api.url, providerId, signer: evmSigner(account), fetch: losing });
    const before = Number((await (await fetch(`${api.url}/log/checkpoint`)).text()).split('\n')[1]);
    const opened = await publisher.open(terms({ note: 'retried' }));
    expect(sent).toHaveLength(2);
    expect(sent[1]).toBe(sent[0]);
    expect(opened.signal.statements).toHaveLength(1);
    const read = await follower.signals.get(providerId, opened.signal.id);
    expect(read.statements).toHaveLength(1);
    // One entry in the log for the two requests.
    const after = Number((await (await fetch(`${api.url}/log/checkpoint`)).text()).split('\n')[1]);
    expect(after).toBe(before + 1);

    // A bot's own retry, later: the signed statement kept, sent again, the same first answer.
    const signed = await publisher.prepare.update(opened.signal.id, { note: 'kept and sent twice' });
    const first = await publisher.send(signed);
    const again = await publisher.send(JSON.parse(JSON.stringify(signed)) as typeof signed);
    expect(again).toEqual(first);
    expect(again.signal.statements).toHaveLength(2);
  });

  it('reads: a follower sees the content before the reveal, anonymous readers only the commitments', async () => {
    // Older ones: one cancelled, one open.
    await wallet.cancel((await wallet.open(terms())).signal.id);
    await wallet.open(terms());
    const opened = await wallet.open(terms({ instrument: 'ETH-USD', note: 'followers first' }));
    const id = opened.signal.id;
    const seen = await follower.signals.get(providerId, id);
    expect(seen.content).toMatchObject({ instrument: 'ETH-USD', note: 'followers first' });
    expect(seen.statements[0]?.statement).toBe(opened.signal.statements[0]?.statement);

    const hidden = await anonymous().signals.get(providerId, id);
    expect(hidden.content).toBeNull();
    expect(hidden.revealAt).toBe(new Date(Date.parse(hidden.publishedAt) + HOUR * 1000).toISOString());
    expect(hidden.statements[0]).toMatchObject({
      statement: null,
      signer: null,
      signature: null,
      commitment: opened.signal.statements[0]?.commitment,
    });
    expect(JSON.stringify(hidden)).not.toContain('followers first');

    // Lists: newest first, a status filter, a cursor walk; /me/signals for the follower.
    const page = await anonymous().signals.list(providerId, { limit: 2 });
    expect(page.items[0]?.id).toBe(id);
    expect(page.items[0]?.content).toBeNull();
    expect(page.nextCursor).toEqual(expect.any(String));
    const next = await anonymous().signals.list(providerId, { limit: 2, cursor: page.nextCursor as string });
    expect(next.items.map((signal) => signal.id)).not.toContain(id);
    const cancelled = await anonymous().signals.list(providerId, { status: ['cancelled'] });
    expect(cancelled.items.length).toBeGreaterThan(0);
    expect(cancelled.items.every((signal) => signal.status === 'cancelled')).toBe(true);
    const openOrClosed = await follower.signals.list(providerId, { status: ['open', 'closed'] });
    expect(openOrClosed.items.every((signal) => ['open', 'closed'].includes(signal.status))).toBe(true);
    expect(openOrClosed.items.find((signal) => signal.id === id)?.content?.note).toBe('followers first');

    const mine = await follower.signals.mine({ limit: 100 });
    expect(mine.items[0]).toMatchObject({ id, content: { note: 'followers first' } });
    expect(await failure(anonymous().signals.mine())).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    expect(await failure(anonymous().signals.get(providerId, 'no-such-signal'))).toMatchObject({
      code: 'SIGNAL_NOT_FOUND',
      status: 404,
    });
  });

  it('reads with a token the API no longer takes: renewed with a signer; without one, refused and then public', async () => {
    const { signal } = await wallet.open(terms({ note: 'for followers' }));
    const account2 = privateKeyToAccount(generatePrivateKey());
    const reader = createReaderClient({ baseUrl: api.url, signer: evmSigner(account2) });
    await reader.providers.follow(providerId);
    const stale = (await reader.getToken())!;
    // The session ends elsewhere (the user signs out from another device).
    const current = (await reader.sessions.list()).items.find((session) => session.current)!;
    await reader.sessions.revoke(current.id);
    // With a signer: one sign-in, and the follower's view.
    expect((await reader.signals.get(providerId, signal.id)).content?.note).toBe('for followers');
    expect((await reader.getToken())?.token).not.toBe(stale.token);

    // Without one: the refusal (not a silent public view), then the public's view.
    const tokenStore = memoryTokenStore();
    await tokenStore.set(stale);
    const unsigned = createReaderClient({ baseUrl: api.url, tokenStore });
    expect(await failure(unsigned.signals.get(providerId, signal.id))).toMatchObject({
      code: 'SESSION_REVOKED',
      status: 401,
    });
    expect((await unsigned.signals.get(providerId, signal.id)).content).toBeNull();
  });

  it('live: a follower gets the statements of followed providers only, in order, from now on or after an id', async () => {
    // Another provider the follower does not follow, published to by the same wallet.
    const operator = createServiceClient({ baseUrl: api.url, key: ADMIN_KEY });
    const otherId = (await operator.createProvider({ name: 'Unfollowed Desk' })).id;
    const response = await fetch(`${api.url}/providers/${otherId}/publishers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ wallet: account.address }),
    });
    expect(response.status).toBe(201);
    const other = createPublisher({ baseUrl: api.url, providerId: otherId, signer: evmSigner(account) });

    // From an id on: everything after it, whenever the stream connects.
    const start = await wallet.open(terms({ note: 'live start' }));
    const received: { event: SignalLiveEvent; id: string }[] = [];
    const errors: unknown[] = [];
    const unsubscribe = follower.signals.live((event, id) => void received.push({ event, id }), {
      lastEventId: String(start.receipt.logIndex),
      onError: (error) => errors.push(error),
    });
    let closed: Awaited<ReturnType<Publisher['close']>>;
    try {
      await other.open(terms({ note: 'not followed' }));
      const updated = await wallet.update(start.signal.id, { note: 'live update' });
      closed = await wallet.close(start.signal.id, '100');
      await eventually(() => received.length >= 2);
      expect(received.map(({ id }) => id)).toEqual([String(updated.receipt.logIndex), String(closed.receipt.logIndex)]);
      expect(received.map(({ event }) => event.type)).toEqual(['signal.update', 'signal.close']);
      expect(received[1]?.event.signal).toMatchObject({
        id: start.signal.id,
        providerId,
        status: 'closed',
        content: { openPct: '0', note: 'live update' },
      });
      expect(errors).toEqual([]);
    } finally {
      unsubscribe();
    }

    // From now on: a stream that connects later sees what is published after it.
    const later: { event: SignalLiveEvent; id: string }[] = [];
    const stop = follower.signals.live((event, id) => void later.push({ event, id }));
    try {
      // Until the stream is admitted, an open may come before it: publish again until one arrives.
      for (let tries = 0; later.length === 0 && tries < 20; tries++) {
        await wallet.open(terms({ note: `live now ${tries}` }));
        await eventually(() => later.length > 0, 500).catch(() => {});
      }
      expect(later[0]?.event.type).toBe('signal.open');
      expect(Number(later[0]?.id)).toBeGreaterThan(Number(closed!.receipt.logIndex));
      expect(later.every(({ event }) => event.signal.providerId === providerId)).toBe(true);
    } finally {
      stop();
    }
  });
});
