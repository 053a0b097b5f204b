/**
 * Sessions and sign-out against the real API: the session list, ending one session from
 * another device (re-sign-in with a signer, the typed error and a dropped token without one),
 * and signOut() in each scope, including an API that cannot be reached.
 */
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type ActiveSession,
  createClient,
  memoryTokenStore,
  SignalApiError,
  type Signer,
  type TokenStore,
} from '@signal/sdk';
import { evmSigner } from '@signal/sdk/evm';
import { solanaSigner } from '@signal/sdk/solana';
import { Keypair } from '@solana/web3.js';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { failure, recordingFetch, useApi } from './support/api.js';
import { countingSigner } from './support/wallets.js';

const api = useApi();

const newWallet = (): Signer => evmSigner(privateKeyToAccount(generatePrivateKey()));

/** One device of a user: a client with its own store, a counted signer and recorded requests. */
function device(signer: Signer | undefined, store: TokenStore = memoryTokenStore()) {
  const counted = signer ? countingSigner(signer) : undefined;
  const requests = recordingFetch();
  const client = createClient({ baseUrl: api.url, signer: counted?.signer, tokenStore: store, fetch: requests.fetch });
  return { client, store, requests, signatures: () => counted?.signatures ?? 0 };
}

/** Two devices of one wallet, both signed in (the laptop first), with the requests so far forgotten. */
async function twoDevices(wallet: Signer = newWallet()) {
  const laptop = device(wallet);
  const phone = device(wallet);
  const laptopSession = await laptop.client.signIn();
  const phoneSession = await phone.client.signIn();
  laptop.requests.procedures.length = 0;
  phone.requests.procedures.length = 0;
  return { laptop, phone, laptopSession, phoneSession };
}

/** Two devices whose phone session was ended from the laptop ("sign out that device"). */
async function phoneEndedFromLaptop(wallet?: Signer) {
  const devices = await twoDevices(wallet);
  await devices.laptop.client.sessions.revoke(devices.phoneSession.sessionId);
  return devices;
}

/** What the API answers to `GET /me` (REST) with `token`, as any holder of a copy would see it. */
async function withToken(token: string) {
  const response = await fetch(`${api.url}/me`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await response.json()) as { code?: string };
  return { status: response.status, code: body.code, wwwAuthenticate: response.headers.get('www-authenticate') };
}

const REVOKED = { status: 401, code: 'SESSION_REVOKED', wwwAuthenticate: expect.stringContaining('invalid_token') };
const ACCEPTED = { status: 200, code: undefined, wwwAuthenticate: null };

/** A URL where nothing listens: a port that was just free. */
async function closedPortUrl(): Promise<string> {
  const server = createHttpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('the session list', () => {
  it('sign-in names its session; list shows it as current and the wallet’s other sessions', async () => {
    const { laptop, phone, laptopSession: first, phoneSession: second } = await twoDevices();
    expect(first.sessionId).toEqual(expect.any(String));
    expect(second.sessionId).not.toBe(first.sessionId);

    const page = await laptop.client.sessions.list();
    expect(page).toMatchObject({ page: 1, limit: 20, total: 2, totalPages: 1, nextCursor: null });
    // Newest first: the phone signed in last.
    expect(page.items.map((session) => [session.id, session.current])).toEqual([
      [second.sessionId, false],
      [first.sessionId, true],
    ]);
    const mine = page.items[1] as ActiveSession;
    expect(mine.expiresAt).toBe(first.expiresAt);
    expect(Date.parse(mine.createdAt)).not.toBeNaN();
    expect(Date.parse(mine.lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(mine.createdAt));
    // Node's fetch names itself; the address is the loopback the test connects from.
    expect(mine.userAgent).toEqual(expect.any(String));
    expect(mine.ip).toBe('127.0.0.1');

    const fromPhone = await phone.client.sessions.list();
    expect(fromPhone.items.filter((session) => session.current).map((session) => session.id)).toEqual([
      second.sessionId,
    ]);
    // Another user sees neither.
    const stranger = device(newWallet());
    expect((await stranger.client.sessions.list()).total).toBe(1);
  });

  it('sessions.all walks every page by cursor, newest first', async () => {
    const wallet = newWallet();
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await device(wallet).client.signIn()).sessionId);
    const reader = device(wallet);
    ids.push((await reader.client.signIn()).sessionId);
    reader.requests.procedures.length = 0;

    const seen: ActiveSession[] = [];
    for await (const session of reader.client.sessions.all({ limit: 1 })) seen.push(session);
    expect(seen.map((session) => session.id)).toEqual([...ids].reverse());
    expect(seen.filter((session) => session.current)).toHaveLength(1);
    expect(reader.requests.procedures).toEqual(Array(4).fill('sessions.list'));
  });

  it('revoke is idempotent; an unknown id or another user’s → SESSION_NOT_FOUND', async () => {
    const { laptop, phoneSession } = await twoDevices();
    const { sessionId } = phoneSession;
    expect(await laptop.client.sessions.revoke(sessionId)).toEqual({ id: sessionId, revoked: true });
    expect(await laptop.client.sessions.revoke(sessionId)).toEqual({ id: sessionId, revoked: true });
    expect((await laptop.client.sessions.list()).items).toHaveLength(1);

    const unknown = await failure(laptop.client.sessions.revoke('00000000-0000-4000-8000-000000000000'));
    expect({ code: unknown.code, status: unknown.status }).toEqual({ code: 'SESSION_NOT_FOUND', status: 404 });
    const stranger = device(newWallet());
    const foreign = await failure(stranger.client.sessions.revoke((await laptop.client.signIn()).sessionId));
    expect(foreign.code).toBe('SESSION_NOT_FOUND');
    // The stranger's attempt ended nothing: the laptop is still signed in.
    expect((await laptop.client.getToken())?.token).toBeTruthy();
    expect(await withToken((await laptop.client.getToken())?.token ?? '')).toEqual(ACCEPTED);
  });
});

describe('a session ended from another device', () => {
  it('with a signer: the next call signs in once and is retried', async () => {
    const { phone, phoneSession: ended } = await phoneEndedFromLaptop(solanaSigner(Keypair.generate()));

    const me = await phone.client.me.get();
    expect(me.id).toBe(ended.user.id);
    expect(phone.requests.procedures).toEqual(['me.get', 'auth.nonce', 'auth.verify', 'me.get']);
    expect(phone.signatures()).toBe(2);
    const renewed = await phone.client.getToken();
    expect(renewed?.token).not.toBe(ended.token);
    expect(await withToken(ended.token)).toEqual(REVOKED);
    expect(await withToken(renewed?.token ?? '')).toEqual(ACCEPTED);
  });

  it('with a signer: concurrent calls refused with SESSION_REVOKED share one sign-in', async () => {
    const { phone, phoneSession: ended } = await phoneEndedFromLaptop();

    const results = await Promise.all([
      ...Array.from({ length: 6 }, () => phone.client.me.get()),
      phone.client.me.following(),
      phone.client.sessions.list(),
    ]);
    expect(results).toHaveLength(8);
    expect(phone.requests.count('auth.nonce')).toBe(1);
    expect(phone.requests.count('auth.verify')).toBe(1);
    expect(phone.signatures()).toBe(2);
    // The list was read with the new token: its session is the current one.
    const sessions = results[7] as Awaited<ReturnType<typeof phone.client.sessions.list>>;
    expect(sessions.items.find((session) => session.current)?.id).not.toBe(ended.sessionId);
  });

  it('without a signer: SESSION_REVOKED is thrown and the token is dropped from the store', async () => {
    const wallet = newWallet();
    const laptop = device(wallet);
    const shared = memoryTokenStore();
    const ended = await device(wallet, shared).client.signIn();
    const reader = device(undefined, shared);
    expect((await reader.client.me.get()).id).toBe(ended.user.id);
    await laptop.client.sessions.revoke(ended.sessionId);

    const error = await failure(reader.client.me.get());
    expect({ code: error.code, status: error.status, name: error.name }).toEqual({
      code: 'SESSION_REVOKED',
      status: 401,
      name: 'SignalApiError',
    });
    expect(await shared.get()).toBeNull();
    expect(await reader.client.getToken()).toBeNull();
    // No sign-in was attempted.
    expect(reader.requests.procedures).toEqual(['me.get', 'me.get']);
  });
});

describe('signOut()', () => {
  it('ends this session on the server: a copy of the token is refused, and the store is empty', async () => {
    const { laptop, phone, laptopSession: other, phoneSession: session } = await twoDevices();

    expect(await phone.client.signOut()).toEqual({ revoked: 1, serverConfirmed: true });
    expect(phone.requests.procedures).toEqual(['auth.logout']);
    expect(await phone.store.get()).toBeNull();
    expect(await phone.client.getToken()).toBeNull();
    expect(await withToken(session.token)).toEqual(REVOKED);
    // The wallet's other session is untouched, and no longer lists the ended one.
    expect(await withToken(other.token)).toEqual(ACCEPTED);
    expect((await laptop.client.sessions.list()).items.map((item) => item.id)).toEqual([other.sessionId]);

    // A later call signs in again (a new session), as after any sign-out.
    await phone.client.me.get();
    expect(phone.signatures()).toBe(2);
  });

  it("scope 'others': every other session is refused, this one keeps working", async () => {
    const wallet = newWallet();
    const others = [device(wallet), device(wallet), device(wallet)];
    const tokens: string[] = [];
    for (const other of others) tokens.push((await other.client.signIn()).token);
    const here = device(wallet);
    const session = await here.client.signIn();
    here.requests.procedures.length = 0;

    expect(await here.client.signOut({ scope: 'others' })).toEqual({ revoked: 3, serverConfirmed: true });
    for (const token of tokens) expect(await withToken(token)).toEqual(REVOKED);
    expect((await here.client.getToken())?.token).toBe(session.token);
    expect((await here.client.me.get()).id).toBe(session.user.id);
    expect(here.requests.procedures).toEqual(['auth.logout', 'me.get']);
    expect(here.signatures()).toBe(1);
    expect((await here.client.sessions.list()).items.map((item) => item.id)).toEqual([session.sessionId]);
    // The other devices find out at their next call: with a signer, they sign in again.
    expect((await others[0]!.client.me.get()).id).toBe(session.user.id);
    expect(others[0]!.signatures()).toBe(2);
    // Only the session that device has just started is left to end.
    expect(await here.client.signOut({ scope: 'others' })).toEqual({ revoked: 1, serverConfirmed: true });
  });

  it("scope 'all': every session of the user is refused, and the store is empty", async () => {
    const wallet = newWallet();
    const elsewhere = device(wallet);
    const other = await elsewhere.client.signIn();
    const here = device(wallet);
    const session = await here.client.signIn();

    expect(await here.client.signOut({ scope: 'all' })).toEqual({ revoked: 2, serverConfirmed: true });
    expect(await here.store.get()).toBeNull();
    expect(await withToken(session.token)).toEqual(REVOKED);
    expect(await withToken(other.token)).toEqual(REVOKED);
  });

  it('the API cannot be reached: the token is forgotten anyway, and the result says so', async () => {
    const wallet = newWallet();
    const shared = memoryTokenStore();
    const session = await device(wallet, shared).client.signIn();
    const offline = createClient({ baseUrl: await closedPortUrl(), signer: wallet, tokenStore: shared });

    const result = await offline.signOut();
    expect(result).toMatchObject({ revoked: 0, serverConfirmed: false });
    expect(result.error).toBeInstanceOf(SignalApiError);
    expect(result.error).toMatchObject({ code: 'NETWORK_ERROR', status: 0 });
    expect(await shared.get()).toBeNull();
    // The server never heard of it: the session is still live there.
    expect(await withToken(session.token)).toEqual(ACCEPTED);
  });

  it('a token the API already refuses: cleared locally, the result names the refusal, no sign-in', async () => {
    const { phone } = await phoneEndedFromLaptop();

    const result = await phone.client.signOut({ scope: 'all' });
    expect(result).toMatchObject({ revoked: 0, serverConfirmed: false, error: { code: 'SESSION_REVOKED' } });
    expect(await phone.store.get()).toBeNull();
    expect(phone.requests.procedures).toEqual(['auth.logout']);
    expect(phone.signatures()).toBe(1);
  });

  it('without a stored token: resolves at once, without a request', async () => {
    const { client, requests } = device(newWallet());
    expect(await client.signOut()).toEqual({ revoked: 0, serverConfirmed: false });
    expect(await client.signOut({ scope: 'all' })).toEqual({ revoked: 0, serverConfirmed: false });
    expect(requests.procedures).toEqual([]);
  });

  it('a call made just before signOut() and refused after it does not sign in again behind it', async () => {
    const counted = countingSigner(newWallet());
    // Holds me.get back until the API has answered the sign-out, so its token is refused.
    let loggedOut!: () => void;
    const afterLogout = new Promise<void>((resolve) => {
      loggedOut = resolve;
    });
    const procedures: string[] = [];
    const gated: typeof fetch = async (input, init) => {
      const procedure = new URL(String(input)).pathname.replace(/^.*\/trpc\//, '');
      procedures.push(procedure);
      if (procedure === 'me.get') await afterLogout;
      const response = await fetch(input, init);
      if (procedure === 'auth.logout') loggedOut();
      return response;
    };
    const client = createClient({ baseUrl: api.url, signer: counted.signer, fetch: gated });
    await client.signIn();

    const call = client.me.get();
    const result = await client.signOut();
    expect(result).toEqual({ revoked: 1, serverConfirmed: true });
    const error = await failure(call);
    expect(error.code).toBe('SESSION_REVOKED');
    // me.get left first (and waited), then the sign-out; no sign-in after either.
    expect(procedures).toEqual(['auth.nonce', 'auth.verify', 'me.get', 'auth.logout']);
    expect(counted.signatures).toBe(1);
    expect(await client.getToken()).toBeNull();
  });
});
