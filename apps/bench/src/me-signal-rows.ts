/**
 * `GET /me/signals` (issue 41, item 4): `me-signals`, page 1, and `me-signals-deep`, a cursor at
 * 80 % of the feed's depth, for a user following ME_FOLLOWS providers on a log of
 * `run.meLogEntries` entries (1M; 20,000 with `--quick`), at the plan's 50 connections. Page 1's
 * baseline column is `GET /me` of the same user; the depth's, page 1. Target: p99 ≤ 50 ms.
 *
 * The database, `signal_bench_feed_<entries>_<digest>`, is seeded once and kept like the log's:
 * FEED_PROVIDERS providers, 60 % of the entries signal opens and the rest updates, each provider
 * drawn by a power law (a few busy providers, a long quiet tail); the user follows 250 of the
 * 1,000 busiest and 250 of the tail. The rows are written by SQL, not the routes (which seeded
 * 19–45 signals/s here): each statement is canonical JSON as the routes take it, with its
 * SHA-256 commitment and its log entry accepted in order, and the API's own sequencer puts the
 * entries into the tree and places the statements (log indexes, events) as for any statement.
 * The signatures are placeholders (no read checks them; `signal-audit` on this database would
 * refuse them).
 */
import * as db from '@signal/db';
import { ADMIN_URL, BENCH_STATEMENT_TIMEOUT, benchDatabase, settle, withClient } from './databases.js';
import { databaseCpu } from './db-cpu.js';
import { compare, type LoadPlan } from './load.js';
import { waitForSize } from './log-read-rows.js';
import { type Row, row, type Verdict } from './report.js';
import { get } from './scenarios.js';
import { startServer } from './servers.js';
import { signIn } from './sign-in.js';
import { ORIGIN, type SignalRun, signalSpec } from './signal-rows.js';
import { type BenchWallet, evmWallet } from './wallets.js';

export const ME_SIGNAL_KEYS = ['me-signals', 'me-signals-deep'] as const;
export const ME_TARGET_P99_MS = 50;
const ME_FOLLOWS = 500;
const FEED_PROVIDERS = 5_000;

/** The `/me/signals` database's name: its log's size and the migrations' digest. */
const meDatabase = (entries: number) => benchDatabase('feed_', entries);

interface MeSeed {
  url: string;
  /** Signals of the followed providers. */
  signals: number;
  follower: BenchWallet;
  /** Log entries in its tree. */
  logSize: number;
}

/** The seed's statements (see the file's comment), in one session; `$1` is the follower's user id in the follows', the opens' count after. */
const SEED_SQL = [
  `insert into providers (name, reveal_delay_seconds)
   select 'Bench Feed ' || g, case when g % 2 = 0 then 3600 else 0 end from generate_series(1, ${FEED_PROVIDERS}) g`,
  `create temp table ranked as select id, row_number() over (order by id) as r from providers`,
  `insert into follows (user_id, provider_id)
   select $1::bigint, id from ranked where r <= 1000 and r % 4 = 1
   union all (select $1::bigint, id from ranked where r > 1000 and r % 16 = 3 order by r limit ${ME_FOLLOWS / 2})`,
  `select setseed(0.41)`,
  // One row per open k, its provider by a power law, 30 s apart, the newest 30 s ago.
  `create temp table opens as
   select k, p.id as provider_id, now() - interval '30 seconds' * ($1::int - k) as t
   from (select k, 1 + floor(${FEED_PROVIDERS} * power(random(), 3))::bigint as r from generate_series(0, $1::int - 1) k) d
   join ranked p on p.r = d.r`,
  // Every statement: the open (log order 2k) and, for two of three signals, an update 10 s later (2k + 1).
  `create temp table feed as
   select o.provider_id, 'f' || o.k as signal_id, x.seq, x.type, x.at,
     to_char(x.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as iso,
     translate(rtrim(encode(sha256(convert_to('salt' || x.seq, 'UTF8')), 'base64'), '='), '+/', '-_') as salt
   from opens o
   cross join lateral (
     select 2 * o.k as seq, 'signal.open' as type, o.t as at
     union all
     select 2 * o.k + 1, 'signal.update', o.t + interval '10 seconds' where o.k % 3 <> 2
   ) x`,
  `alter table feed add column statement text`,
  `update feed set statement = case type
     when 'signal.open' then format('{"entry":%s,"expiresAt":null,"id":"%s","instrument":"%s","issuedAt":"%s","log":"${ORIGIN}","note":"Breakout above the range; stop under the last swing low","provider":%s,"salt":"%s","side":"%s","sizePct":"2.5","stop":"85000","targets":["99000","101000.25"],"type":"signal.open","v":1}',
       case when seq % 8 = 0 then '{"type":"market"}' else format('{"price":"%s.5","type":"limit"}', 90000 + seq % 10000) end,
       signal_id, case when seq % 6 = 0 then 'ETH-USD' else 'BTC-USD' end, iso, provider_id, salt, case when seq % 4 = 0 then 'long' else 'short' end)
     else format('{"id":"u%s","issuedAt":"%s","log":"${ORIGIN}","provider":%s,"salt":"%s","signal":"%s","stop":"86000","type":"signal.update","v":1}',
       seq, iso, provider_id, salt, signal_id) end`,
  `alter table feed add column commitment text, add column acceptance bigint`,
  `update feed set commitment = encode(sha256(convert_to(statement, 'UTF8')), 'hex'),
     acceptance = (select last_value from log_pending_id_seq) + 1 + seq`,
  `insert into log_pending (id, entry, accepted_at) overriding system value
   select acceptance, convert_to(format('{"commitment":"%s","provider":%s,"receivedAt":"%s","signal":"%s","type":"%s","v":1}',
     commitment, provider_id, iso, signal_id, type), 'UTF8'), at
   from feed order by seq`,
  `select setval('log_pending_id_seq', (select max(id) from log_pending))`,
  `insert into signals (provider_id, id, published_at, reveal_at, open_acceptance_id)
   select f.provider_id, f.signal_id, f.at, f.at + make_interval(secs => p.reveal_delay_seconds), f.acceptance
   from feed f join providers p on p.id = f.provider_id where f.type = 'signal.open'`,
  `insert into signal_statements (provider_id, id, signal_id, type, statement, signer, signature, commitment,
     received_at, acceptance_id, min_index)
   select provider_id, case type when 'signal.open' then signal_id else 'u' || seq end, signal_id, type, statement,
     'bench-seed-signer', rpad('placeholder-not-a-signature-', 88, 'x'), commitment, at, acceptance, 0
   from feed order by seq`,
];

/**
 * The `/me/signals` database (see the file's comment), created and seeded unless it is there;
 * its table `bench_seed` keeps the follower's key once the seed is whole.
 */
async function prepareMeDatabase(run: SignalRun): Promise<MeSeed> {
  const { name, url } = meDatabase(run.meLogEntries);
  const held = await withClient(ADMIN_URL, async (client) => {
    if ((await client.query('select 1 from pg_database where datname = $1', [name])).rowCount !== 1) return false;
    return withClient(url, async (c) => {
      const { rows } = await c.query<{ n: number }>(
        `select count(*)::int as n from pg_tables where tablename = 'bench_feed_seed'`,
      );
      return rows[0]?.n === 1;
    });
  });
  if (!held) {
    // Absent, or a seed cut short: start over.
    await withClient(ADMIN_URL, async (client) => {
      await client.query(`drop database if exists ${name} with (force)`);
      await client.query(`create database ${name}`);
    });
    const database = db.createDatabase({ url, poolSize: 2 });
    try {
      await db.migrateToLatest(database.db);
    } finally {
      await database.close();
    }
  }
  const api = await startServer({ ...signalSpec(run, url), name: 'api (me/signals)' });
  try {
    if (!held) {
      const started = performance.now();
      const follower = evmWallet();
      await signIn(api.url, follower);
      const opens = Math.round(run.meLogEntries * 0.6);
      await withClient(url, async (client) => {
        const { rows } = await client.query<{ id: string }>('select id from users order by id desc limit 1');
        // One transaction, as a route appends an entry with its change: the sequencer, polling
        // meanwhile, must never take an entry whose statement it cannot see yet.
        await client.query('begin');
        for (const statement of SEED_SQL) {
          const params: unknown[] = !statement.includes('$1')
            ? []
            : statement.includes('follows')
              ? [rows[0]?.id]
              : [opens];
          await client.query(statement, params);
        }
        await client.query('commit');
      });
      const accepted = (performance.now() - started) / 1000;
      await waitForSize(api, run.meLogEntries, run.log);
      await withClient(url, async (client) => {
        const { rows } = await client.query<{ n: number }>(
          'select count(*)::int as n from signal_statements where log_index is null',
        );
        if (rows[0]?.n !== 0) throw new Error(`${name}: ${rows[0]?.n} statements left unplaced by the sequencer`);
        await client.query('vacuum analyze');
        await client.query('create table bench_feed_seed (follower bytea not null)');
        await client.query('insert into bench_feed_seed values ($1)', [follower.privateKey]);
      });
      run.log(
        `${name}: ${run.meLogEntries} statements accepted by SQL in ${accepted.toFixed(0)} s, sequenced and vacuumed in ${((performance.now() - started) / 1000 - accepted).toFixed(0)} s more`,
      );
    }
    const seed = await withClient(url, async (client) => {
      const key = (await client.query<{ follower: Buffer }>('select follower from bench_feed_seed')).rows[0];
      const { rows } = await client.query<{ n: number }>(
        `select count(*)::int as n from signals s join follows f on f.provider_id = s.provider_id
         where f.user_id = (select id from users order by id desc limit 1) and s.open_log_index is not null`,
      );
      return { follower: key?.follower as Buffer, signals: rows[0]?.n ?? 0 };
    });
    const note = await (await fetch(`${api.url}/log/checkpoint`)).text();
    await withClient(ADMIN_URL, (client) =>
      client.query(`alter database ${name} set statement_timeout = '${BENCH_STATEMENT_TIMEOUT}'`),
    );
    return { url, signals: seed.signals, follower: evmWallet(seed.follower), logSize: Number(note.split('\n')[1]) };
  } finally {
    await api.stop();
  }
}

export async function meSignalRows(run: SignalRun): Promise<Map<string, Row>> {
  const rows = new Map<string, Row>();
  if (!ME_SIGNAL_KEYS.some(run.wanted)) return rows;
  const seed = await prepareMeDatabase(run);
  const api = await startServer({ ...signalSpec(run, seed.url), name: 'api (me/signals)' });
  try {
    const { token } = await signIn(api.url, seed.follower);
    const auth = [{ authorization: `Bearer ${token}` }];
    // The cursor at depth: walked from page 1 in pages of 100 to 80 % of the signals.
    const depth = Math.floor((seed.signals * 0.8) / 100) * 100;
    let cursor: string | null = null;
    for (let walked = 0; walked < depth; walked += 100) {
      const res = await fetch(`${api.url}/me/signals?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
        headers: auth[0],
      });
      if (res.status !== 200) throw new Error(`GET /me/signals answered ${res.status}: ${await res.text()}`);
      cursor = ((await res.json()) as { nextCursor: string | null }).nextCursor;
      if (!cursor) break;
    }
    const plan: LoadPlan = { ...run.plan, between: () => settle(seed.url) };
    // PostgreSQL's CPU per request too: the feed's cost is mostly its query.
    const probe = databaseCpu(seed.url);
    const target = (paths: string[]) => ({ ...get(api, paths, auth), dbCpu: () => probe.sample() });
    const size = `${seed.signals.toLocaleString('en-US')} signals of ${ME_FOLLOWS} followed providers (of ${FEED_PROVIDERS.toLocaleString('en-US')}), a log of ${seed.logSize.toLocaleString('en-US')} entries`;
    if (run.wanted('me-signals')) {
      const result = await compare(target(['/me/signals']), target(['/me']), plan);
      rows.set(
        'me-signals',
        row(
          `GET /me/signals page 1, following ${ME_FOLLOWS} providers`,
          result.service,
          result.baseline,
          `${size}; one user, ${run.plan.connections} connections; baseline column: GET /me of the same user`,
        ),
      );
    }
    if (run.wanted('me-signals-deep') && cursor) {
      const result = await compare(target([`/me/signals?cursor=${cursor}`]), target(['/me/signals']), plan);
      rows.set(
        'me-signals-deep',
        row(
          `GET /me/signals by cursor at depth ${depth.toLocaleString('en-US')}`,
          result.service,
          result.baseline,
          `${size}; baseline column: page 1 of the same feed`,
        ),
      );
    }
    await probe.close();
  } finally {
    await api.stop();
  }
  return rows;
}

export function judgeMeSignals(rows: Map<string, Row>): Verdict[] {
  const verdicts: Verdict[] = [];
  for (const key of ['me-signals', 'me-signals-deep'] as const) {
    const r = rows.get(key);
    if (!r) continue;
    const p99 = r.service.p99 ?? Number.POSITIVE_INFINITY;
    verdicts.push({
      target: `${key}: p99 ≤ ${ME_TARGET_P99_MS} ms at 50 connections`,
      measured: `p99 ${p99} ms (p50 ${r.service.p50} ms), ${Math.round(r.service.rps)} req/s`,
      met: p99 <= ME_TARGET_P99_MS,
    });
  }
  return verdicts;
}
