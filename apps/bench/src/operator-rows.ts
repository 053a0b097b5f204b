/**
 * Rows of issue 25 (the operator's side) and issue 26 (a catalogue to search), on the main API
 * (started with ADMIN_KEY, see main.ts) and the catalogue under load:
 *
 * - `followers-deep`: a followers page of 1,000 at depth 90 % of a provider with 100,000
 *   followers, against that provider's first page (same server, same rounds);
 * - `followers-key`: a followers page of 100 read with a scoped service key, against the same
 *   read with ADMIN_KEY (no key lookup): what the credential check costs a scoped read;
 * - `publish`: POST /providers/{id}/performance with 30 NAV points, a stats:write key;
 * - `sort-*`: page 1 of each performance sort, against the followerCount sort's page 1;
 * - `roi-cursor`: a cursor at depth 100,000 on roi30d with a filter, against that query's page 1;
 * - `search`: `q` matching about 50 names, against a plain sequential ILIKE (the baseline server);
 * - `broad`: a filter matching more than half the catalogue with its exact total, against the
 *   unfiltered page 1 (whose total is a counter), plus what the count alone costs in SQL.
 *
 * The provider with 100,000 followers is archived: followers work for archived providers
 * (CONTRACT.md), and so it changes no public read, no count and no other row.
 */
import pg from 'pg';
import type { Figures, Row, Verdict } from './report.js';
import { type Bench, cycling, get, type Scenario } from './scenarios.js';
import type { ServerProcess } from './servers.js';

export const OPERATOR_KEYS = ['followers-deep', 'followers-key', 'publish'] as const;
export const PERFORMANCE_SORTS = ['roi7d', 'roi30d', 'roi90d', 'roiAll', 'maxDrawdown', 'winRate', 'tradingDays'];
export const CATALOGUE_KEYS = [
  ...PERFORMANCE_SORTS.map((sort) => `sort-${sort}`),
  'roi-cursor',
  'search',
  'broad',
] as const;
export const OPERATOR_ROW_KEYS: readonly string[] = [...OPERATOR_KEYS, ...CATALOGUE_KEYS];

/** ADMIN_KEY of the bench's API (main.ts): creates the scoped keys the rows use. */
export const BENCH_ADMIN_KEY = `bench-admin-${'a'.repeat(32)}`;

const FAN_OUT_NAME = 'Bench fan-out provider (archived)';
const FAN_OUT_FOLLOWERS = 100_000;
/** Depth of the cursor row on roi30d; a smaller catalogue gets 80 % of its matches. */
const ROI_CURSOR_DEPTH = 100_000;
const ROI_FILTER = 'maxDrawdownPct=50';
/** A search of the distinct demo names (seed.ts, distinctNames): about 55 of 1M match. */
const SEARCH_Q = 'labs 1234';
/** Broad: every provider with a positive track record length, more than half the catalogue. */
const BROAD_FILTER = 'minTradingDays=2';
export const FOLLOWER_PAGE_1 = '/providers?page=1&limit=20&sortBy=followerCount&order=desc';

/**
 * The archived provider with 100,000 followers (users made for it), made once per catalogue:
 * its follows are written with the follows trigger off, as the demo seed does, with the count
 * set once (no 100,000 events, no 100,000 row updates).
 */
export async function ensureFanOutProvider(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const found = await client.query('select id::int from providers where name = $1', [FAN_OUT_NAME]);
    if (found.rows[0]) return found.rows[0].id as number;
    await client.query('begin');
    await client.query('set local statement_timeout = 0');
    await client.query('alter table follows disable trigger follows_keep_follower_count');
    const { rows } = await client.query(
      `insert into providers (name, follower_count, archived_at) values ($1, $2, now()) returning id::int`,
      [FAN_OUT_NAME, FAN_OUT_FOLLOWERS],
    );
    const id = rows[0].id as number;
    // Wallets no demo user has: 0xbe<38 hex digits of the index>.
    await client.query(
      `insert into users (wallet, chain, created_at, last_login_at)
       select '0xbe' || lpad(to_hex(g), 38, '0'), 'evm', now(), now() from generate_series(1, $1) g
       on conflict do nothing`,
      [FAN_OUT_FOLLOWERS],
    );
    await client.query(
      `insert into follows (user_id, provider_id, created_at)
       select u.id, $1, now() - random() * interval '365 days' from users u
       where u.wallet like '0xbe%' and length(u.wallet) = 42 order by u.id limit $2`,
      [id, FAN_OUT_FOLLOWERS],
    );
    await client.query('alter table follows enable trigger follows_keep_follower_count');
    await client.query('commit');
    await client.query('vacuum analyze follows, users');
    return id;
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}

/** A scoped key made with ADMIN_KEY over HTTP, as an operator makes one. */
export async function createServiceKey(server: ServerProcess, scopes: string[]): Promise<string> {
  const res = await fetch(`${server.url}/admin/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${BENCH_ADMIN_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `bench ${scopes.join(' ')}`, scopes }),
  });
  if (res.status !== 201) throw new Error(`POST /admin/keys answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { key: string }).key;
}

async function json<T>(server: ServerProcess, path: string, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(`${server.url}${path}`, { headers });
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

/** The cursor after `depth` followers: a walk by pages of 1,000, as a fan-out consumer walks. */
async function followersCursorAt(server: ServerProcess, id: number, depth: number, headers: Record<string, string>) {
  let cursor: string | null = null;
  for (let seen = 0; seen < depth; seen += 1_000) {
    const path: string = `/providers/${id}/followers?limit=1000${cursor ? `&cursor=${cursor}` : ''}`;
    cursor = (await json<{ nextCursor: string | null }>(server, path, headers)).nextCursor;
    if (!cursor) throw new Error(`followers of ${id} end before ${depth}`);
  }
  return cursor as string;
}

/** 30 daily points ending today, a random walk from 100; `variants` of them, cycled. */
function publishBodies(variants: number, now = new Date()): string[] {
  return Array.from({ length: variants }, () => {
    let nav = 100;
    const points = Array.from({ length: 30 }, (_, i) => {
      nav *= 1 + (Math.random() - 0.48) * 0.04;
      const date = new Date(now.getTime() - (29 - i) * 86_400_000).toISOString().slice(0, 10);
      return { date, nav: Number(nav.toFixed(4)) };
    });
    return JSON.stringify({ points });
  });
}

/** Each request publishes 30 points for the next provider of `ids` (spread: no lock waits). */
function publishes(server: ServerProcess, ids: number[], key: string) {
  const bodies = publishBodies(16);
  return cycling(server, 'POST', (i) => ({
    path: `/providers/${ids[i % ids.length]}/performance`,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: bodies[i % bodies.length],
  }));
}

/** Milliseconds of `statement` alone on the catalogue: the median of 5 runs after one warm-up. */
async function sqlMs(url: string, statement: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const times: number[] = [];
    for (let i = 0; i < 6; i++) {
      const started = performance.now();
      await client.query(statement);
      if (i > 0) times.push(performance.now() - started);
    }
    return times.sort((a, b) => a - b)[2] as number;
  } finally {
    await client.end();
  }
}

/**
 * Median milliseconds of `path` for one client alone (requests one after another, after a
 * warm-up): the latency one searcher sees, which the load runs cannot show (at 50 connections
 * the p50 is the queue: connections / throughput).
 */
async function soloP50(server: ServerProcess, path: string, requests = 41): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < requests + 5; i++) {
    const started = performance.now();
    const res = await fetch(`${server.url}${path}`);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
    if (i >= 5) times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)] as number;
}

/** Figures of the setup that the verdicts and notes need. */
export interface OperatorContext {
  broadTotal?: number;
  broadCountMs?: number;
  broadComplementMs?: number;
  searchTotal?: number;
  /** p50 of the search for one client alone (ms). */
  searchSoloP50?: number;
}

export async function operatorScenarios(
  b: Bench,
  catalogueUrl: string,
  wanted: (key: string) => boolean,
  context: OperatorContext,
): Promise<Scenario[]> {
  const { api, baseline } = b;
  const rows: Scenario[] = [];
  const admin = { authorization: `Bearer ${BENCH_ADMIN_KEY}` };
  if (wanted('followers-deep') || wanted('followers-key')) {
    const id = await ensureFanOutProvider(catalogueUrl);
    const key = { authorization: `Bearer ${await createServiceKey(api, ['followers:read'])}` };
    if (wanted('followers-deep')) {
      const depth = FAN_OUT_FOLLOWERS * 0.9;
      const cursor = await followersCursorAt(api, id, depth, key);
      rows.push({
        key: 'followers-deep',
        name: `followers: page of 1,000 at depth ${depth.toLocaleString('en-US')} of 100,000`,
        service: get(api, [`/providers/${id}/followers?limit=1000&cursor=${cursor}`], [key]),
        baseline: get(api, [`/providers/${id}/followers?limit=1000`], [key]),
        note: "baseline column: the same provider's first page of 1,000, measured in the same rounds",
      });
    }
    if (wanted('followers-key')) {
      const path = `/providers/${id}/followers?limit=100`;
      rows.push({
        key: 'followers-key',
        name: 'followers page of 100, scoped service key vs ADMIN_KEY',
        service: get(api, [path], [key]),
        baseline: get(api, [path], [admin]),
        note: 'baseline column: the same read with ADMIN_KEY (compared in memory, no key lookup)',
      });
    }
  }
  if (wanted('publish')) {
    const key = await createServiceKey(api, ['stats:write']);
    rows.push({
      key: 'publish',
      name: 'publish 30 NAV points (POST /providers/{id}/performance)',
      service: publishes(api, b.ids, key),
      baseline: null,
      note: `a stats:write key; ${b.ids.length.toLocaleString('en-US')} providers in turn, each request 30 daily points ending today`,
    });
  }
  for (const sort of PERFORMANCE_SORTS) {
    if (!wanted(`sort-${sort}`)) continue;
    rows.push({
      key: `sort-${sort}`,
      name: `list page 1 sorted by ${sort} (${b.size})`,
      service: get(api, [`/providers?page=1&limit=20&sortBy=${sort}&order=desc`]),
      baseline: get(api, [FOLLOWER_PAGE_1]),
      note: "baseline column: the service's followerCount page 1, measured in the same rounds",
    });
  }
  if (wanted('roi-cursor')) {
    const query = `sortBy=roi30d&order=desc&${ROI_FILTER}`;
    const first = await json<{ total: number }>(api, `/providers?page=1&limit=20&${query}`);
    const depth = Math.min(ROI_CURSOR_DEPTH, Math.floor((first.total * 0.8) / 20) * 20);
    // The page ending at `depth` by page number (a deferred join, once), then its nextCursor.
    // The same limit as the measured pages: a cursor carries its query, limit included.
    const before = await json<{ nextCursor: string | null }>(api, `/providers?page=${depth / 20}&limit=20&${query}`);
    if (!before.nextCursor) throw new Error(`roi30d with ${ROI_FILTER}: no cursor at depth ${depth}`);
    rows.push({
      key: 'roi-cursor',
      name: `roi30d with ${ROI_FILTER}: cursor at depth ${depth.toLocaleString('en-US')} (${b.size})`,
      service: get(api, [`/providers?limit=20&cursor=${before.nextCursor}`]),
      baseline: get(api, [`/providers?page=1&limit=20&${query}`]),
      note: `baseline column: the same query's page 1; ${first.total.toLocaleString('en-US')} providers match the filter`,
    });
  }
  if (wanted('search')) {
    const q = encodeURIComponent(SEARCH_Q);
    context.searchTotal = (await json<{ total: number }>(api, `/providers?page=1&limit=20&q=${q}`)).total;
    context.searchSoloP50 = await soloP50(api, `/providers?page=1&limit=20&q=${q}`);
    rows.push({
      key: 'search',
      name: `name search q="${SEARCH_Q}" (${context.searchTotal} of ${b.size})`,
      service: get(api, [`/providers?page=1&limit=20&q=${q}`]),
      baseline: get(baseline, [`/ilike/providers?q=${q}`]),
      note: "baseline: the bare server's plain sequential ILIKE over the names (no index), top 20 and its count",
    });
  }
  if (wanted('broad')) {
    context.broadTotal = (await json<{ total: number }>(api, `/providers?page=1&limit=20&${BROAD_FILTER}`)).total;
    context.broadCountMs = await sqlMs(
      catalogueUrl,
      'select count(*) from providers where archived_at is null and trading_days >= 2',
    );
    // What the service reads instead (provider-list.queries.ts, broadMatches): the counter row
    // minus the providers that fail the filter, a short range of the trading_days index.
    context.broadComplementMs = await sqlMs(
      catalogueUrl,
      'select count(*) from providers where archived_at is null and trading_days < 2',
    );
    rows.push({
      key: 'broad',
      name: `list page 1 with ${BROAD_FILTER} and its exact total (${context.broadTotal.toLocaleString('en-US')} of ${b.size})`,
      service: get(api, [`/providers?page=1&limit=20&${BROAD_FILTER}`]),
      baseline: get(api, [FOLLOWER_PAGE_1]),
      note: `baseline column: the unfiltered page 1 (total from a counter); in SQL a direct count ${context.broadCountMs.toFixed(1)} ms, the complement the service counts ${context.broadComplementMs.toFixed(1)} ms`,
    });
  }
  return rows;
}

const rps = (f: Figures | null | undefined) => Math.round(f?.rps ?? 0);

/** Publishes a second a deployment must take: see BENCH.md ("Operators' rows") for the sum. */
export const PUBLISH_TARGET_PER_SECOND = 100;

export function judgeOperator(rows: Map<string, Row>, context: OperatorContext): Verdict[] {
  const verdicts: Verdict[] = [];
  const ratioRow = (key: string, target: string, floor: number) => {
    const r = rows.get(key);
    if (r?.ratio == null) return;
    verdicts.push({
      target,
      measured: `${rps(r.service)} vs ${rps(r.baseline)} req/s (${r.ratio.toFixed(2)}×)`,
      met: r.ratio >= floor,
    });
  };
  ratioRow('followers-deep', 'followers page of 1,000 at depth 90 %: ≥ 0.9× the first page', 0.9);
  ratioRow('followers-key', 'followers page of 100 with a scoped key: ≥ 0.9× the same read with ADMIN_KEY', 0.9);
  const publish = rows.get('publish');
  if (publish) {
    verdicts.push({
      target: `publish 30 points: ≥ ${PUBLISH_TARGET_PER_SECOND} publications/s`,
      measured: `${rps(publish.service)}/s, p50 ${publish.service.p50} ms`,
      met: publish.service.rps >= PUBLISH_TARGET_PER_SECOND,
    });
  }
  for (const sort of PERFORMANCE_SORTS) ratioRow(`sort-${sort}`, `page 1 by ${sort}: ≥ 0.8× followerCount's`, 0.8);
  ratioRow('roi-cursor', 'roi30d with a filter, cursor at depth: ≥ 0.9× its page 1', 0.9);
  const search = rows.get('search');
  const SEARCH_TARGET = 'q matching ~50 names: ≥ 10× a sequential ILIKE, p50 ≤ 20 ms for one searcher';
  const solo = context.searchSoloP50;
  const soloText = solo === undefined ? 'not measured' : `${solo.toFixed(1)} ms`;
  if (search && search.ratio == null) {
    verdicts.push({
      target: SEARCH_TARGET,
      measured: `one searcher p50 ${soloText}; at 50 connections p50 ${search.service.p50} ms, ${rps(search.service)} req/s; the ILIKE side answered nothing (no ratio)`,
      met: false,
    });
  }
  if (search?.ratio != null) {
    verdicts.push({
      target: SEARCH_TARGET,
      measured: `${search.ratio.toFixed(1)}×; one searcher p50 ${soloText}; at 50 connections p50 ${search.service.p50} ms (${context.searchTotal} matches)`,
      met: search.ratio >= 10 && solo !== undefined && solo <= 20,
    });
  }
  const broad = rows.get('broad');
  if (broad) {
    verdicts.push({
      target: 'broad filter with its exact total: p50 stated (≤ 50 ms)',
      measured: `p50 ${broad.service.p50} ms at ${rps(broad.service)} req/s; a direct count alone ${context.broadCountMs?.toFixed(1)} ms, the complement count the service reads ${context.broadComplementMs?.toFixed(1)} ms`,
      // No answer at all (every request refused, e.g. the pool's wait ran out) is no p50.
      met: broad.service.rps > 0 && broad.service.p50 !== null && broad.service.p50 <= 50,
    });
  }
  return verdicts;
}
