/**
 * The client address behind proxies (TRUST_PROXY), attacked as a client would: a real appending
 * proxy (as nginx's `$proxy_add_x_forwarded_for` or HAProxy's `option forwardfor` do) in front
 * of the server, and clients that write their own X-Forwarded-For. The address the limit counts
 * is observed through the auth rate limit itself.
 */
import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Backend } from '@signal/db';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmWallet, startApi, type TestApi, useApi } from '../harness.js';
import { httpCall } from '../raw-http.js';

const LIMIT = 3;
const MINUTE = 60_000;
/** The proxy connects to the API from this address, so a CIDR list can name it alone. */
const PROXY_ADDRESS = '127.0.0.3';

/** A GET from a chosen local address (another "client host" on loopback): status and code. */
async function get(url: string, options: { localAddress?: string; headers?: Record<string, string> } = {}) {
  const target = new URL(url);
  const reply = await httpCall(target.origin, {
    method: 'GET',
    path: target.pathname + target.search,
    headers: options.headers,
    localAddress: options.localAddress,
  });
  return { status: reply.status, body: JSON.parse(reply.text) as { code?: string } };
}

/**
 * A reverse proxy that appends the address it saw to X-Forwarded-For, and nothing more; `entry`
 * writes that address as the proxy does (default: as it is).
 */
async function appendingProxy(
  target: string,
  entry: (address: string, port: number) => string = (address) => address,
): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server: Server = createHttpServer((req, res) => {
    const seen = entry(req.socket.remoteAddress ?? '', req.socket.remotePort ?? 0);
    const forwarded = req.headers['x-forwarded-for'];
    const headers = { ...req.headers, 'x-forwarded-for': forwarded ? `${forwarded}, ${seen}` : seen };
    const out = httpRequest({
      host: upstream.hostname,
      port: upstream.port,
      path: req.url,
      method: req.method,
      headers,
      localAddress: PROXY_ADDRESS,
      agent: false,
    });
    out.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function toWindowStart(api: TestApi) {
  api.advanceClock(MINUTE - (api.now().getTime() % MINUTE) + 50);
}

const noncePath = () => `/auth/nonce?wallet=${evmWallet().address}`;
let spoof = 0;
/** A different forged left-most entry on every request, as an attacker rotating addresses. */
const spoofed = () => ({ 'x-forwarded-for': `198.51.100.${++spoof % 250}, 203.0.113.${spoof % 250}` });

function behindAProxy(backend: Backend, trustProxy: string) {
  describe(`TRUST_PROXY=${trustProxy} behind an appending proxy on ${backend}`, () => {
    let api: TestApi;
    let proxy: Awaited<ReturnType<typeof appendingProxy>>;
    beforeAll(async () => {
      api = await startApi(backend, { env: { AUTH_RATE_LIMIT_PER_MINUTE: String(LIMIT), TRUST_PROXY: trustProxy } });
      proxy = await appendingProxy(api.url);
    });
    afterAll(async () => {
      await proxy?.close();
      await api?.stop();
    });

    it('counts the address the proxy saw: a forged left entry on every request changes nothing', async () => {
      toWindowStart(api);
      for (let i = 0; i < LIMIT; i++) {
        expect((await get(`${proxy.url}${noncePath()}`, { headers: spoofed() })).status).toBe(200);
      }
      const refused = await get(`${proxy.url}${noncePath()}`, { headers: spoofed() });
      expect(refused).toMatchObject({ status: 429, body: { code: 'RATE_LIMITED' } });
      expect((await get(`${proxy.url}${noncePath()}`)).status).toBe(429);
      // Another host behind the same proxy is another client, with its own count.
      expect((await get(`${proxy.url}${noncePath()}`, { localAddress: '127.0.0.2', headers: spoofed() })).status).toBe(
        200,
      );
    });
  });
}

behindAProxy('postgres', '1');
behindAProxy('pglite', 'true');
behindAProxy('postgres', `${PROXY_ADDRESS}/32, 10.0.0.0/8`);

describe('TRUST_PROXY as a CIDR list: a client that is not a trusted proxy', () => {
  const api = useApi('pglite', {
    env: { AUTH_RATE_LIMIT_PER_MINUTE: String(LIMIT), TRUST_PROXY: `${PROXY_ADDRESS}/32` },
  });

  it('is counted by its own address whatever X-Forwarded-For it writes', async () => {
    toWindowStart(api);
    for (let i = 0; i < LIMIT; i++) {
      expect((await get(`${api.url}${noncePath()}`, { headers: spoofed() })).status).toBe(200);
    }
    expect((await get(`${api.url}${noncePath()}`, { headers: spoofed() })).status).toBe(429);
  });

  it('a trusted proxy address that forwards a chain of trusted entries: the first untrusted one is the client', async () => {
    toWindowStart(api);
    // As if 127.0.0.3 forwarded for another trusted 127.0.0.3 hop that saw 192.0.2.50.
    const chain = (left: string) => ({ 'x-forwarded-for': `${left}, 192.0.2.50, ${PROXY_ADDRESS}` });
    for (let i = 0; i < LIMIT; i++) {
      const reply = await get(`${api.url}${noncePath()}`, {
        localAddress: PROXY_ADDRESS,
        headers: chain(`10.0.0.${i}`),
      });
      expect(reply.status).toBe(200);
    }
    expect(
      (await get(`${api.url}${noncePath()}`, { localAddress: PROXY_ADDRESS, headers: chain('10.9.9.9') })).status,
    ).toBe(429);
    expect(
      (await get(`${api.url}${noncePath()}`, { localAddress: PROXY_ADDRESS, headers: chain('192.0.2.51') })).status,
    ).toBe(429);
    expect(
      (
        await get(`${api.url}${noncePath()}`, {
          localAddress: PROXY_ADDRESS,
          headers: { 'x-forwarded-for': '192.0.2.51' },
        })
      ).status,
    ).toBe(200);
  });
});

/**
 * Proxies that append `address:port` (Azure Application Gateway, IIS ARR). Before, no such entry
 * read as an address, so every client fell back to the proxy's own bucket: the second client
 * below was refused with the first. The IPv6 proxy writes each loopback client as an address of
 * a documentation /64 of its own (`[2001:db8:0:N::1]:port`), as it would write IPv6 clients.
 */
function behindAPortAppendingProxy(backend: Backend, family: 'IPv4' | 'IPv6') {
  describe(`an appending proxy that writes ${family} address:port entries, on ${backend}`, () => {
    let api: TestApi;
    let proxy: Awaited<ReturnType<typeof appendingProxy>>;
    const lines: { msg?: string; entry?: string; unreadableSinceLastWarning?: number }[] = [];
    beforeAll(async () => {
      const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
      api = await startApi(backend, { env: { AUTH_RATE_LIMIT_PER_MINUTE: String(LIMIT), TRUST_PROXY: '1' }, logger });
      proxy = await appendingProxy(api.url, (address, port) =>
        family === 'IPv4' ? `${address}:${port}` : `[2001:db8:0:${address.split('.').at(-1)}::1]:${port}`,
      );
    });
    afterAll(async () => {
      await proxy?.close();
      await api?.stop();
    });

    it('reads each entry as its address: one client is limited, another is not, whatever the port', async () => {
      toWindowStart(api);
      // Each request on a new connection: a new source port every time, one client.
      for (let i = 0; i < LIMIT; i++) expect((await get(`${proxy.url}${noncePath()}`)).status).toBe(200);
      expect((await get(`${proxy.url}${noncePath()}`)).status).toBe(429);
      expect((await get(`${proxy.url}${noncePath()}`, { localAddress: '127.0.0.2' })).status).toBe(200);
      expect(lines.filter((line) => line.msg?.startsWith('X-Forwarded-For'))).toEqual([]);
    });

    it('an entry that still is not an address falls back to the peer and is logged, once a minute', async () => {
      toWindowStart(api);
      const garbage = { 'x-forwarded-for': 'unknown' };
      for (let i = 0; i < LIMIT; i++) {
        expect((await get(`${api.url}${noncePath()}`, { localAddress: '127.0.0.4', headers: garbage })).status).toBe(
          200,
        );
      }
      expect((await get(`${api.url}${noncePath()}`, { localAddress: '127.0.0.4', headers: garbage })).status).toBe(429);
      const warnings = lines.filter((line) => line.msg?.startsWith('X-Forwarded-For'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ entry: 'unknown', unreadableSinceLastWarning: 1 });
      // A minute later the next one is logged again, counting the ones it stood for.
      api.advanceClock(MINUTE);
      await get(`${api.url}${noncePath()}`, { localAddress: '127.0.0.4', headers: garbage });
      const after = lines.filter((line) => line.msg?.startsWith('X-Forwarded-For'));
      expect(after).toHaveLength(2);
      expect(after[1]).toMatchObject({ unreadableSinceLastWarning: LIMIT + 1 });
    });
  });
}

behindAPortAppendingProxy('postgres', 'IPv4');
behindAPortAppendingProxy('pglite', 'IPv6');
