/**
 * Rows of issue 29, on a second API process started with the answer cache on (ANSWER_CACHE_MB at
 * its default, METRICS=true for its hit counts), beside the main API whose rows above keep
 * measuring answers built from the database (ANSWER_CACHE_MB=0):
 *
 * - `mix`: the capacity model's mix (docs/capacity.md) on the whole catalogue, service and
 *   baseline on the same request stream (a seeded generator, the same for both);
 * - `kept-*`: detail, stats and list page 1 whose data did not change since the last read,
 *   against the baseline (req/s), and against a 304 of the same server (CPU);
 * - `kept-churn`: the same reads while 100 follows a second land on the providers being read.
 */
import type autocannon from 'autocannon';
import type { LoadTarget, Sample } from './load.js';
import type { Figures, Row, Verdict } from './report.js';
import type { Bench, Scenario } from './scenarios.js';
import type { ServerProcess } from './servers.js';
import { verifyBodies } from './sign-in.js';

export const CACHED_KEYS = [
  'mix',
  'kept-list',
  'kept-detail',
  'kept-stats',
  'kept-list-304',
  'kept-detail-304',
  'kept-stats-304',
  'kept-churn',
] as const;

/** Providers the kept rows read (each read once before the row runs). */
const KEPT_PROVIDERS = 1_000;

/** A small seeded generator (mulberry32): both sides of a row get the same request stream. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The answer cache's counters of a server with METRICS=true. */
async function cacheCounts(server: ServerProcess): Promise<{ hits: number; misses: number } | null> {
  const text = await (await fetch(`${server.url}/metrics`)).text().catch(() => '');
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  const hits = value('signal_answer_cache_hits_total');
  const misses = value('signal_answer_cache_misses_total');
  return Number.isFinite(hits) && Number.isFinite(misses) ? { hits, misses } : null;
}

/** Hit counts of a target's runs, summed (warm-up included): the row's hit rate. */
export interface HitTally {
  hits: number;
  misses: number;
}

/** Wraps a target of the cached server so that its runs' cache hits and misses are tallied. */
function tallied(target: LoadTarget, server: ServerProcess, tally: HitTally): LoadTarget {
  let before: { hits: number; misses: number } | null = null;
  return {
    ...target,
    async requests(seconds, stop) {
      const requests = await target.requests(seconds, stop);
      before = await cacheCounts(server);
      return requests;
    },
    async observe(sample: Sample) {
      await target.observe?.(sample);
      const after = await cacheCounts(server);
      if (before && after) {
        tally.hits += after.hits - before.hits;
        tally.misses += after.misses - before.misses;
      }
    },
  };
}

export const hitRate = (tally: HitTally) =>
  tally.hits + tally.misses > 0 ? tally.hits / (tally.hits + tally.misses) : null;

/** Reads every path once (and returns its ETag), so that the row starts from kept answers. */
async function readAll(server: ServerProcess, paths: string[]): Promise<Map<string, string>> {
  const etags = new Map<string, string>();
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const path = paths[next++] as string;
      const reply = await fetch(`${server.url}${path}`);
      await reply.arrayBuffer();
      etags.set(path, reply.headers.get('etag') ?? '');
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return etags;
}

/** GETs cycling through `paths`, each read once first; `revalidate`: with its current ETag (304). */
function keptReads(server: ServerProcess, paths: string[], revalidate = false): LoadTarget {
  return {
    url: server.url,
    cpuMs: server.cpuMs,
    ...(revalidate ? { expectStatus: 304 as const } : {}),
    async requests() {
      const etags = await readAll(server, paths);
      let next = 0;
      return [
        {
          method: 'GET',
          setupRequest: (request) => {
            const path = paths[next++ % paths.length] as string;
            const headers = revalidate ? { 'if-none-match': etags.get(path) ?? '' } : {};
            return { ...request, path, headers };
          },
        },
      ];
    },
  };
}

/**
 * The mix of docs/capacity.md, per request: 35 % list, 25 % detail, 10 % stats, 12 % own reads
 * (`/me`), 8 % follows (each connection's user follows a random provider, then unfollows it),
 * 5 % nonces, 5 % sign-ins (pre-signed bodies, one nonce each). Of the catalogue reads 70 %
 * carry no token (public pages, crawlers, integrations) and 30 % the connection's token.
 * List pages: page 1–3 of the follower, newest and name sorts, page 1 most; providers read
 * with a skew (a few popular ones read most: the r³ of a uniform r over the 5,000 ids).
 */
export type MixBench = Pick<Bench, 'ids' | 'users' | 'nonces' | 'evm' | 'connections'>;

export function mixTarget(server: ServerProcess, b: MixBench): LoadTarget {
  const lists = [
    ...Array(9).fill('/providers?page=1&limit=20'),
    ...Array(3).fill('/providers?page=2&limit=20'),
    '/providers?page=3&limit=20',
    ...Array(3).fill('/providers?page=1&limit=20&sortBy=createdAt&order=desc'),
    '/providers?page=2&limit=20&sortBy=createdAt&order=desc',
    ...Array(2).fill('/providers?page=1&limit=20&sortBy=name&order=asc'),
    '/providers?page=2&limit=20&sortBy=name&order=asc',
  ] as string[];
  // Sign-ins of the previous run, for sizing this one's pool of nonces.
  let expectedRps = 3_000;
  return {
    url: server.url,
    cpuMs: server.cpuMs,
    requests(seconds) {
      const next = random(29);
      const bodies = verifyBodies(b.nonces, b.evm, Math.ceil(expectedRps * 0.05 * seconds * 2) + b.connections * 4);
      let body = 0;
      let connections = 0;
      type Connection = { slot?: number; followed?: number };
      const provider = () => b.ids[Math.floor(next() ** 3 * b.ids.length)] as number;
      const request: autocannon.Request = {
        method: 'GET',
        setupRequest: (base, context): autocannon.Request => {
          const connection = context as Connection;
          connection.slot ??= connections++ % b.users.length;
          const auth = { authorization: `Bearer ${b.users[connection.slot]?.token}` };
          const catalogue = (path: string): autocannon.Request => ({
            ...base,
            method: 'GET',
            path,
            headers: next() < 0.3 ? auth : {},
          });
          const roll = next() * 100;
          if (roll < 35) return catalogue(lists[Math.floor(next() * lists.length)] as string);
          if (roll < 60) return catalogue(`/providers/${provider()}`);
          if (roll < 70) return catalogue(`/providers/${provider()}/stats`);
          if (roll < 82) return { ...base, method: 'GET', path: '/me', headers: auth };
          if (roll < 90) {
            const followed = connection.followed;
            if (followed !== undefined) {
              connection.followed = undefined;
              return { ...base, method: 'DELETE', path: `/providers/${followed}/follow`, headers: auth };
            }
            const id = b.ids[Math.floor(next() * b.ids.length)] as number;
            connection.followed = id;
            return { ...base, method: 'POST', path: `/providers/${id}/follow`, headers: auth };
          }
          if (roll < 95) {
            const wallet = `0x${Math.floor(next() * 2 ** 52)
              .toString(16)
              .padStart(40, '0')}`;
            return { ...base, method: 'GET', path: `/auth/nonce?wallet=${wallet}`, headers: {} };
          }
          // Each pre-signed body once; should they run out, the last is refused and counted as failed.
          return {
            ...base,
            method: 'POST',
            path: '/auth/verify',
            headers: { 'content-type': 'application/json' },
            body: bodies[Math.min(body++, bodies.length - 1)],
          };
        },
      };
      return [request];
    },
    observe(sample) {
      expectedRps = Math.max(500, sample.rps);
    },
  };
}

/**
 * 100 follows a second, each a follow or an unfollow of a random provider of `ids` by one of
 * the bench users, sent to `writer` (the main API: its CPU is no side's) while `run` runs.
 */
async function withFollows<T>(writer: ServerProcess, b: Bench, ids: number[], run: () => Promise<T>): Promise<T> {
  const next = random(7);
  const followed = new Map<number, number>();
  let stopped = false;
  let sent = 0;
  const started = performance.now();
  const loop = (async () => {
    while (!stopped) {
      const due = Math.floor(((performance.now() - started) / 1000) * 100);
      if (sent >= due) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        continue;
      }
      sent += 1;
      const slot = sent % b.users.length;
      const previous = followed.get(slot);
      const id = previous ?? (ids[Math.floor(next() * ids.length)] as number);
      if (previous === undefined) followed.set(slot, id);
      else followed.delete(slot);
      void fetch(`${writer.url}/providers/${id}/follow`, {
        method: previous === undefined ? 'POST' : 'DELETE',
        headers: { authorization: `Bearer ${b.users[slot]?.token}` },
      })
        .then((reply) => reply.arrayBuffer())
        .catch(() => {});
    }
  })();
  try {
    return await run();
  } finally {
    stopped = true;
    await loop;
  }
}

/** The target's runs happen while 100 follows a second land (see withFollows). */
function duringFollows(target: LoadTarget, writer: ServerProcess, b: Bench, ids: number[]): LoadTarget {
  return { ...target, around: (run) => withFollows(writer, b, ids, run) };
}

export interface CachedRows {
  scenarios: Scenario[];
  /** Hit tallies by row key (service side). */
  tallies: Map<string, HitTally>;
}

export function cachedScenarios(b: Bench, cached: ServerProcess): CachedRows {
  const tallies = new Map<string, HitTally>();
  const tally = (key: string, target: LoadTarget) => {
    const counts = { hits: 0, misses: 0 };
    tallies.set(key, counts);
    return tallied(target, cached, counts);
  };
  const ids = b.ids.slice(0, KEPT_PROVIDERS);
  const paths = {
    list: ['/providers?page=1&limit=20'],
    detail: ids.map((id) => `/providers/${id}`),
    stats: ids.map((id) => `/providers/${id}/stats`),
  };
  const kept: Scenario[] = (['list', 'detail', 'stats'] as const).flatMap((kind) => [
    {
      key: `kept-${kind}` as const,
      name: `${kind === 'list' ? 'list page 1' : kind}, unchanged since its last read (answer cache)`,
      service: tally(`kept-${kind}`, keptReads(cached, paths[kind])),
      baseline: keptReads(b.baseline, paths[kind]),
      note: `service: ANSWER_CACHE_MB=64 (default); ${paths[kind].length.toLocaleString('en-US')} path(s), each read once before the run`,
    },
    {
      key: `kept-${kind}-304` as const,
      name: `${kind === 'list' ? 'list page 1' : kind}: kept answer vs 304 of the same server`,
      service: keptReads(cached, paths[kind]),
      baseline: keptReads(cached, paths[kind], true),
      note: 'baseline column: the same server answering If-None-Match with 304',
    },
  ]);
  const churnPaths = [...paths.detail, ...paths.stats, ...Array(20).fill(paths.list[0])] as string[];
  const churn: Scenario = {
    key: 'kept-churn',
    name: 'detail, stats and list page 1 while 100 follows/s land on the providers read',
    service: duringFollows(tally('kept-churn', keptReads(cached, churnPaths)), b.api, b, ids),
    baseline: duringFollows(keptReads(b.baseline, churnPaths), b.api, b, ids),
    note: `the follows go through the main API (no side's CPU) to random providers among the ${ids.length.toLocaleString('en-US')} read`,
  };
  const mix: Scenario = {
    key: 'mix',
    name: `the capacity model's mix (${b.size} catalogue)`,
    service: tally('mix', mixTarget(cached, b)),
    baseline: mixTarget(b.baseline, b),
    note: '35 % list, 25 % detail, 10 % stats, 12 % /me, 8 % follow or unfollow, 5 % nonce, 5 % verify; 30 % of catalogue reads with a token',
    watchRss: true,
  };
  return { scenarios: [mix, ...kept, churn], tallies };
}

/** The targets of issue 29's rows. */
export function judgeCached(rows: Map<string, Row>, mixRssMb: number | null): Verdict[] {
  const verdicts: Verdict[] = [];
  const mix = rows.get('mix');
  if (mix?.baseline && mix.ratio != null) {
    const total = (f: Figures) => (f.cpuUs != null && f.dbCpuUs != null ? f.cpuUs + f.dbCpuUs : null);
    const [service, baseline] = [total(mix.service), total(mix.baseline)];
    if (service !== null && baseline !== null) {
      verdicts.push({
        target: "mix: API + PostgreSQL CPU per request ≤ 1.0× the baseline's",
        measured: `${Math.round(service)} vs ${Math.round(baseline)} µs (${(service / baseline).toFixed(2)}×)`,
        met: service <= baseline,
      });
    }
    verdicts.push({
      target: "mix: req/s ≥ 1.0× the baseline's",
      measured: `${Math.round(mix.service.rps)} vs ${Math.round(mix.baseline.rps)} req/s (${mix.ratio.toFixed(2)}×)`,
      met: mix.ratio >= 1,
    });
  }
  for (const kind of ['list', 'detail', 'stats'] as const) {
    const what = kind === 'list' ? 'list page 1' : kind;
    const kept = rows.get(`kept-${kind}`);
    if (kept?.ratio != null) {
      verdicts.push({
        target: `${what} unchanged since its last read: ≥ 2× the baseline's req/s`,
        measured: `${Math.round(kept.service.rps)} vs ${Math.round(kept.baseline?.rps ?? 0)} req/s (${kept.ratio.toFixed(2)}×)`,
        met: kept.ratio >= 2,
      });
    }
    const vs304 = rows.get(`kept-${kind}-304`);
    if (vs304?.service.cpuUs != null && vs304.baseline?.cpuUs != null) {
      const factor = vs304.service.cpuUs / vs304.baseline.cpuUs;
      verdicts.push({
        target: `${what} unchanged since its last read: CPU per request ≤ 1.2× the 304 path's`,
        measured: `${Math.round(vs304.service.cpuUs)} vs ${Math.round(vs304.baseline.cpuUs)} µs (${factor.toFixed(2)}×)`,
        met: factor <= 1.2,
      });
    }
  }
  if (mixRssMb !== null) {
    verdicts.push({
      target: 'API resident memory under the mix, answer cache on: < 300 MB',
      measured: `${mixRssMb.toFixed(0)} MB`,
      met: mixRssMb < 300,
    });
  }
  return verdicts;
}
