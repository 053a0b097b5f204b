/**
 * The rows of the benchmark: for each, the requests sent to the service and to the baseline.
 * Both sides get the same request stream (same paths, ids, tokens), so they do the same work.
 */
import { randomBytes } from 'node:crypto';
import type { NonceCodec } from '@signal/core/nonce';
import type { DatabaseHandle } from '@signal/db';
import type autocannon from 'autocannon';
import type { LoadTarget } from './load.js';
import type { ServerProcess } from './servers.js';
import { type SignedIn, verifyBodies, verifyRequests } from './sign-in.js';
import type { BenchWallet } from './wallets.js';

export interface Bench {
  api: ServerProcess;
  baseline: ServerProcess;
  /** The service with METRICS=true on the same catalogue (the `metrics` row). */
  metricsApi?: ServerProcess | undefined;
  /** Its twin without metrics, started with it and as fresh (the `metrics` row's baseline column). */
  metricsOffApi?: ServerProcess | undefined;
  /** The service on a small catalogue, for page 1 at both sizes (full run only). */
  small?: { api: ServerProcess; size: string } | undefined;
  database: DatabaseHandle;
  /** Mints nonces as both servers do (the same signing key, so the same secret). */
  nonces: NonceCodec;
  /** Label of the catalogue size, e.g. "1M". */
  size: string;
  deepPage: number;
  /** Random provider ids for detail, stats and follows. */
  ids: number[];
  /** Signed-in bench users, at least one per connection. */
  users: SignedIn[];
  evm: BenchWallet[];
  solana: BenchWallet[];
  connections: number;
  /** The cursor of the page after the first `cursorDepth` providers (the `cursor` row). */
  cursorAtDepth?: string | undefined;
  cursorDepth?: number;
  /** The bare node:http floor answering fixed bodies (the `http-*` rows). */
  bareHttp?: ServerProcess | undefined;
}

/** Row keys, in table order (`--only` takes these). */
export const SCENARIO_KEYS = [
  'list',
  'scale',
  'deep',
  'offset',
  'name',
  'detail',
  'stats',
  'trpc',
  'me',
  'follow',
  'nonce',
  'verify-evm',
  'verify-solana',
  'verify-siwe',
  'metrics',
  'cursor',
  'revalidate',
  'revalidate-stats',
  'http-list',
  'http-detail',
  'pg-list',
  'pg-detail',
] as const;

export interface Scenario {
  /** A key of SCENARIO_KEYS, or of another file's rows (cached-rows.ts). */
  key: string;
  name: string;
  service: LoadTarget;
  baseline: LoadTarget | null;
  note?: string;
  /** Sample the API's resident memory during the service's runs. */
  watchRss?: boolean;
  /** A warm-up this many times the plan's, e.g. for servers that served nothing before the row. */
  warmupFactor?: number;
}

export const PAGE_1 = '/providers?page=1&limit=20';
export const BY_NAME = '/providers?page=1&limit=20&sortBy=name&order=asc';
export const TRPC_PAGE_1 = `/trpc/providers.list?input=${encodeURIComponent(JSON.stringify({ page: 1, limit: 20 }))}`;
export const deepPath = (page: number) => `/providers?page=${page}&limit=20`;
export const cursorPath = (cursor: string) => `/providers?limit=20&cursor=${cursor}`;

/**
 * Page 1 revalidated: each run first asks for the page's current ETag (earlier rows' follows
 * change it), then sends it in If-None-Match; a 304 counts as served.
 */
function revalidations(server: ServerProcess, path: string): LoadTarget {
  return {
    url: server.url,
    cpuMs: server.cpuMs,
    expectStatus: 304,
    async requests() {
      const etag = (await fetch(`${server.url}${path}`)).headers.get('etag') ?? '';
      return [{ method: 'GET', path, headers: { 'if-none-match': etag } }];
    },
  };
}

/** Requests of `method`, the i-th of each run (from 0 on every run) completed by `request(i)`. */
export function cycling(
  server: ServerProcess,
  method: autocannon.Request['method'],
  request: (i: number) => Partial<autocannon.Request>,
): LoadTarget {
  return {
    url: server.url,
    cpuMs: server.cpuMs,
    requests: () => {
      let next = 0;
      return [{ method, setupRequest: (base) => ({ ...base, ...request(next++) }) }];
    },
  };
}

/** GET requests cycling through `paths`, optionally with one header set per request. */
export const get = (server: ServerProcess, paths: string[], headers: Record<string, string>[] = [{}]) =>
  cycling(server, 'GET', (i) => ({ path: paths[i % paths.length], headers: headers[i % headers.length] }));

/** Nonces for fresh random wallets (any wallet would do: issuing stores nothing). */
function nonces(server: ServerProcess): LoadTarget {
  return {
    url: server.url,
    cpuMs: server.cpuMs,
    requests: () => [
      {
        method: 'GET',
        setupRequest: (request) => ({ ...request, path: `/auth/nonce?wallet=0x${randomBytes(20).toString('hex')}` }),
      },
    ],
  };
}

const bearer = (users: SignedIn[]) => users.map((user) => ({ authorization: `Bearer ${user.token}` }));

/**
 * A follow then an unfollow of the same provider by the same user, as one pair per loop of a
 * connection. Each pair holds a (user, provider) slot of its own until the unfollow answers,
 * so concurrent pairs never queue on one another's rows.
 */
function followPairs(server: ServerProcess, b: Bench): LoadTarget {
  return {
    url: server.url,
    cpuMs: server.cpuMs,
    requests: () => {
      const free = b.users.map((_, slot) => slot);
      type Context = { slot?: number };
      const slotOf = (context: object) => (context as Context).slot as number;
      const headers = (slot: number) => ({ authorization: `Bearer ${b.users[slot]?.token}` });
      const path = (slot: number) => `/providers/${b.ids[slot]}/follow`;
      const pair: autocannon.Request[] = [
        {
          method: 'POST',
          setupRequest: (request, context) => {
            const slot = free.pop() as number;
            (context as Context).slot = slot;
            return { ...request, path: path(slot), headers: headers(slot) };
          },
        },
        {
          method: 'DELETE',
          setupRequest: (request, context) => ({
            ...request,
            path: path(slotOf(context)),
            headers: headers(slotOf(context)),
          }),
          onResponse: (_status, _body, context) => {
            free.push(slotOf(context));
          },
        },
      ];
      return pair;
    },
  };
}

function signIns(
  server: ServerProcess,
  b: Bench,
  wallets: BenchWallet[],
  format: 'plain' | 'siwe' = 'plain',
): LoadTarget {
  // Every run sizes the next one's nonces from the rate it saw, with room to spare: autocannon
  // only notices a stop at its next one-second tick, and a run that ran dry would spend that
  // second on used nonces.
  let expectedRps = 1_500;
  return {
    url: server.url,
    cpuMs: server.cpuMs,
    async requests(seconds, stop) {
      const count = Math.ceil(Math.max(expectedRps, 1_000) * seconds * 2) + b.connections * 4;
      return verifyRequests(verifyBodies(b.nonces, wallets, count, format), stop);
    },
    observe(sample) {
      expectedRps = Math.max(200, sample.rps);
    },
  };
}

export function scenarios(b: Bench): Scenario[] {
  const { api, baseline, size } = b;
  const deep = deepPath(b.deepPage);
  const details = b.ids.map((id) => `/providers/${id}`);
  const stats = b.ids.map((id) => `/providers/${id}/stats`);
  const me = ['/me'];
  const scale: Scenario[] = b.small
    ? [
        {
          key: 'scale',
          name: `list page 1: ${size} vs ${b.small.size} catalogue`,
          service: get(api, [PAGE_1]),
          baseline: get(b.small.api, [PAGE_1]),
          note: `baseline column: the service on the ${b.small.size} catalogue, measured in the same rounds`,
        },
      ]
    : [];
  return [
    {
      key: 'list',
      name: `list page 1 (${size})`,
      service: get(api, [PAGE_1]),
      baseline: get(baseline, [PAGE_1]),
      watchRss: true,
    },
    ...scale,
    {
      key: 'deep',
      name: `list page ${b.deepPage.toLocaleString('en-US')} (${size})`,
      service: get(api, [deep]),
      baseline: get(baseline, [deep]),
      note: 'both sides use the deferred join',
    },
    {
      key: 'offset',
      name: `list page ${b.deepPage.toLocaleString('en-US')} vs plain OFFSET`,
      service: get(api, [deep]),
      baseline: get(baseline, [`/offset${deep}`]),
      note: 'baseline: the same page with a plain LIMIT/OFFSET over the table',
    },
    { key: 'name', name: 'list sorted by name', service: get(api, [BY_NAME]), baseline: get(baseline, [BY_NAME]) },
    { key: 'detail', name: 'detail', service: get(api, details), baseline: get(baseline, details) },
    { key: 'stats', name: 'stats', service: get(api, stats), baseline: get(baseline, stats) },
    {
      key: 'trpc',
      name: 'list page 1: tRPC vs REST',
      service: get(api, [TRPC_PAGE_1]),
      baseline: get(api, [PAGE_1]),
      note: "baseline column: the service's own REST route for the same procedure",
    },
    {
      key: 'me',
      name: 'GET /me',
      service: get(api, me, bearer(b.users)),
      baseline: get(baseline, me, bearer(b.users)),
      note: "baseline reads the user id from the token without verifying it, and checks the token's session like the service",
    },
    {
      key: 'follow',
      name: 'follow + unfollow',
      service: followPairs(api, b),
      baseline: followPairs(baseline, b),
      note: 'requests/s, each pair is two requests; baseline does not verify the token, checks its session like the service',
    },
    {
      key: 'nonce',
      name: 'GET /auth/nonce',
      service: nonces(api),
      baseline: nonces(baseline),
      note: 'a new random wallet per request; no database round trip on either side',
    },
    {
      key: 'verify-evm',
      name: 'POST /auth/verify EVM',
      service: signIns(api, b, b.evm),
      baseline: signIns(baseline, b, b.evm),
    },
    {
      key: 'verify-solana',
      name: 'POST /auth/verify Solana',
      service: signIns(api, b, b.solana),
      baseline: signIns(baseline, b, b.solana),
    },
    {
      key: 'verify-siwe',
      name: 'POST /auth/verify EVM, SIWE',
      service: signIns(api, b, b.evm, 'siwe'),
      baseline: signIns(api, b, b.evm),
      note: 'baseline column: the same service verifying the plain message, measured in the same rounds',
    },
    ...(b.metricsApi
      ? [
          {
            key: 'metrics' as const,
            name: 'detail, METRICS=true',
            service: get(b.metricsApi, details),
            baseline: get(b.metricsOffApi ?? api, details),
            note: 'baseline column: the same service with metrics off, started with it (neither served anything before), measured in the same rounds',
            // Both fresh: their heaps grow under the first seconds of load; that is warm-up.
            warmupFactor: 3,
          },
        ]
      : []),
    ...(b.cursorAtDepth
      ? [
          {
            key: 'cursor' as const,
            name: `list by cursor at depth ${(b.cursorDepth ?? 0).toLocaleString('en-US')} (${size})`,
            service: get(api, [cursorPath(b.cursorAtDepth)]),
            baseline: get(api, [PAGE_1]),
            note: "baseline column: the service's page 1 (by page number), measured in the same rounds",
          },
        ]
      : []),
    {
      key: 'revalidate',
      name: 'list page 1: 304 revalidation vs 200',
      service: revalidations(api, PAGE_1),
      baseline: get(api, [PAGE_1]),
      note: "baseline column: the service's 200 answer to the same request without If-None-Match",
    },
    {
      key: 'revalidate-stats',
      name: 'stats: 304 by hashing the body vs 200',
      service: revalidations(api, stats[0] as string),
      baseline: get(api, [stats[0] as string]),
      note: 'the other way to a 304: build the answer, hash it, compare (how stats revalidate)',
    },
    ...(b.bareHttp
      ? [
          {
            key: 'http-list' as const,
            name: 'list page 1 vs bare node:http',
            service: get(api, [PAGE_1]),
            baseline: get(b.bareHttp, [PAGE_1]),
            note: 'baseline: node:http answering a fixed body of the same bytes (the physical floor of HTTP here)',
          },
          {
            key: 'http-detail' as const,
            name: 'detail vs bare node:http',
            service: get(api, details),
            baseline: get(b.bareHttp, details),
            note: 'baseline: node:http answering a fixed detail body of the same bytes',
          },
        ]
      : []),
  ];
}
