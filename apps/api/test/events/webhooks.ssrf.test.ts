/**
 * Webhooks are never a door inward (CONTRACT.md, "Webhooks"; docs/security.md): with
 * WEBHOOK_ALLOW_PRIVATE off, every notation of a loopback, private, link-local, unique-local,
 * CGNAT, "this network", multicast, broadcast or metadata address is refused at creation (and
 * at PATCH), and a name that resolves to loopback only at delivery time (DNS rebinding, played
 * by a real DNS server in the test, asked through WEBHOOK_DNS_SERVERS) is refused then: the
 * receiver listening there never sees a request. Also: https only unless WEBHOOK_ALLOW_HTTP, and
 * the warning in the log when a development switch is on.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDns, type TestDns } from '../dns-server.js';
import { call, expectError, startApi, type TestApi, useApi } from '../harness.js';
import { type Receiver, startReceiver } from '../webhook-receiver.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
/** A public address (not in any refused range); nothing is ever sent to it in these tests. */
const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:2800:21f:cb07:6820:80da:af6b:8b2c';

/** Every notation of an inward address that must be refused; what each one is. */
const INWARD_URLS: [string, string][] = [
  ['http://127.0.0.1/hook', 'loopback'],
  ['http://2130706433/hook', 'loopback in decimal'],
  ['http://0177.0.0.1/hook', 'loopback in octal'],
  ['http://0177.0000.0000.0001/hook', 'loopback in padded octal'],
  ['http://017700000001/hook', 'loopback as one octal number'],
  ['http://0x7f.0.0.1/hook', 'loopback in hex'],
  ['http://0x7f000001/hook', 'loopback as one hex number'],
  ['http://127.1/hook', 'loopback, short form'],
  ['http://127.0.0.1.:8080/hook', 'loopback with a trailing dot'],
  ['http://[::1]/hook', 'IPv6 loopback'],
  ['http://[0:0:0:0:0:0:0:1]/hook', 'IPv6 loopback, long form'],
  ['http://[::ffff:127.0.0.1]/hook', 'IPv4-mapped IPv6 loopback'],
  ['http://[::ffff:7f00:1]/hook', 'IPv4-mapped IPv6 loopback in hex'],
  ['http://[64:ff9b::7f00:1]/hook', 'NAT64 of loopback'],
  ['http://[::127.0.0.1]/hook', 'IPv4-compatible IPv6'],
  ['http://[2002:7f00:1::]/hook', '6to4 of loopback'],
  ['http://10.0.0.1/hook', 'private 10/8'],
  ['http://172.16.5.4/hook', 'private 172.16/12'],
  ['http://172.31.255.255/hook', 'private 172.16/12, its last address'],
  ['http://192.168.1.1/hook', 'private 192.168/16'],
  ['http://3232235777/hook', 'private 192.168.1.1 in decimal'],
  ['http://[::ffff:c0a8:101]/hook', 'private 192.168.1.1, IPv4-mapped'],
  ['http://169.254.169.254/latest/meta-data/', 'cloud metadata'],
  ['http://0xa9fea9fe/latest/meta-data/', 'cloud metadata in hex'],
  ['http://[64:ff9b::a9fe:a9fe]/hook', 'cloud metadata via NAT64'],
  ['http://[fd00:ec2::254]/latest/meta-data/', 'cloud metadata (IPv6)'],
  ['http://169.254.1.1/hook', 'link-local'],
  ['http://[fe80::1]/hook', 'IPv6 link-local'],
  ['http://[fc00::1]/hook', 'unique-local'],
  ['http://100.64.0.1/hook', 'CGNAT'],
  ['http://100.127.255.254/hook', 'CGNAT, its end'],
  ['http://0.0.0.0/hook', '"this network"'],
  ['http://0/hook', '"this network", short form'],
  ['http://0.1.2.3/hook', '"this network" 0/8'],
  ['http://224.0.0.1/hook', 'multicast'],
  ['http://[ff02::1]/hook', 'IPv6 multicast'],
  ['http://255.255.255.255/hook', 'broadcast'],
  ['http://240.0.0.1/hook', 'reserved'],
  ['http://[::]/hook', 'IPv6 unspecified'],
  ['http://localhost/hook', 'localhost'],
  ['http://api.localhost/hook', 'a .localhost name'],
  ['http://internal.test/hook', 'a name resolving to a private address'],
  ['http://mixed.test/hook', 'a name with a public and a private address'],
  ['http://loop6.test/hook', 'a name resolving to IPv6 loopback'],
  ['http://nowhere.test/hook', 'a name that does not resolve'],
  ['http://user:pass@example.test/hook', 'credentials in the URL'],
  ['ftp://public.test/hook', 'not http(s)'],
];

/**
 * One address inside each range of IANA's IPv4 and IPv6 Special-Purpose Address Registries not
 * covered above (issue 42: some of them IANA marks globally reachable, none is a receiver's
 * place), and 168.63.129.16.
 */
const SPECIAL_PURPOSE: [string, string][] = [
  ['168.63.129.16', 'a cloud platform internal endpoint'],
  ['192.0.0.9', 'port control protocol anycast, in 192.0.0.0/24'],
  ['192.0.0.170', 'NAT64 discovery, in 192.0.0.0/24'],
  ['192.0.2.77', 'TEST-NET-1'],
  ['192.31.196.1', 'AS112-v4'],
  ['192.52.193.1', 'AMT'],
  ['192.88.99.1', 'deprecated 6to4 relay anycast'],
  ['192.175.48.6', 'AS112 direct delegation'],
  ['198.19.255.1', 'benchmarking 198.18.0.0/15'],
  ['198.51.100.7', 'TEST-NET-2'],
  ['203.0.113.9', 'TEST-NET-3'],
  ['250.1.2.3', 'reserved 240.0.0.0/4'],
  ['::ffff:93.184.215.14', 'IPv4-mapped, even of a public address'],
  ['64:ff9b::5db8:d70e', 'NAT64 well-known prefix, even of a public address'],
  ['64:ff9b:1::1', 'local-use NAT64'],
  ['100::1', 'discard-only'],
  ['100:0:0:1::1', 'dummy IPv6 prefix'],
  ['2001::1', 'Teredo'],
  ['2001:1::1', 'port control protocol anycast'],
  ['2001:2::1', 'benchmarking'],
  ['2001:3::1', 'AMT'],
  ['2001:4:112::1', 'AS112-v6'],
  ['2001:20::1', 'ORCHIDv2'],
  ['2001:30::1', 'drone remote ID'],
  ['2001:db8:1::1', 'documentation'],
  ['2002:5db8:d70e::1', '6to4, even of a public address'],
  ['2620:4f:8000::1', 'AS112 direct delegation'],
  ['3fff:1::1', 'documentation 3fff::/20'],
  ['5f00::1', 'SRv6 SIDs'],
  ['fec0::1', 'deprecated site-local'],
];

describe.each(['postgres', 'pglite'] as const)('webhook targets on %s, WEBHOOK_ALLOW_PRIVATE off', (backend) => {
  let api: TestApi;
  let dns: TestDns;
  let receiver: Receiver;
  const logLines: string[] = [];
  beforeAll(async () => {
    dns = await startTestDns();
    dns.set('public.test', [PUBLIC_V4, PUBLIC_V6]);
    dns.set('internal.test', ['10.1.2.3']);
    dns.set('mixed.test', [PUBLIC_V4, '192.168.0.1']);
    dns.set('loop6.test', ['::1']);
    dns.set('example.test', [PUBLIC_V4]);
    receiver = await startReceiver();
    const logger = pino(
      { level: 'warn' },
      new Writable({
        write(chunk, _encoding, done) {
          logLines.push(String(chunk));
          done();
        },
      }),
    );
    api = await startApi(backend, {
      logger,
      env: {
        ADMIN_KEY,
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_DNS_SERVERS: dns.server,
        WEBHOOK_RETRY_SCHEDULE: '1h',
      },
    });
  });
  afterAll(async () => {
    await api?.stop();
    await receiver?.close();
    await dns?.close();
  });

  const create = (url: string, types = ['wallet.linked']) =>
    call(api, 'POST', '/webhooks', { token: ADMIN_KEY, body: { url, types } });

  it.each(INWARD_URLS)('refuses %s at creation (%s)', async (url, what) => {
    const refused = expectError(await create(url), 400, 'VALIDATION_ERROR');
    expect(refused.issues?.[0]?.path).toEqual(['url']);
    // Refused for the rule it breaks, not because some resolver failed on an odd spelling.
    if (!/name|credentials|http/.test(what)) expect(refused.issues?.[0]?.message).toMatch(/^private address: /);
  });

  it.each(SPECIAL_PURPOSE)('refuses %s, IANA special-purpose or cloud-internal (%s)', async (address, what) => {
    const host = address.includes(':') ? `[${address}]` : address;
    const refused = expectError(await create(`http://${host}/hook`), 400, 'VALIDATION_ERROR');
    expect(refused.issues?.[0]?.message, what).toMatch(/^private address: /);
  });

  it('names the rule, never what a name resolves to', async () => {
    for (const name of ['internal.test', 'mixed.test', 'loop6.test']) {
      const refused = expectError(await create(`http://${name}/hook`), 400, 'VALIDATION_ERROR');
      expect(refused.issues?.[0]?.message).toBe('private address');
      expect(refused.message).not.toMatch(/resolves|10\.1\.2\.3|192\.168|::1|loopback|private-use/);
    }
    const unknown = expectError(await create('http://nowhere.test/hook'), 400, 'VALIDATION_ERROR');
    expect(unknown.issues?.[0]?.message).toBe('host nowhere.test does not resolve');
  });

  it('accepts public addresses and names, and refuses an edit to an inward one', async () => {
    const byName = await create('http://public.test/hook');
    expect(byName.status).toBe(201);
    expect((await create(`http://[${PUBLIC_V6}]/hook`)).status).toBe(201);
    expect((await create(`http://${PUBLIC_V4}:8443/hook`)).status).toBe(201);
    const edit = await call(api, 'PATCH', `/webhooks/${byName.body.id}`, {
      token: ADMIN_KEY,
      body: { url: 'http://0x7f.1/hook' },
    });
    expectError(edit, 400, 'VALIDATION_ERROR');
    expect((await call(api, 'GET', `/webhooks/${byName.body.id}`, { token: ADMIN_KEY })).body.url).toBe(
      'http://public.test/hook',
    );
  });

  it('a name that resolves to loopback only at delivery time is refused then: the receiver there sees nothing', async () => {
    const name = `rebind-${backend}.test`;
    dns.set(name, [PUBLIC_V4]);
    const created = await create(`http://${name}:${receiver.port}/rebound`, ['provider.created']);
    expect(created.status).toBe(201);
    // Rebinding: the same name now points at the receiver on loopback.
    dns.set(name, ['127.0.0.1']);
    const askedBefore = dns.queries(name);
    expect((await call(api, 'POST', '/providers', { token: ADMIN_KEY, body: { name: 'rebound' } })).status).toBe(201);
    const deadline = Date.now() + 60_000;
    let items: { status: string; responseStatus: number | null; attempt: number }[] = [];
    while (!items.some((item) => item.status === 'failed')) {
      if (Date.now() > deadline) throw new Error(`no failed attempt: ${JSON.stringify(items)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      items = (await call(api, 'GET', `/webhooks/${created.body.id}/deliveries`, { token: ADMIN_KEY })).body.items;
    }
    expect(items).toContainEqual(expect.objectContaining({ attempt: 1, status: 'failed', responseStatus: null }));
    // The delivery asked DNS again, was told loopback, and sent nothing.
    expect(dns.queries(name)).toBeGreaterThan(askedBefore);
    expect(receiver.received).toHaveLength(0);
  });

  it('logs a warning while WEBHOOK_ALLOW_HTTP is on', () => {
    expect(logLines.join('')).toContain('WEBHOOK_ALLOW_HTTP is on');
    expect(logLines.join('')).not.toContain('WEBHOOK_ALLOW_PRIVATE is on');
  });
});

describe('webhook targets with the development switches off (defaults)', () => {
  const api = useApi('pglite', { env: { ADMIN_KEY } });

  it('refuses http:// URLs, even to a public address', async () => {
    const refused = await call(api, 'POST', '/webhooks', {
      token: ADMIN_KEY,
      body: { url: `http://${PUBLIC_V4}/hook`, types: ['*'] },
    });
    expect(expectError(refused, 400, 'VALIDATION_ERROR').issues?.[0]?.message).toMatch(/^not https: /);
    const inward = await call(api, 'POST', '/webhooks', {
      token: ADMIN_KEY,
      body: { url: 'https://[::ffff:127.0.0.1]/hook', types: ['*'] },
    });
    expectError(inward, 400, 'VALIDATION_ERROR');
    const publicHttps = await call(api, 'POST', '/webhooks', {
      token: ADMIN_KEY,
      body: { url: `https://${PUBLIC_V4}/hook`, types: ['wallet.linked'] },
    });
    expect(publicHttps.status).toBe(201);
  });
});
