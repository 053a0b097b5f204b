/**
 * Every error row of the contract's Auth section, over real HTTP with real signatures:
 * status and code of each failure, the order in which the checks answer, and the transport
 * errors (unknown path or method, body size, content type, JSON) around them. PostgreSQL; the
 * nonce's own checks (tampered, expired, another wallet's) on PGlite as well.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import {
  call,
  evmWallet,
  expectError,
  issuedNonce,
  type Reply,
  signIn,
  solanaWallet,
  type TestApi,
  type TestWallet,
  useApi,
  verifySigned,
} from '../harness.js';

const api = useApi('postgres');
const errorBodies: unknown[] = [];

/** expectError, and keeps the body for the leak check at the end. */
function expectFailure(reply: Reply, status: number, code: string) {
  errorBodies.push(reply.body);
  return expectError(reply, status, code);
}

const issueNonce = (wallet: string) => issuedNonce(api, wallet);

const verifyOn = (server: TestApi, body: unknown, headers?: Record<string, string>) =>
  call(server, 'POST', '/auth/verify', { body, ...(headers ? { headers } : {}) });
const verify = (body: unknown, headers?: Record<string, string>) => verifyOn(api, body, headers);

/** A fresh wallet signed in once: the verify body it sent (its nonce now used) and the message it signed. */
async function signedInOnce() {
  const wallet = evmWallet();
  const nonce = await issueNonce(wallet.address);
  const body = { wallet: wallet.address, nonce: nonce.nonce, signature: await wallet.sign(nonce.message) };
  expect((await verify(body)).status).toBe(200);
  return { body, message: nonce.message };
}

const rawVerify = (rawBody: string, contentType = 'application/json') =>
  call(api, 'POST', '/auth/verify', { rawBody, headers: { 'content-type': contentType } });

/** A nonce of the right form that the server never issued. */
const unknownNonce = () => randomBytes(16).toString('hex');

// EIP-55's own example address with one letter's case flipped: mixed case, bad checksum.
const CHECKSUMMED = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const BAD_CHECKSUM = '0x5aaeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

const BAD_WALLETS: [string, string][] = [
  ['garbage', 'not-a-wallet'],
  ['empty', ''],
  ['0x + 39 hex', `0x${'a'.repeat(39)}`],
  ['0x + 41 hex', `0x${'a'.repeat(41)}`],
  ['0x + 40 non-hex', `0x${'g'.repeat(40)}`],
  ['mixed case with a bad EIP-55 checksum', BAD_CHECKSUM],
  ['base58 of 31 bytes', bs58.encode(randomBytes(31))],
  ['base58 of 33 bytes', bs58.encode(randomBytes(33))],
  ['base58 with a character outside the alphabet', `0${bs58.encode(randomBytes(32)).slice(1)}`],
];

describe('GET /auth/nonce', () => {
  it('without a wallet → 400 VALIDATION_ERROR whose issues name wallet', async () => {
    const body = expectFailure(await call(api, 'GET', '/auth/nonce'), 400, 'VALIDATION_ERROR');
    expect(body.issues?.some((issue) => issue.path.includes('wallet'))).toBe(true);
  });

  it.each(BAD_WALLETS)('wallet %s → 400 INVALID_WALLET', async (_name, wallet) => {
    expectFailure(await call(api, 'GET', `/auth/nonce?wallet=${encodeURIComponent(wallet)}`), 400, 'INVALID_WALLET');
  });

  it('accepts the correctly checksummed spelling of that same address', async () => {
    expect((await issueNonce(CHECKSUMMED)).wallet).toBe(CHECKSUMMED);
  });
});

describe('POST /auth/verify: body shape', () => {
  it('no body → 400 VALIDATION_ERROR naming every field', async () => {
    const body = expectFailure(await call(api, 'POST', '/auth/verify'), 400, 'VALIDATION_ERROR');
    const fields = body.issues?.map((issue) => issue.path[0]);
    expect(fields).toEqual(expect.arrayContaining(['wallet', 'signature', 'nonce']));
  });

  it('no body with a JSON content type → 400 VALIDATION_ERROR', async () => {
    expectFailure(await rawVerify(''), 400, 'VALIDATION_ERROR');
  });

  it.each([
    ['an array', '[]'],
    ['a string', '"x"'],
    ['a number', '42'],
    ['null', 'null'],
    ['true', 'true'],
  ])('body that is %s → 400 VALIDATION_ERROR', async (_name, raw) => {
    expectFailure(await rawVerify(raw), 400, 'VALIDATION_ERROR');
  });

  it('missing fields → 400 VALIDATION_ERROR naming exactly the missing ones', async () => {
    const wallet = evmWallet();
    const body = expectFailure(await verify({ wallet: wallet.address }), 400, 'VALIDATION_ERROR');
    const fields = body.issues?.map((issue) => issue.path[0]).sort();
    expect(fields).toEqual(['nonce', 'signature']);
  });

  it('wrong field types → 400 VALIDATION_ERROR naming each field', async () => {
    const body = expectFailure(
      await verify({ wallet: 123, signature: ['0x00'], nonce: { value: 'x' } }),
      400,
      'VALIDATION_ERROR',
    );
    const fields = body.issues?.map((issue) => issue.path[0]).sort();
    expect(fields).toEqual(['nonce', 'signature', 'wallet']);
    for (const issue of body.issues ?? []) expect(issue.message.length).toBeGreaterThan(0);
  });

  it('null fields → 400 VALIDATION_ERROR', async () => {
    const body = expectFailure(await verify({ wallet: null, signature: null, nonce: null }), 400, 'VALIDATION_ERROR');
    expect(body.issues?.length).toBe(3);
  });

  it('invalid JSON → 400 VALIDATION_ERROR', async () => {
    expectFailure(await rawVerify('{"wallet": "0x'), 400, 'VALIDATION_ERROR');
    expectFailure(await rawVerify("{wallet: 'x'}"), 400, 'VALIDATION_ERROR');
  });

  it('Content-Type text/plain with a body → 400 VALIDATION_ERROR', async () => {
    const wallet = evmWallet();
    const nonce = await issueNonce(wallet.address);
    const body = JSON.stringify({
      wallet: wallet.address,
      nonce: nonce.nonce,
      signature: await wallet.sign(nonce.message),
    });
    expectFailure(await rawVerify(body, 'text/plain'), 400, 'VALIDATION_ERROR');
    expectFailure(await rawVerify(body, 'application/x-www-form-urlencoded'), 400, 'VALIDATION_ERROR');
    // The nonce was not consumed by the refused requests.
    const ok = await rawVerify(body, 'application/json');
    expect(ok.status).toBe(200);
  });

  it('Content-Type application/json; charset=utf-8 → 200 for a valid login', async () => {
    const wallet = solanaWallet();
    const nonce = await issueNonce(wallet.address);
    const reply = await verify(
      { wallet: wallet.address, nonce: nonce.nonce, signature: await wallet.sign(nonce.message) },
      { 'content-type': 'application/json; charset=utf-8' },
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ tokenType: 'Bearer', isNewUser: true, user: { wallet: wallet.address } });
  });
});

describe('POST /auth/verify: wallet', () => {
  it.each(BAD_WALLETS)('wallet %s → 400 INVALID_WALLET', async (_name, bad) => {
    const wallet = evmWallet();
    const nonce = await issueNonce(wallet.address);
    expectFailure(
      await verify({ wallet: bad, nonce: nonce.nonce, signature: await wallet.sign(nonce.message) }),
      400,
      'INVALID_WALLET',
    );
  });
});

describe('POST /auth/verify: nonce', () => {
  it('unknown nonce → 401 INVALID_NONCE', async () => {
    const wallet = evmWallet();
    const nonce = unknownNonce();
    expectFailure(
      await verify({
        wallet: wallet.address,
        nonce,
        signature: await wallet.sign(`Sign this message to authenticate: ${nonce}`),
      }),
      401,
      'INVALID_NONCE',
    );
  });

  it.each([
    ['empty', ''],
    ['not alphanumeric', "'; select 1; --"],
    ['very long', 'a'.repeat(5000)],
  ])('nonce %s → 401 INVALID_NONCE', async (_name, nonce) => {
    const wallet = solanaWallet();
    expectFailure(
      await verify({ wallet: wallet.address, nonce, signature: await wallet.sign('x') }),
      401,
      'INVALID_NONCE',
    );
  });

  it('already-used nonce → 401 INVALID_NONCE', async () => {
    const { body } = await signedInOnce();
    expectFailure(await verify(body), 401, 'INVALID_NONCE');
  });
});

// The nonce is checked in memory (its MAC, wallet binding and expiry) before any database
// work, so these answers must not depend on the backend.
describe.each(['postgres', 'pglite'] as const)(
  'POST /auth/verify: tampered, expired, misdirected nonces on %s',
  (backend) => {
    const server = backend === 'postgres' ? api : useApi('pglite');

    it('tampered nonce (one character changed, cut short, extended) → 401 INVALID_NONCE', async () => {
      const wallet = evmWallet();
      const issued = await issuedNonce(server, wallet.address);
      const flip = (c: string) => (c === 'a' ? 'b' : 'a');
      const middle = Math.floor(issued.nonce.length / 2);
      for (const nonce of [
        flip(issued.nonce[0]!) + issued.nonce.slice(1),
        issued.nonce.slice(0, middle) + flip(issued.nonce[middle]!) + issued.nonce.slice(middle + 1),
        issued.nonce.slice(0, -1) + flip(issued.nonce.at(-1)!),
        issued.nonce.slice(0, -1),
        `${issued.nonce}a`,
      ]) {
        expectFailure(
          await verifyOn(server, {
            wallet: wallet.address,
            nonce,
            signature: await wallet.sign(`Sign this message to authenticate: ${nonce}`),
          }),
          401,
          'INVALID_NONCE',
        );
      }
      // The real one is untouched by those attempts.
      expect((await verifySigned(server, wallet, issued)).status).toBe(200);
    });

    it('expired nonce → 401 INVALID_NONCE', async () => {
      const wallet = solanaWallet();
      const nonce = await issuedNonce(server, wallet.address);
      server.advanceClock(server.config.nonceTtlSeconds * 1000 + 1_000);
      expectFailure(
        await verifyOn(server, {
          wallet: wallet.address,
          nonce: nonce.nonce,
          signature: await wallet.sign(nonce.message),
        }),
        401,
        'INVALID_NONCE',
      );
    });

    it('nonce issued for another wallet → 401 INVALID_NONCE, and stays usable by its own wallet', async () => {
      const owner = evmWallet();
      const other = evmWallet();
      const nonce = await issuedNonce(server, owner.address);
      expectFailure(
        await verifyOn(server, {
          wallet: other.address,
          nonce: nonce.nonce,
          signature: await other.sign(nonce.message),
        }),
        401,
        'INVALID_NONCE',
      );
      const solana = solanaWallet();
      expectFailure(
        await verifyOn(server, {
          wallet: solana.address,
          nonce: nonce.nonce,
          signature: await solana.sign(nonce.message),
        }),
        401,
        'INVALID_NONCE',
      );
      const ok = await verifyOn(server, {
        wallet: owner.address,
        nonce: nonce.nonce,
        signature: await owner.sign(nonce.message),
      });
      expect(ok.status).toBe(200);
    });
  },
);

describe('POST /auth/verify: signature', () => {
  const hexOf = (base58: string) => `0x${Buffer.from(bs58.decode(base58)).toString('hex')}`;

  const cases: [string, () => TestWallet, (wallet: TestWallet, message: string) => Promise<string>][] = [
    ['EVM: signed by another key', evmWallet, (_w, m) => evmWallet().sign(m)],
    ['EVM: signature of another message', evmWallet, (w, m) => w.sign(`${m}.`)],
    // 63 bytes: 64 would be a valid EIP-2098 compact signature about half the time (r ‖ s with a low s).
    ['EVM: truncated', evmWallet, async (w, m) => (await w.sign(m)).slice(0, -4)],
    ['EVM: one byte too long', evmWallet, async (w, m) => `${await w.sign(m)}00`],
    ['EVM: not hex', evmWallet, async () => `0x${'zz'.repeat(65)}`],
    [
      'EVM: base58 of the signature bytes',
      evmWallet,
      async (w, m) => bs58.encode(Buffer.from((await w.sign(m)).slice(2), 'hex')),
    ],
    ['EVM: a Solana signature (base58)', evmWallet, (_w, m) => solanaWallet().sign(m)],
    ['EVM: recovery byte out of range', evmWallet, async (w, m) => `${(await w.sign(m)).slice(0, -2)}05`],
    ['EVM: all zeros', evmWallet, async () => `0x${'00'.repeat(65)}`],
    ['EVM: empty', evmWallet, async () => ''],
    ['Solana: signed by another key', solanaWallet, (_w, m) => solanaWallet().sign(m)],
    ['Solana: hex of the right signature', solanaWallet, async (w, m) => hexOf(await w.sign(m))],
    ['Solana: an EVM signature (hex)', solanaWallet, (_w, m) => evmWallet().sign(m)],
    ['Solana: truncated', solanaWallet, async (w, m) => bs58.encode(bs58.decode(await w.sign(m)).slice(0, 63))],
    ['Solana: not base58', solanaWallet, async () => '0OIl'.repeat(22)],
    ['Solana: empty', solanaWallet, async () => ''],
  ];

  it.each(cases)(
    '%s → 401 INVALID_SIGNATURE, and the nonce then still works',
    async (_name, makeWallet, badSignature) => {
      const wallet = makeWallet();
      const nonce = await issueNonce(wallet.address);
      expectFailure(
        await verify({
          wallet: wallet.address,
          nonce: nonce.nonce,
          signature: await badSignature(wallet, nonce.message),
        }),
        401,
        'INVALID_SIGNATURE',
      );
      const ok = await verifySigned(api, wallet, nonce);
      expect(ok.status).toBe(200);
      expect(ok.body.user.wallet).toBe(wallet.address);
    },
  );

  it('a failed signature creates no user', async () => {
    const wallet = evmWallet();
    const nonce = await issueNonce(wallet.address);
    await verify({ wallet: wallet.address, nonce: nonce.nonce, signature: await evmWallet().sign(nonce.message) });
    const rows = await api.db.db.selectFrom('users').select('id').where('wallet', '=', wallet.address).execute();
    expect(rows).toHaveLength(0);
  });
});

describe('POST /auth/verify: check order', () => {
  it('bad body shape + bad wallet → VALIDATION_ERROR', async () => {
    expectFailure(await verify({ wallet: 'garbage', nonce: 7 }), 400, 'VALIDATION_ERROR');
    expectFailure(await verify({ wallet: 'garbage', nonce: 'x', signature: 1 }), 400, 'VALIDATION_ERROR');
  });

  it('bad wallet + unknown nonce → INVALID_WALLET', async () => {
    expectFailure(await verify({ wallet: 'garbage', nonce: unknownNonce(), signature: 'nope' }), 400, 'INVALID_WALLET');
  });

  it('unknown nonce + bad signature → INVALID_NONCE', async () => {
    const wallet = evmWallet();
    expectFailure(
      await verify({ wallet: wallet.address, nonce: unknownNonce(), signature: 'nope' }),
      401,
      'INVALID_NONCE',
    );
  });

  it('used nonce + bad signature → INVALID_NONCE (the nonce check answers first)', async () => {
    const { body: good, message } = await signedInOnce();
    const body = expectFailure(
      await verify({ ...good, signature: await evmWallet().sign(message) }),
      401,
      'INVALID_NONCE',
    );
    expect(body.message).toBe('nonce has already been used');
  });

  it('expired nonce + bad signature → INVALID_NONCE', async () => {
    const wallet = solanaWallet();
    const nonce = await issueNonce(wallet.address);
    api.advanceClock(301_000);
    expectFailure(await verify({ wallet: wallet.address, nonce: nonce.nonce, signature: '' }), 401, 'INVALID_NONCE');
  });
});

describe('unknown paths and methods', () => {
  const lacked = 'a method the path lacks';
  it.each([
    ['GET', '/nope', 'unknown path'],
    ['GET', '/providerz', 'unknown path'],
    ['GET', '/auth', 'unknown path'],
    ['GET', '/auth/nonce/extra', 'unknown path'],
    ['POST', '/nope', 'unknown path'],
    // GET / is the demo app (web.test.ts); other methods on it are still the API's 404.
    ['POST', '/', 'unknown path'],
    ['PUT', '/auth/verify', lacked],
    ['PATCH', '/auth/verify', lacked],
    ['GET', '/auth/verify', lacked],
    ['DELETE', '/auth/nonce', lacked],
    ['POST', '/auth/nonce', lacked],
    ['POST', '/health', lacked],
    ['DELETE', '/me', lacked],
    ['POST', '/.well-known/jwks.json', lacked],
  ])('%s %s (%s) → 404 NOT_FOUND', async (method, path) => {
    expectFailure(await call(api, method, path), 404, 'NOT_FOUND');
  });

  it('a method the path lacks answers NOT_FOUND even with a JSON body', async () => {
    expectFailure(await call(api, 'PUT', '/auth/verify', { body: { wallet: 'x' } }), 404, 'NOT_FOUND');
  });
});

describe('body size', () => {
  const LIMIT = 16 * 1024;

  it('a body over 16 KiB with a Content-Length → 413 PAYLOAD_TOO_LARGE', async () => {
    const raw = JSON.stringify({ wallet: 'x', nonce: 'y', signature: 'z'.repeat(LIMIT) });
    expect(Buffer.byteLength(raw)).toBeGreaterThan(LIMIT);
    expectFailure(await rawVerify(raw), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('a body of exactly 16 KiB is read (not refused for size)', async () => {
    const wallet = evmWallet();
    const base = JSON.stringify({ wallet: wallet.address, nonce: unknownNonce(), signature: '' });
    const raw = base + ' '.repeat(LIMIT - Buffer.byteLength(base));
    expect(Buffer.byteLength(raw)).toBe(LIMIT);
    expectFailure(await rawVerify(raw), 401, 'INVALID_NONCE');
  });

  it('a chunked body over 16 KiB without a Content-Length → 413 PAYLOAD_TOO_LARGE', async () => {
    const url = new URL('/auth/verify', api.url);
    const reply = await new Promise<Reply>((resolve, reject) => {
      const req = request(
        url,
        { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({
              status: res.statusCode ?? 0,
              headers: new Headers(res.headers as Record<string, string>),
              body: JSON.parse(text),
            });
          });
          res.on('error', reject);
        },
      );
      // The server may answer and stop reading before every chunk is written.
      req.on('error', (error) => {
        if (
          (error as NodeJS.ErrnoException).code !== 'EPIPE' &&
          (error as NodeJS.ErrnoException).code !== 'ECONNRESET'
        ) {
          reject(error);
        }
      });
      expect(req.getHeader('content-length')).toBeUndefined();
      req.write('{"signature":"');
      for (let i = 0; i < 5; i++) req.write('a'.repeat(4096));
      req.end('"}');
    });
    expectFailure(reply, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('the server keeps serving after refusing large bodies', async () => {
    const wallet = solanaWallet();
    const session = await signIn(api, wallet);
    expect((await call(api, 'GET', '/me', { token: session.token })).status).toBe(200);
  });
});

describe('error bodies', () => {
  it('never carry a stack, file paths or SQL', () => {
    expect(errorBodies.length).toBeGreaterThan(50);
    for (const body of errorBodies) {
      const text = JSON.stringify(body).toLowerCase();
      expect(text).not.toContain('stack');
      expect(text).not.toContain('at /');
      expect(text).not.toContain('node_modules');
      expect(text).not.toMatch(/\bselect\b/);
      expect(text).not.toContain('insert into');
      expect(text).not.toContain('used_nonces');
    }
  });
});
