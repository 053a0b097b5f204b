/**
 * Demo catalogue: N providers with plausible names, descriptions, avatars, creation dates,
 * a published NAV series and signal counts each (published through the same derivation as the
 * API's, demo-performance.ts), and follower counts made of real follow rows from demo users.
 * Set-based SQL (a handful of statements whatever N is), in one transaction: a crash
 * mid-seed leaves an empty catalogue, which the next start seeds again.
 */
import { randomBytes } from 'node:crypto';
import { parseWallet } from '@signal/core/wallet';
import { type Kysely, sql } from 'kysely';
import { publishDemoPerformance } from './demo-performance.js';
import type { Database } from './schema.js';

export interface SeedResult {
  providers: number;
  users: number;
  follows: number;
}

const ADJECTIVES = [
  'Alpha',
  'Quantum',
  'Momentum',
  'Delta',
  'Sigma',
  'Apex',
  'Vertex',
  'Lunar',
  'Solar',
  'Crimson',
  'Silent',
  'Golden',
  'Iron',
  'Arctic',
  'Nova',
  'Rapid',
  'Steady',
  'Bold',
  'Prime',
  'Zen',
  'Hyper',
  'Atlas',
  'Orbit',
  'Polar',
  'Echo',
  'Titan',
  'Swift',
  'Blue',
  'Emerald',
  'Obsidian',
];
const NOUNS = [
  'Scalper',
  'Trend',
  'Breakout',
  'Swing',
  'Pulse',
  'Wave',
  'Edge',
  'Flow',
  'Pivot',
  'Vector',
  'Range',
  'Arbitrage',
  'Compass',
  'Horizon',
  'Harbor',
  'Falcon',
  'Fox',
  'Owl',
  'Lion',
  'Whale',
  'Bull',
  'Bear',
  'Hawk',
  'Tiger',
  'Wolf',
  'Comet',
  'Beacon',
  'Anchor',
  'Lighthouse',
  'Meridian',
];
const SUFFIXES = [
  'Signals',
  'Capital',
  'Labs',
  'Desk',
  'Trading',
  'Research',
  'Alerts',
  'Calls',
  'Strategies',
  'Quant',
];
const STYLES = [
  'Trend-following',
  'Mean-reversion',
  'Breakout',
  'Momentum',
  'Swing',
  'Scalping',
  'Event-driven',
  'Carry',
];
const MARKETS = [
  'BTC and ETH',
  'major FX pairs',
  'SOL ecosystem tokens',
  'large-cap altcoins',
  'gold and oil',
  'US index futures',
  'DeFi blue chips',
  'perpetual futures',
];
const TIMEFRAMES = ['1-minute', '5-minute', '15-minute', 'hourly', '4-hour', 'daily', 'weekly'];
const NOTES = [
  'Entries come with stop-loss and two take-profit levels.',
  'Every call is explained with the chart that triggered it.',
  'Position sizing follows a fixed 1% risk per trade.',
  'Signals are posted before the candle closes.',
  'Fewer trades, higher conviction.',
  'Backtested over four years before going live.',
];

const sqlArray = (values: string[]) => sql`${values}::text[]`;
const pick = (values: string[]) => sql`(${sqlArray(values)})[1 + floor(random() * ${values.length})::int]`;

/** Checksummed EVM wallets from random bytes: demo users nobody can sign in as. */
function demoWallets(count: number): string[] {
  return Array.from({ length: count }, () => parseWallet(`0x${randomBytes(20).toString('hex')}`).wallet);
}

/**
 * Seeds `providers` demo providers when the catalogue is empty; returns null when it was not.
 * Concurrent starts are serialised by an advisory lock, so only one of them seeds.
 */
export async function seedDemoCatalogue(
  db: Kysely<Database>,
  options: {
    providers: number;
    now?: Date;
    /**
     * Appends a number (1..20,000) to every name, as real handles carry one. The words alone
     * make 9,000 names, so every trigram of a search is shared by ~10⁵ providers on a 1M
     * catalogue, which no real board looks like; with the number, names are nearly all distinct
     * and a search such as `labs 1234` matches about 55 of 1M (the bench's search row).
     */
    distinctNames?: boolean;
    /**
     * Mean follows per provider (default: 40, fewer on a large catalogue). Follows are most of a
     * large seed's time; a test that needs only a large catalogue to search passes 0.
     */
    meanFollows?: number;
  },
): Promise<SeedResult | null> {
  const n = options.providers;
  if (n <= 0) return null;
  const now = options.now ?? new Date();
  const users = Math.min(5_000, Math.max(200, n * 5));
  // Mean follows per provider: lively for a small demo, bounded for a benchmark catalogue.
  const mean = options.meanFollows ?? Math.min(40, 1_500_000 / n);

  const result = await db.transaction().execute(async (trx): Promise<SeedResult | null> => {
    // First, so that a role's statement_timeout bounds neither the wait for another server's
    // seed nor the seed itself (SET LOCAL ends with the transaction, pooled or not).
    await sql`set local statement_timeout = 0`.execute(trx);
    await sql`select pg_advisory_xact_lock(7270001)`.execute(trx);
    const counted = await trx.selectFrom('catalogue_counters').select('provider_count').executeTakeFirst();
    if ((counted?.provider_count ?? 0) > 0) return null;
    await sql`set local maintenance_work_mem = '256MB'`.execute(trx);
    // Counts are written with the providers; the follows trigger must not add them again.
    // (DISABLE TRIGGER is transactional: it holds only inside this transaction.)
    await sql`alter table follows disable trigger follows_keep_follower_count`.execute(trx);
    // Building an index once over sorted data beats updating it a million times, so the
    // secondary indexes of the empty tables are dropped and rebuilt from their own definitions.
    const indexes = await sql<{ name: string; definition: string }>`
      select indexname as name, indexdef as definition from pg_indexes
      where schemaname = current_schema() and tablename in ('providers', 'follows')
        and indexname not in (select conname from pg_constraint)
    `.execute(trx);
    for (const index of indexes.rows) await sql`drop index ${sql.id(index.name)}`.execute(trx);

    const wallets = demoWallets(users);
    const userIds: number[] = [];
    for (let i = 0; i < wallets.length; i += 1_000) {
      const rows = await trx
        .insertInto('users')
        .values(
          wallets
            .slice(i, i + 1_000)
            .map((wallet) => ({ wallet, chain: 'evm' as const, created_at: now, last_login_at: now })),
        )
        .returning('id')
        .execute();
      userIds.push(...rows.map((row) => row.id));
    }

    // A heavy-tailed spread: most providers have a few followers, some have many.
    await sql`
      insert into providers (name, description, avatar_url, follower_count, created_at)
      select
        ${pick(ADJECTIVES)} || ' ' || ${pick(NOUNS)} || ' ' || ${pick(SUFFIXES)}
          ${options.distinctNames ? sql`|| ' ' || (1 + floor(random() * 20000))::int` : sql``},
        case when random() < 0.1 then null
             else ${pick(STYLES)} || ' signals on ' || ${pick(MARKETS)} || ', ' || ${pick(TIMEFRAMES)}
                  || ' timeframe. ' || ${pick(NOTES)} end,
        case when random() < 0.15 then null else '/avatars/' || substr(md5(random()::text), 1, 16) || '.svg' end,
        least(${users}, floor(${mean} * power(-ln(1 - random()), 2) / 2))::int,
        ${now}::timestamptz - random() * interval '730 days'
      from generate_series(1, ${n})
    `.execute(trx);

    await publishDemoPerformance(trx, n, now);

    // follower_count distinct demo users per provider: consecutive entries of the user list
    // from a random start, so no pair repeats. Follows happen between creation and now.
    const follows = await sql`
      insert into follows (user_id, provider_id, created_at)
      select (${userIds}::bigint[])[1 + ((p.start + k) % ${users})], p.id,
             p.created_at + random() * (${now}::timestamptz - p.created_at)
      from (select id, follower_count, created_at, floor(random() * ${users})::int as start
            from providers where follower_count > 0) p
      cross join lateral generate_series(0, p.follower_count - 1) k
    `.execute(trx);

    for (const index of indexes.rows) await sql.raw(index.definition).execute(trx);
    await sql`alter table follows enable trigger follows_keep_follower_count`.execute(trx);
    return { providers: n, users, follows: Number(follows.numAffectedRows ?? 0) };
  });
  // Outside the transaction (VACUUM cannot run in one): sets the visibility map, so deep
  // pages are index-only scans from the first request, and refreshes planner statistics.
  if (result) await sql`vacuum analyze providers, follows, provider_nav`.execute(db);
  return result;
}
