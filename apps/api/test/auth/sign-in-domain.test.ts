/**
 * The site a SIWE/SIWS message names, attacked as a phishing backend would: it asks for a nonce
 * with its own (or an odd) Host and hopes for a message naming it. With SIGN_IN_DOMAIN listing
 * several sites, the message names the request's Host only when it is one of them (lower-cased),
 * else the first; a Host that is not host[:port] (port 1..65535) is a 400; without
 * SIGN_IN_DOMAIN, a server listening beyond loopback refuses SIWE and SIWS (and says why at
 * start), while one on loopback names the Host as the contract has it.
 */
import { parseSignInMessageText } from '@solana/wallet-standard-util';
import bs58 from 'bs58';
import pino from 'pino';
import nacl from 'tweetnacl';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { parseSiweMessage } from 'viem/siwe';
import { describe, expect, it } from 'vitest';
import { call, expectError, startApi, type TestApi, useApi } from '../harness.js';
import { httpCall } from '../raw-http.js';

/** A nonce request with the Host header of our choosing: status and parsed body. */
async function nonceFor(api: TestApi, query: string, host: string) {
  const reply = await httpCall(api.url, { method: 'GET', path: `/auth/nonce?${query}`, headers: { host } });
  return { status: reply.status, body: JSON.parse(reply.text) };
}

const evmAddress = () => privateKeyToAccount(generatePrivateKey()).address;
const solanaAddress = () => bs58.encode(nacl.sign.keyPair().publicKey);
const siweDomain = (message: string) => parseSiweMessage(message).domain;

/** Hosts no message may name: a bad port, no host at all, a path, a scheme, spaces. */
const BAD_HOSTS = ['app.example.com:99999', 'app.example.com:0', ':3000', 'app.example.com/x', 'a b.example'];

async function expectBadHostsRefused(api: TestApi) {
  for (const host of BAD_HOSTS) {
    const reply = await nonceFor(api, `wallet=${evmAddress()}&format=siwe`, host);
    expect(reply.status, host).toBe(400);
    expect(reply.body.code, host).toBe('VALIDATION_ERROR');
    expect(reply.body.message, host).toContain('Host');
  }
}

describe('SIGN_IN_DOMAIN with several sites (postgres)', () => {
  const api = useApi('postgres', { env: { SIGN_IN_DOMAIN: 'app.example.com, Other.Example:8443' } });

  it("names the request's Host when it is listed (compared lower-cased), else the first site", async () => {
    const named = async (host: string) =>
      siweDomain((await nonceFor(api, `wallet=${evmAddress()}&format=siwe`, host)).body.message);
    expect(await named('other.example:8443')).toBe('other.example:8443');
    expect(await named('OTHER.Example:8443')).toBe('other.example:8443');
    expect(await named('app.example.com')).toBe('app.example.com');
    // The phishing backend's own host, another port of a listed one, an upper-case look-alike.
    expect(await named('evil.example')).toBe('app.example.com');
    expect(await named('other.example:8444')).toBe('app.example.com');
    expect(await named('EVIL.Example')).toBe('app.example.com');
    const solana = await nonceFor(api, `wallet=${solanaAddress()}&format=siws`, 'OTHER.EXAMPLE:8443');
    expect(parseSignInMessageText(solana.body.message)?.domain).toBe('other.example:8443');
  });

  it('a Host that is not host[:port] with a port of 1..65535 is a 400', async () => {
    await expectBadHostsRefused(api);
  });

  it('a nonce named for one listed site signs in; the same signature for another listed site does not', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const issued = (await nonceFor(api, `wallet=${account.address}&format=siwe`, 'other.example:8443')).body;
    const otherSite = issued.message.replaceAll('other.example:8443', 'app.example.com');
    const verify = async (message: string) =>
      call(api, 'POST', '/auth/verify', {
        body: { wallet: account.address, nonce: issued.nonce, signature: await account.signMessage({ message }) },
      });
    expectError(await verify(otherSite), 401, 'INVALID_SIGNATURE');
    expect((await verify(issued.message)).status).toBe(200);
  });
});

describe('SIGN_IN_DOMAIN unset (pglite)', () => {
  it('beyond loopback: SIWE and SIWS refused with a clear 400, plain still served, and a warning at start', async () => {
    const lines: { level: number; msg: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const api = await startApi('pglite', { env: { HOST: '0.0.0.0' }, logger });
    try {
      const warning = lines.find((line) => line.msg.startsWith('SIGN_IN_DOMAIN is unset'));
      expect(warning?.msg).toContain('HOST=0.0.0.0 is not loopback');
      expect(warning?.msg).toContain('phishing');
      for (const query of [`wallet=${evmAddress()}&format=siwe`, `wallet=${solanaAddress()}&format=siws`]) {
        // The phishing backend's Host, and the server's own: refused alike.
        for (const host of ['evil.example', new URL(api.url).host]) {
          const refused = await nonceFor(api, query, host);
          expect(refused.status, query).toBe(400);
          expect(refused.body.code).toBe('VALIDATION_ERROR');
          expect(refused.body.message).toMatch(/needs SIGN_IN_DOMAIN on this server: it listens beyond loopback/);
          expect(refused.body.issues).toEqual([{ path: ['format'], message: expect.any(String) }]);
        }
      }
      const plain = await nonceFor(api, `wallet=${evmAddress()}`, 'evil.example');
      expect(plain.status).toBe(200);
      expect(plain.body.message).not.toContain('evil.example');
    } finally {
      await api.stop();
    }
    // A PGlite server started in the test: seconds, more on a loaded machine.
  }, 90_000);

  it('on loopback: the message names the Host, lower-cased, and odd hosts are refused; no warning', async () => {
    const lines: { msg: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const api = await startApi('pglite', { logger });
    try {
      expect(lines.filter((line) => line.msg.startsWith('SIGN_IN_DOMAIN'))).toEqual([]);
      const reply = await nonceFor(api, `wallet=${evmAddress()}&format=siwe`, 'LocalHost:5173');
      expect(siweDomain(reply.body.message)).toBe('localhost:5173');
      await expectBadHostsRefused(api);
    } finally {
      await api.stop();
    }
    // A PGlite server started in the test: seconds, more on a loaded machine.
  }, 90_000);
});
