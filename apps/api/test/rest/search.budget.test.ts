/**
 * Search as an amplifier (issue 42, item 1; CONTRACT.md, Version 4, "Changes to earlier
 * versions"), the attack performed: from one client address, a loop of uncached name searches
 * the trigram index cannot narrow (`q=#`, spaces, an emoji, one and two characters), three at a
 * time, on a demo catalogue of 20,000 providers seeded by the db package's seed (PGlite: 500, with
 * a budget of 50 ms a second). Measured on PostgreSQL: the database time the loop costs (the
 * backends active in the test's database, sampled from pg_stat_activity every 20 ms) against the
 * wall time once the burst is spent: about a tenth, the excess answered 429 RATE_LIMITED with a
 * Retry-After that holds; meanwhile another address's searches and pages at their idle speed, a
 * narrowed search from the attacking address itself answered at once, and totals exact. On
 * PostgreSQL the same loop against a server without the budget gives the before figure.
 */
import { type DatabaseHandle, seedDemoCatalogue } from '@signal/db';
import { createScratchDatabase, type ScratchDatabase } from '@signal/test-support';
import { describeBackends } from '@signal/test-support/vitest';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, startApi, type TestApi } from '../harness.js';

const ATTACKER = '203.0.113.7';
const OTHER = '198.51.100.9';
/** Patterns without a word of three letters or digits: nothing for the trigram index to narrow. */
const WIDE = ['#', ' ', '   ', '😀', 'a', 'e', 'o', 'ab', 'an', 'e ', '%', '_', 'a b', '1', '12', '-', '🚀🚀'];
const SORTS = ['followerCount', 'createdAt', 'name', 'id', 'roi30d'];

const pick = <T>(items: readonly T[]) => items[Math.floor(Math.random() * items.length)] as T;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer {
  status: number;
  ms: number;
  retryAfter: string | null;
  message: string;
}

/** A refusal for the spent budget (not for the address's other search still running). */
const spent = (answer: Answer) =>
  answer.status === 429 && answer.message.includes('database time for such searches is spent');

/** A GET from `address` (through TRUST_PROXY=1), timed. */
async function timedGet(api: { url: string }, path: string, address: string) {
  const started = performance.now();
  const reply = await call(api, 'GET', path, { headers: { 'x-forwarded-for': address } });
  return { reply, ms: performance.now() - started };
}

/** An uncached wide search: a random pattern, page, size and sort, so no two URLs repeat. */
const wideSearch = () =>
  `/providers?q=${encodeURIComponent(pick(WIDE))}&page=${1 + Math.floor(Math.random() * 40)}` +
  `&limit=${1 + Math.floor(Math.random() * 100)}&sortBy=${pick(SORTS)}`;

/** `workers` loops of wide searches from the attacker until `until()`; every answer recorded. */
async function attack(api: { url: string }, workers: number, until: (answers: Answer[]) => boolean): Promise<Answer[]> {
  const answers: Answer[] = [];
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (!until(answers)) {
        const { reply, ms } = await timedGet(api, wideSearch(), ATTACKER);
        expect([200, 429], JSON.stringify(reply.body)).toContain(reply.status);
        answers.push({
          status: reply.status,
          ms,
          retryAfter: reply.headers.get('retry-after'),
          message: String(reply.body?.message ?? ''),
        });
      }
    }),
  );
  return answers;
}

/**
 * Samples how many backends of the test's database are running a name search (PostgreSQL: a
 * statement with the search's `ilike`), every 20 ms until stopped: the mean is the database cores
 * the searches keep busy, which is what the budget bounds. Each refused search still reads the
 * catalogue's version first (the cache's check, a few tens of µs): at the ≈1,200 refusals a second
 * this loop makes, counting those reads too read 0.22–0.30 cores on a busy runner, noise over the
 * budget's ≈0.12 rather than search time.
 */
function sampleActive(observer: DatabaseHandle) {
  const samples: number[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and state = 'active' and pid <> pg_backend_pid()
          and query ilike '%name ilike%'`.execute(observer.db);
      samples.push(rows[0]?.n ?? 0);
      await sleep(20);
    }
  })();
  return async () => {
    running = false;
    await done;
    return samples.reduce((sum, n) => sum + n, 0) / Math.max(1, samples.length);
  };
}

describeBackends('searches the index cannot narrow, from one address, on %s', (backend) => {
  // PGlite is the embedded development database: one thread, seeded slowly, so a small
  // catalogue and a smaller budget there (50 ms a second) show the same gate; the database time
  // is measured on PostgreSQL.
  const onPostgres = backend === 'postgres';
  const providers = onPostgres ? 20_000 : 500;
  const rate = onPostgres ? 100 : 50;
  let scratch: ScratchDatabase | undefined;
  let bounded: TestApi;
  let unbounded: TestApi | undefined;
  let narrowed: string;
  const env = { TRUST_PROXY: '1', SEARCH_DB_MS_PER_SECOND: String(rate) };

  beforeAll(async () => {
    if (backend === 'postgres') {
      scratch = await createScratchDatabase();
      bounded = await startApi('postgres', { databaseUrl: scratch.url, env });
      unbounded = await startApi('postgres', {
        databaseUrl: scratch.url,
        env: { ...env, SEARCH_DB_MS_PER_SECOND: '0' },
      });
    } else {
      bounded = await startApi('pglite', { env });
    }
    const seeding = performance.now();
    await seedDemoCatalogue(bounded.db.db, { providers, meanFollows: 0, distinctNames: true });
    console.log(`seeded ${providers} providers in ${Math.round(performance.now() - seeding)} ms`);
    // A narrowed search: two whole words of a real name ("Swift Edge", say).
    const { rows } = await sql<{ name: string }>`select name from providers order by id limit 1`.execute(bounded.db.db);
    narrowed = (rows[0]?.name ?? '').split(' ').slice(0, 2).join(' ');
  }, 120_000);

  afterAll(async () => {
    await unbounded?.stop();
    await bounded?.stop();
    await scratch?.drop();
  });

  it.skipIf(backend !== 'postgres')(
    'before: without the budget the loop keeps the database busy',
    async () => {
      const api = unbounded as TestApi;
      const stopSampling = sampleActive(api.db);
      const started = performance.now();
      const answers = await attack(api, 3, () => performance.now() - started > 2500);
      const cores = await stopSampling();
      const wall = performance.now() - started;
      const busy = answers.reduce((sum, answer) => sum + answer.ms, 0);
      console.log(
        `before: ${answers.length} wide searches in ${Math.round(wall)} ms, all 200; ` +
          `database cores busy ${cores.toFixed(2)} (sampled), answer time ${(busy / wall).toFixed(2)}× wall`,
      );
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
      // Without the bound one address holds far more than a tenth of a core.
      expect(cores).toBeGreaterThan(0.3);
    },
    30_000,
  );

  it.skipIf(!onPostgres)(
    'after: about a tenth of a core, the rest 429 with Retry-After; others served at normal speed',
    async () => {
      const api = bounded;
      // The other address's idle speed: a narrowed search and a plain page.
      const otherPaths = [
        `/providers?q=${encodeURIComponent(narrowed)}`,
        '/providers?limit=20',
        '/providers?limit=20&sortBy=roi30d',
      ];
      const idle: number[] = [];
      for (let i = 0; i < 12; i++) idle.push((await timedGet(api, `${pick(otherPaths)}&page=${1 + i}`, OTHER)).ms);

      // The burst: the loop runs until its first refusal for spent database time.
      const burstStarted = performance.now();
      const burst = await attack(api, 3, (answers) => answers.some(spent) || performance.now() - burstStarted > 15_000);
      expect(burst.some(spent), 'the loop was never refused for its database time').toBe(true);

      // Measured: 4 s of the loop with the budget spent, the database sampled.
      const stopSampling = sampleActive(api.db);
      const started = performance.now();
      const answers = await attack(api, 3, () => performance.now() - started > 4000);
      const cores = await stopSampling();
      const wall = performance.now() - started;
      const admitted = answers.filter((answer) => answer.status === 200);
      const refusals = answers.filter((answer) => answer.status === 429);
      const busy = admitted.reduce((sum, answer) => sum + answer.ms, 0);
      console.log(
        `after: ${answers.length} wide searches in ${Math.round(wall)} ms: ${admitted.length} answered 200 ` +
          `(${Math.round(busy)} ms, ${((100 * busy) / wall).toFixed(1)} % of wall), ${refusals.length} 429; ` +
          `database cores busy ${cores.toFixed(3)} (sampled)`,
      );
      expect(admitted.length).toBeGreaterThan(0);
      expect(refusals.length).toBeGreaterThan(admitted.length);
      // ≈10 %: a tenth of the wall time, plus the one search running when the budget ran out. (The
      // answers' own times are printed, not asserted: on a loaded machine they are mostly waiting.)
      // The contract's tenth of a core, with room for the sampling: pg_stat_activity counts a
      // query as active while it waits for a CPU too, which a loaded 2-core runner inflates (the
      // searches alone 0.09 on a quiet machine; 1.2–1.8 without the budget, and the "before" case
      // asserts more than 0.3).
      expect(cores).toBeLessThan(0.3);
      for (const refusal of refusals) expect(Number(refusal.retryAfter)).toBeGreaterThanOrEqual(1);

      // Meanwhile: another address at its idle speed, and a narrowed search from the attacker
      // itself answered (never 429) as fast.
      const during: number[] = [];
      const ownNarrowed: number[] = [];
      let stop = false;
      const loop = attack(api, 3, () => stop);
      for (let i = 0; i < 12; i++) {
        const other = await timedGet(api, `${pick(otherPaths)}&page=${1 + (i % 3)}&limit=${10 + i}`, OTHER);
        expect(other.reply.status).toBe(200);
        during.push(other.ms);
        const own = await timedGet(api, `/providers?q=${encodeURIComponent(narrowed)}&limit=${5 + i}`, ATTACKER);
        expect(own.reply.status, JSON.stringify(own.reply.body)).toBe(200);
        ownNarrowed.push(own.ms);
      }
      stop = true;
      await loop;
      console.log(
        `other address p50 ${median(idle).toFixed(1)} ms idle, ${median(during).toFixed(1)} ms during the loop; ` +
          `the attacker's narrowed search p50 ${median(ownNarrowed).toFixed(1)} ms`,
      );
      expect(median(during)).toBeLessThan(3 * median(idle) + 40);
      expect(median(ownNarrowed)).toBeLessThan(3 * median(idle) + 40);
    },
    60_000,
  );

  it('a refusal says when to retry, and that is when the next wide search is admitted; its total exact', async () => {
    const api = bounded;
    let refusal: Awaited<ReturnType<typeof timedGet>> | undefined;
    // Until the burst is spent: on a quiet machine a wide search on PGlite costs ≈1 ms, so 200 were
    // not always enough; the bound only stops a broken budget from looping forever.
    for (let i = 0; i < 5_000 && !refusal; i++) {
      const answer = await timedGet(api, wideSearch(), ATTACKER);
      if (answer.reply.status === 429) refusal = answer;
    }
    if (!refusal) throw new Error('never refused');
    expect(refusal.reply.body).toMatchObject({ code: 'RATE_LIMITED' });
    expect(refusal.reply.headers.get('ratelimit-policy')).toBe(`"search";q=${rate};w=1`);
    const wait = Number(refusal.reply.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(10);
    await sleep(wait * 1000);
    const again = await timedGet(api, '/providers?q=a&limit=5&sortBy=id', ATTACKER);
    expect(again.reply.status, JSON.stringify(again.reply.body)).toBe(200);
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from providers where archived_at is null and name ilike '%a%'`.execute(bounded.db.db);
    expect(again.reply.body.total).toBe(rows[0]?.n);
    // tRPC is the same procedure: a refused address is refused there too.
    let trpcStatus = 0;
    for (let i = 0; i < 50 && trpcStatus !== 429; i++) {
      const input = encodeURIComponent(JSON.stringify({ q: pick(WIDE), page: 1 + i, limit: 50 }));
      const reply = await call(api, 'GET', `/trpc/providers.list?input=${input}`, {
        headers: { 'x-forwarded-for': ATTACKER },
      });
      trpcStatus = reply.status;
    }
    expect(trpcStatus).toBe(429);
  }, 30_000);
});
