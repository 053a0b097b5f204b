/**
 * Several wallets per user, over HTTP (and tRPC) on both backends: link nonces, linking with
 * every message format across wallet families, sign-in by any linked wallet, unlinking and the
 * sessions it ends (on a second server sharing the database, on PostgreSQL), and races.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  call,
  evmWallet,
  expectError,
  signIn,
  solanaWallet,
  type TestApi,
  type TestWallet,
  trpcClient,
  useServerPair,
  walletSignsInAsNewUser,
} from '../harness.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
/** The events of one user, oldest first, as [type, data]. */
async function eventsOf(api: TestApi, userId: number) {
  const rows = await api.db.db
    .selectFrom('events')
    .select(['type', 'data'])
    .where(sql<boolean>`(data->>'userId')::bigint = ${userId}`)
    .orderBy('seq')
    .execute();
  return rows.map((row) => [row.type, row.data]);
}
const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));

describe.each(['postgres', 'pglite'] as const)('several wallets per user on %s', (backend) => {
  /** `b`: a second server on the same database and key (PostgreSQL); on PGlite the same server. */
  const { a, b } = useServerPair(backend);

  const linkNonce = async (token: string | undefined, wallet: TestWallet, query = '') =>
    call(a, 'GET', `/auth/nonce?wallet=${encodeURIComponent(wallet.address)}&purpose=link${query}`, { token });
  /** Links `wallet` to the user of `token` the way a client does; the reply of POST /me/wallets. */
  const link = async (token: string, wallet: TestWallet, query = '') => {
    const issued = await linkNonce(token, wallet, query);
    expect(issued.status).toBe(200);
    const signature = await wallet.sign(issued.body.message);
    return call(a, 'POST', '/me/wallets', {
      token,
      body: { wallet: wallet.address, nonce: issued.body.nonce, signature },
    });
  };

  it('links a Solana wallet (SIWS) to an EVM user; either wallet then signs the same user in', async () => {
    const evm = evmWallet();
    const sol = solanaWallet();
    const first = await signIn(a, evm);
    expectError(await linkNonce(undefined, sol), 401, 'UNAUTHORIZED');

    const linked = await link(first.token, sol, '&format=siws');
    expect(linked.status).toBe(201);
    expect(linked.body).toEqual({
      wallet: sol.address,
      chain: 'solana',
      linkedAt: expect.stringMatching(ISO),
      primary: false,
      lastLoginAt: null,
    });
    // Again, with a new link nonce: 200, the same body.
    const again = await link(first.token, sol);
    expect(again).toMatchObject({ status: 200, body: linked.body });

    const viaSol = await signIn(b, sol);
    expect(viaSol.isNewUser).toBe(false);
    expect(viaSol.user).toMatchObject({ id: first.user.id, wallet: evm.address, chain: 'evm' });
    expect(claims(viaSol.token)).toMatchObject({ sub: String(first.user.id), wallet: sol.address, chain: 'solana' });
    const me = await call(b, 'GET', '/me', { token: viaSol.token });
    expect(me.body).toMatchObject({ id: first.user.id, wallet: evm.address, chain: 'evm' });
    expect(me.body.wallets).toEqual([
      {
        wallet: evm.address,
        chain: 'evm',
        linkedAt: me.body.createdAt,
        primary: true,
        lastLoginAt: expect.stringMatching(ISO),
      },
      { ...linked.body, lastLoginAt: expect.stringMatching(ISO) },
    ]);
    const list = await call(a, 'GET', '/me/wallets', { token: first.token });
    expect(list).toMatchObject({ status: 200, body: { items: me.body.wallets } });
    // tRPC answers the same.
    expect(await trpcClient(a, first.token).wallets.list.query()).toEqual(list.body);
  });

  it('an EVM wallet (SIWE) links to a Solana user', async () => {
    const sol = solanaWallet();
    const evm = evmWallet();
    const first = await signIn(a, sol);
    const linked = await link(first.token, evm, '&format=siwe&chainId=10');
    expect(linked).toMatchObject({ status: 201, body: { wallet: evm.address, chain: 'evm', primary: false } });
    expect((await signIn(a, evm)).user.id).toBe(first.user.id);
  });

  it('nonces serve their purpose only: link nonce at verify, sign-in nonce at link, another user’s → 401 INVALID_NONCE', async () => {
    const owner = await signIn(a, evmWallet());
    const other = await signIn(a, evmWallet());
    const wallet = evmWallet();
    const issued = (await linkNonce(owner.token, wallet)).body;
    const signature = await wallet.sign(issued.message);
    const body = { wallet: wallet.address, nonce: issued.nonce, signature };
    expectError(await call(a, 'POST', '/auth/verify', { body }), 401, 'INVALID_NONCE');
    expectError(await call(a, 'POST', '/me/wallets', { token: other.token, body }), 401, 'INVALID_NONCE');

    const signInNonce = (await call(a, 'GET', `/auth/nonce?wallet=${wallet.address}`)).body;
    const signed = {
      wallet: wallet.address,
      nonce: signInNonce.nonce,
      signature: await wallet.sign(signInNonce.message),
    };
    expectError(await call(a, 'POST', '/me/wallets', { token: owner.token, body: signed }), 401, 'INVALID_NONCE');

    // The checks of verify, in its order; a failed signature leaves the nonce usable.
    expectError(
      await call(a, 'POST', '/me/wallets', { token: owner.token, body: { wallet: 1 } }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await call(a, 'POST', '/me/wallets', { token: owner.token, body: { ...body, wallet: '0x12' } }),
      400,
      'INVALID_WALLET',
    );
    expectError(await call(a, 'POST', '/me/wallets', { body }), 401, 'UNAUTHORIZED');
    const forged = await evmWallet().sign(issued.message);
    expectError(
      await call(a, 'POST', '/me/wallets', { token: owner.token, body: { ...body, signature: forged } }),
      401,
      'INVALID_SIGNATURE',
    );
    expect((await call(a, 'POST', '/me/wallets', { token: owner.token, body })).status).toBe(201);
    // Used: INVALID_NONCE, whatever the signature.
    expectError(await call(a, 'POST', '/me/wallets', { token: owner.token, body }), 401, 'INVALID_NONCE');
    expectError(
      await call(a, 'POST', '/me/wallets', { token: owner.token, body: { ...body, signature: forged } }),
      401,
      'INVALID_NONCE',
    );
    // The sign-in nonce refused above still signs the (now linked) wallet in, as the owner.
    expect((await call(a, 'POST', '/auth/verify', { body: signed })).body.user.id).toBe(owner.user.id);
  });

  it('a wallet of another user → 409 and the link nonce stays unused; once unlinked, it is free', async () => {
    const first = await signIn(a, evmWallet());
    const second = await signIn(a, evmWallet());
    const wallet = solanaWallet();
    expect((await link(first.token, wallet)).status).toBe(201);
    const issued = (await linkNonce(second.token, wallet)).body;
    const body = { wallet: wallet.address, nonce: issued.nonce, signature: await wallet.sign(issued.message) };
    expectError(await call(a, 'POST', '/me/wallets', { token: second.token, body }), 409, 'WALLET_ALREADY_LINKED');
    expect((await eventsOf(a, second.user.id)).map(([type]) => type)).toEqual(['user.created', 'session.created']);
    expect((await call(a, 'DELETE', `/me/wallets/${wallet.address}`, { token: first.token })).status).toBe(200);
    expect(await call(a, 'POST', '/me/wallets', { token: second.token, body })).toMatchObject({
      status: 201,
      body: { wallet: wallet.address },
    });
    expect((await signIn(a, wallet)).user.id).toBe(second.user.id);
  });

  it('unlinking ends exactly that wallet’s sessions (on the other server too) and moves the primary', async () => {
    const primary = evmWallet();
    const sol = solanaWallet();
    const third = evmWallet();
    const start = await signIn(a, primary);
    expect((await link(start.token, sol)).status).toBe(201);
    expect((await link(start.token, third)).status).toBe(201);
    const solSessions = [await signIn(a, sol), await signIn(b, sol)];
    const thirdSession = await signIn(b, third);
    for (const s of solSessions) expect((await call(b, 'GET', '/me', { token: s.token })).status).toBe(200);

    const unlinked = await call(a, 'DELETE', `/me/wallets/${sol.address}`, { token: start.token });
    expect(unlinked).toMatchObject({ status: 200, body: { wallet: sol.address, unlinked: true } });
    for (const s of solSessions) expectError(await call(b, 'GET', '/me', { token: s.token }), 401, 'SESSION_REVOKED');
    const userId = start.user.id;
    const events = (await eventsOf(a, userId)).filter(([type]) => type !== 'session.created');
    expect(events.slice(0, 4)).toEqual([
      ['user.created', { userId, wallet: primary.address, chain: 'evm' }],
      ['wallet.linked', { userId, wallet: sol.address, chain: 'solana' }],
      ['wallet.linked', { userId, wallet: third.address, chain: 'evm' }],
      ['wallet.unlinked', { userId, wallet: sol.address, chain: 'solana' }],
    ]);
    // One session.revoked per session the unlink ended (in no particular order), nothing else.
    const revoked = events.slice(4).map(([type, data]) => [type, (data as { sessionId: string }).sessionId]);
    expect(revoked.sort()).toEqual(solSessions.map((s) => ['session.revoked', s.sessionId]).sort());
    expect((await call(b, 'GET', '/me', { token: start.token })).status).toBe(200);
    expectError(await call(a, 'DELETE', `/me/wallets/${sol.address}`, { token: start.token }), 404, 'NOT_FOUND');
    expectError(
      await call(a, 'DELETE', `/me/wallets/${evmWallet().address}`, { token: start.token }),
      404,
      'NOT_FOUND',
    );
    expectError(await call(a, 'DELETE', '/me/wallets/not-a-wallet', { token: start.token }), 400, 'INVALID_WALLET');

    // The primary goes (any spelling of it): the oldest remaining becomes primary, its sessions end.
    const gone = await call(a, 'DELETE', `/me/wallets/${primary.address.toLowerCase()}`, { token: thirdSession.token });
    expect(gone).toMatchObject({ status: 200, body: { wallet: primary.address, unlinked: true } });
    expectError(await call(b, 'GET', '/me', { token: start.token }), 401, 'SESSION_REVOKED');
    const me = await call(b, 'GET', '/me', { token: thirdSession.token });
    expect(me.body).toMatchObject({ id: start.user.id, wallet: third.address, chain: 'evm' });
    expect(me.body.wallets).toEqual([expect.objectContaining({ wallet: third.address, primary: true })]);
    expectError(
      await call(a, 'DELETE', `/me/wallets/${third.address}`, { token: thirdSession.token }),
      409,
      'LAST_WALLET',
    );

    // Unlinked wallets belong to nobody: each signs a new user in.
    for (const wallet of [sol, primary]) await walletSignsInAsNewUser(b, wallet, start.user.id);
  });

  it('Idempotency-Key: a retry gets the first answer (its nonce is not spent twice); another body → 409', async () => {
    const user = await signIn(a, evmWallet());
    const wallet = solanaWallet();
    const issued = (await linkNonce(user.token, wallet)).body;
    const body = { wallet: wallet.address, nonce: issued.nonce, signature: await wallet.sign(issued.message) };
    const post = (key: string, sent = body) =>
      call(a, 'POST', '/me/wallets', { token: user.token, body: sent, headers: { 'idempotency-key': key } });
    const first = await post('link-1');
    expect(first.status).toBe(201);
    // Without the key the used nonce would be 401; with it, the first answer again.
    expect(await post('link-1')).toMatchObject({ status: 201, body: first.body });
    const another = (await linkNonce(user.token, wallet)).body;
    const otherBody = { wallet: wallet.address, nonce: another.nonce, signature: await wallet.sign(another.message) };
    expectError(await post('link-1', otherBody), 409, 'IDEMPOTENCY_CONFLICT');
    expectError(await call(a, 'POST', '/me/wallets', { token: user.token, body }), 401, 'INVALID_NONCE');
    // A link of a wallet already linked answers 200, and its replay repeats the 200, not the route's 201.
    const again = (await linkNonce(user.token, wallet)).body;
    const againBody = { wallet: wallet.address, nonce: again.nonce, signature: await wallet.sign(again.message) };
    const relinked = await post('link-2', againBody);
    expect(relinked.status).toBe(200);
    expect(await post('link-2', againBody)).toMatchObject({ status: 200, body: relinked.body });
    // Keys are per user: another user's same key is not a replay.
    const other = await signIn(a, evmWallet());
    expectError(
      await call(a, 'POST', '/me/wallets', { token: other.token, body, headers: { 'idempotency-key': 'link-1' } }),
      401,
      'INVALID_NONCE',
    );
  });

  it('20 parallel links of one wallet by 2 users: exactly one 201, the winner’s others 200, the loser’s 409', async () => {
    const users = [await signIn(a, evmWallet()), await signIn(a, evmWallet())];
    const wallet = evmWallet();
    const attempts = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const user = users[i % 2]!;
        const issued = (await linkNonce(user.token, wallet)).body;
        return { user, issued, signature: await wallet.sign(issued.message) };
      }),
    );
    const replies = await Promise.all(
      attempts.map(({ user, issued, signature }, i) =>
        call(i % 4 < 2 ? a : b, 'POST', '/me/wallets', {
          token: user.token,
          body: { wallet: wallet.address, nonce: issued.nonce, signature },
        }).then((reply) => ({ user, reply })),
      ),
    );
    const created = replies.filter((r) => r.reply.status === 201);
    expect(created).toHaveLength(1);
    const winner = created[0]!.user;
    for (const { user, reply } of replies) {
      if (reply === created[0]!.reply) continue;
      if (user === winner) expect(reply).toMatchObject({ status: 200, body: created[0]!.reply.body });
      else expectError(reply, 409, 'WALLET_ALREADY_LINKED');
    }
    expect((await signIn(a, wallet)).user.id).toBe(winner.user.id);
  });
});
