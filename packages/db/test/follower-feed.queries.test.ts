/**
 * The follower feed's keys (`listFollowedSignalKeys`, docs/design.md "Follower feeds"): both of
 * its strategies, the bounded walk of everyone's newest signals and the per-provider walks it
 * falls back to, give the same pages as the contract's order over the followed live providers'
 * signals: newest first by `publishedAt`, ties by the open's log index descending, by cursor,
 * archived and unfollowed providers left out, unsequenced signals not shown.
 */
import { describeBackends } from '@signal/test-support/vitest';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { FOLLOWED_WINDOW_PER_KEY, listFollowedSignalKeys, type SignalPosition } from '../src/index.js';
import { useTestDatabase } from './support.js';

describeBackends('the follower feed on %s', (backend) => {
  const t = useTestDatabase(backend);

  it('pages the followed live providers’ signals newest first, whether the followed publish much or little', async () => {
    const ids = async (names: string[]) =>
      (
        await sql<{ id: string }>`
          insert into providers (name) select unnest(${names}::text[]) returning id
        `.execute(t.db)
      ).rows.map((row) => Number(row.id));
    const [busy, quiet, archived, stranger] = (await ids(['Busy', 'Quiet', 'Archived', 'Not followed'])) as [
      number,
      number,
      number,
      number,
    ];
    const user = Number(
      (await sql<{ id: string }>`insert into users (wallet, chain) values ('0xfeed', 'evm') returning id`.execute(t.db))
        .rows[0]!.id,
    );
    await sql`
      insert into follows (user_id, provider_id) select ${user}, unnest(${[busy, quiet, archived]}::bigint[])
    `.execute(t.db);
    // Log index n at minute n (a pair of ties every 7th); the stranger publishes a burst of the
    // newest, longer than the window of a page of 1 and shorter than that of a page of 10.
    const burst = 3 * FOLLOWED_WINDOW_PER_KEY;
    const plan: { provider: number; n: number; sequenced: boolean }[] = [];
    for (let n = 0; n < 60; n++) {
      const provider = n % 10 === 0 ? quiet : n % 3 === 0 ? archived : busy;
      plan.push({ provider, n, sequenced: n !== 41 });
    }
    for (let n = 60; n < 60 + burst; n++) plan.push({ provider: stranger, n, sequenced: true });
    await sql`
      insert into signals (provider_id, id, published_at, reveal_at, open_acceptance_id, open_log_index)
      select p.provider, 's' || p.n, timestamptz '2026-01-01' + make_interval(mins => p.n - p.n % 7 * (p.n % 2)),
        timestamptz '2026-01-01', p.n, case when p.sequenced then p.n end
      from unnest(${plan.map((p) => p.provider)}::bigint[], ${plan.map((p) => p.n)}::int[],
        ${plan.map((p) => p.sequenced)}::boolean[]) as p (provider, n, sequenced)
    `.execute(t.db);
    await sql`update providers set archived_at = now() where id = ${archived}`.execute(t.db);

    const minute = (n: number) => n - (n % 7) * (n % 2);
    const expected = plan
      .filter((p) => p.sequenced && (p.provider === busy || p.provider === quiet))
      .sort((a, b) => minute(b.n) - minute(a.n) || b.n - a.n)
      .map((p) => ({ providerId: p.provider, id: `s${p.n}` }));
    expect(expected.length).toBeGreaterThan(30);

    for (const limit of [1, 3, 10, 100]) {
      const walked: { providerId: number; id: string }[] = [];
      let after: SignalPosition | undefined;
      for (;;) {
        const page = await listFollowedSignalKeys(t.db, user, { limit, now: new Date(), ...(after ? { after } : {}) });
        expect(page.keys.length).toBeLessThanOrEqual(limit);
        walked.push(...page.keys);
        if (!page.next) break;
        after = page.next;
      }
      expect(walked, `limit ${limit}`).toEqual(expected);
    }
    const stranger2 = Number(
      (await sql<{ id: string }>`insert into users (wallet, chain) values ('0xf00d', 'evm') returning id`.execute(t.db))
        .rows[0]!.id,
    );
    expect(await listFollowedSignalKeys(t.db, stranger2, { limit: 20, now: new Date() })).toEqual({
      keys: [],
      next: null,
    });
  });

  it('gives the newest of the followed as the page, whatever join the planner picks (a small, analysed catalogue)', async () => {
    // The shape that broke it (found by a black-box audit): 20 providers, a user following two of
    // them, a few signals each, statistics taken. PostgreSQL then joined the archived check as a
    // hash join probed by the providers' scan, which kept no order, and the page's limit took
    // the wrong rows (limit 2: the 3rd and 4th newest). Run again with nested loops off, so that
    // the planner must take a join that keeps no order, whatever its statistics say.
    const providers = (
      await sql<{ id: string }>`
        insert into providers (name) select 'P' || n from generate_series(1, 20) n returning id
      `.execute(t.db)
    ).rows.map((row) => Number(row.id));
    const followed = providers.slice(0, 2);
    const user = Number(
      (await sql<{ id: string }>`insert into users (wallet, chain) values ('0xabcd', 'evm') returning id`.execute(t.db))
        .rows[0]!.id,
    );
    await sql`insert into follows (user_id, provider_id) select ${user}, unnest(${followed}::bigint[])`.execute(t.db);
    const plan = Array.from({ length: 40 }, (_, n) => ({ provider: providers[n % 8]!, n }));
    await sql`
      insert into signals (provider_id, id, published_at, reveal_at, open_acceptance_id, open_log_index)
      select p.provider, 'q' || p.n, timestamptz '2026-02-01' + make_interval(secs => p.n), timestamptz '2026-02-01',
        1000 + p.n, 1000 + p.n
      from unnest(${plan.map((p) => p.provider)}::bigint[], ${plan.map((p) => p.n)}::int[]) as p (provider, n)
    `.execute(t.db);
    // As the demo seed leaves them: the catalogue analysed, the signals not yet.
    if (backend === 'postgres') await sql`analyze providers, follows`.execute(t.db);
    const expected = plan
      .filter((p) => followed.includes(p.provider))
      .reverse()
      .map((p) => ({ providerId: p.provider, id: `q${p.n}` }));
    const pages = async (db: typeof t.db, how: string) => {
      for (let limit = 1; limit <= expected.length + 1; limit++) {
        const page = await listFollowedSignalKeys(db, user, { limit, now: new Date() });
        expect(page.keys, `${how}, limit ${limit}`).toEqual(expected.slice(0, limit));
        const walked: { providerId: number; id: string }[] = [...page.keys];
        for (let after = page.next; after; ) {
          const next = await listFollowedSignalKeys(db, user, { limit, now: new Date(), after });
          walked.push(...next.keys);
          after = next.next;
        }
        expect(walked, `${how}, walked by ${limit}`).toEqual(expected);
      }
    };
    await pages(t.db, 'as planned');
    await t.db.transaction().execute(async (trx) => {
      await sql`set local enable_nestloop = off`.execute(trx);
      await pages(trx, 'without nested loops');
    });
  });
});
