/**
 * GET /metrics (Prometheus text, prom-client): off by default; METRICS=true serves it on the API
 * port, METRICS_PORT on a listener of its own. Scraped and parsed strictly, before and after
 * real requests over REST and tRPC, on PostgreSQL and PGlite.
 */
import { describe, expect, it } from 'vitest';
import { call, evmWallet, expectError, signIn, trpcClient, trpcFailure, useApi } from '../harness.js';
import { type Family, parsePrometheusText, sampleValue } from '../prometheus-text.js';

async function scrape(url: string): Promise<Map<string, Family>> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await res.text());
}

const requests = (families: Map<string, Family>, method: string, route: string, status: number) =>
  sampleValue(families, 'http_request_duration_seconds_count', { method, route, status: String(status) });

describe('metrics off (the default)', () => {
  const api = useApi('postgres');

  it('GET /metrics is a 404 like any unknown path', async () => {
    expectError(await call(api, 'GET', '/metrics'), 404, 'NOT_FOUND');
    expect(api.metricsUrl).toBeUndefined();
  });
});

describe('METRICS=true on PostgreSQL', () => {
  const api = useApi('postgres', { env: { METRICS: 'true', SEED_PROVIDERS: '5' } });

  it('counts requests by method, route template and status, and sign-ins by outcome', async () => {
    const before = await scrape(`${api.url}/metrics`);

    for (let i = 0; i < 3; i++) expect((await call(api, 'GET', '/providers?limit=2')).status).toBe(200);
    expect((await call(api, 'GET', '/providers/1')).status).toBe(200);
    expect((await call(api, 'GET', '/providers/2/stats')).status).toBe(200);
    expectError(await call(api, 'GET', '/providers/987654'), 404, 'PROVIDER_NOT_FOUND');
    expectError(await call(api, 'GET', '/no/such/path/x7Qz'), 404, 'NOT_FOUND');
    expect((await trpcClient(api).providers.get.query({ id: 3 })).id).toBe(3);
    expect((await call(api, 'GET', '/trpc/nope')).status).toBe(404);

    // Sign-ins: one success, one bad signature over REST, one bad wallet over tRPC.
    await signIn(api, evmWallet());
    const wallet = evmWallet();
    const nonce = await call(api, 'GET', `/auth/nonce?wallet=${wallet.address}`);
    const forged = await evmWallet().sign(nonce.body.message);
    expectError(
      await call(api, 'POST', '/auth/verify', {
        body: { wallet: wallet.address, nonce: nonce.body.nonce, signature: forged },
      }),
      401,
      'INVALID_SIGNATURE',
    );
    const badWallet = await trpcFailure(
      trpcClient(api).auth.verify.mutate({ wallet: 'nope', nonce: nonce.body.nonce, signature: forged }),
    );
    expect(badWallet.data?.code).toBe('INVALID_WALLET');

    const after = await scrape(`${api.url}/metrics`);
    // `method route status`: how many more requests the counter holds; a failure shows every row.
    const expected: Record<string, number> = {
      'GET /providers 200': 3,
      'GET /providers/{id} 200': 1,
      'GET /providers/{id}/stats 200': 1,
      'GET /providers/{id} 404': 1,
      'GET /auth/nonce 200': 2,
      'POST /auth/verify 200': 1,
      'POST /auth/verify 401': 1,
      'GET /trpc/providers.get 200': 1,
      'GET /trpc/(unknown) 404': 1,
      'POST /trpc/auth.verify 400': 1,
      'GET (none) 404': 1,
      // The scrape that came before `after` is counted too (by its own route).
      'GET /metrics 200': 1,
    };
    const delta = (row: string) => {
      const [method, route, status] = row.split(' ') as [string, string, string];
      return requests(after, method, route, Number(status)) - requests(before, method, route, Number(status));
    };
    expect(Object.fromEntries(Object.keys(expected).map((row) => [row, delta(row)]))).toEqual(expected);

    const signIns = (outcome: string) =>
      sampleValue(after, 'signal_sign_ins_total', { outcome }) -
      sampleValue(before, 'signal_sign_ins_total', { outcome });
    expect(signIns('success')).toBe(1);
    expect(signIns('INVALID_SIGNATURE')).toBe(1);
    expect(signIns('INVALID_WALLET')).toBe(1);

    // Latency sums moved with the counts and are plausible (seconds, not milliseconds).
    const sum = sampleValue(after, 'http_request_duration_seconds_sum', {
      method: 'GET',
      route: '/providers',
      status: '200',
    });
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(30);
  });

  it('never labels by raw URL: path parameters, queries and unknown paths stay out of the labels', async () => {
    await call(api, 'GET', '/providers/424242?x=secret-query');
    await call(api, 'GET', '/wp-admin/../etc/passwd-a1b2');
    const text = await (await fetch(`${api.url}/metrics`)).text();
    expect(text).not.toContain('424242');
    expect(text).not.toContain('secret-query');
    expect(text).not.toContain('passwd');
    const routes = new Set(
      [...parsePrometheusText(text).get('http_request_duration_seconds')!.samples].map((s) => s.labels.route),
    );
    for (const route of routes) expect(route).toMatch(/^(\/[a-z.{}/()-]*|\(none\))$/i);
  });

  it('counts methods outside the seven under one `other` series per route and status', async () => {
    const before = await scrape(`${api.url}/metrics`);
    for (const method of ['PROPFIND', 'MKCOL', 'PROPFIND'])
      await (await fetch(`${api.url}/x7Qz`, { method })).arrayBuffer();
    const after = await scrape(`${api.url}/metrics`);
    const other = (families: Map<string, Family>) =>
      families
        .get('http_request_duration_seconds')
        ?.samples.filter(
          (s) =>
            s.name === 'http_request_duration_seconds_count' &&
            s.labels.method === 'other' &&
            s.labels.route === '(none)' &&
            s.labels.status === '404',
        ) ?? [];
    // One series for the label set, however many raw methods fed it.
    expect(other(after)).toHaveLength(1);
    expect((other(after)[0]?.value ?? 0) - (other(before)[0]?.value ?? 0)).toBe(3);
  });

  it('reports the pg pool, the event loop and the process', async () => {
    const families = await scrape(`${api.url}/metrics`);
    expect(sampleValue(families, 'signal_db_pool_max', { pool: 'primary', backend: 'postgres' })).toBe(10);
    const total = sampleValue(families, 'signal_db_pool_connections', { pool: 'primary', state: 'total' });
    const idle = sampleValue(families, 'signal_db_pool_connections', { pool: 'primary', state: 'idle' });
    expect(total).toBeGreaterThanOrEqual(1);
    expect(idle).toBeLessThanOrEqual(total);
    expect(
      families
        .get('signal_db_pool_connections')
        ?.samples.map((s) => s.labels.state)
        .sort(),
    ).toEqual(['idle', 'total', 'waiting']);
    expect(families.get('nodejs_eventloop_lag_seconds')?.type).toBe('gauge');
    expect(families.get('nodejs_eventloop_lag_p99_seconds')?.type).toBe('gauge');
    expect(sampleValue(families, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(sampleValue(families, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });
});

describe('METRICS_PORT on PGlite', () => {
  const api = useApi('pglite', { env: { METRICS_PORT: '0' } });

  it('serves /metrics on its own listener only, counting the API port’s requests', async () => {
    const metricsUrl = api.metricsUrl as string;
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(metricsUrl).port).not.toBe(new URL(api.url).port);
    expectError(await call(api, 'GET', '/metrics'), 404, 'NOT_FOUND');

    const before = await scrape(metricsUrl);
    expect((await call(api, 'GET', '/health')).status).toBe(200);
    const after = await scrape(metricsUrl);
    expect(requests(after, 'GET', '/health', 200) - requests(before, 'GET', '/health', 200)).toBe(1);
    // Scrapes on the metrics listener are not API requests.
    expect(requests(after, 'GET', '/metrics', 200)).toBe(0);

    expect(sampleValue(after, 'signal_db_pool_max', { pool: 'primary', backend: 'pglite' })).toBe(1);
    expect(sampleValue(after, 'signal_db_pool_connections', { pool: 'primary', state: 'total' })).toBe(1);

    const other = await fetch(new URL('/health', metricsUrl));
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('the text-format reader used above', () => {
  it('refuses what Prometheus would refuse', () => {
    const good = '# HELP a_total A.\n# TYPE a_total counter\na_total{x="1"} 2\n';
    expect(sampleValue(parsePrometheusText(good), 'a_total', { x: '1' })).toBe(2);
    for (const bad of [
      good.trimEnd(),
      'b 1\n',
      '# TYPE a counter\na{x=1} 2\n',
      '# TYPE a counter\na{x="1",x="2"} 2\n',
      '# TYPE a counter\na 2 3 4\n',
      '# TYPE a counter\na two\n',
      '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n',
      '# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n',
    ]) {
      expect(() => parsePrometheusText(bad), bad).toThrow();
    }
  });
});
