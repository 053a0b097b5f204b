import { describeBackends } from '@signal/test-support/vitest';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { hitRateLimit, purgeExpiredAuthState } from '../src/index.js';
import { freshNonce, useTestDatabase } from './support.js';

const MINUTE = 60_000;

describeBackends('abuse limits on %s', (backend) => {
  const t = useTestDatabase(backend);

  it('counts every hit of a window exactly, under concurrency, and starts again in the next one', async () => {
    const now = new Date('2026-11-23T10:00:30Z');
    const hits = await Promise.all(
      Array.from({ length: 40 }, () => hitRateLimit(t.db, { bucket: 'b:1', now, windowMs: MINUTE })),
    );
    expect(hits.map((h) => h.hits).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(hits[0]?.resetAt).toEqual(new Date('2026-11-23T10:01:00Z'));
    const next = await hitRateLimit(t.db, { bucket: 'b:1', now: new Date('2026-11-23T10:01:00Z'), windowMs: MINUTE });
    expect(next.hits).toBe(1);
    expect((await hitRateLimit(t.db, { bucket: 'b:2', now, windowMs: MINUTE })).hits).toBe(1);
  });

  it('has no table of issued nonces, nor the old per-wallet cap', async () => {
    const tables = await sql<{ n: number }>`
      select count(*)::int as n from information_schema.tables where table_name = 'auth_nonces'`.execute(t.db);
    expect(tables.rows[0]?.n).toBe(0);
    const functions = await sql<{ n: number }>`
      select count(*)::int as n from pg_proc where proname = 'issue_nonce_within_cap'`.execute(t.db);
    expect(functions.rows[0]?.n).toBe(0);
  });

  it('purges in bounded batches: expired used nonces and ended windows only', async () => {
    const now = new Date('2026-11-23T12:00:00Z');
    const past = new Date(now.getTime() - 1_000);
    const future = new Date(now.getTime() + 1_000);
    await t.db
      .insertInto('used_nonces')
      .values(
        Array.from({ length: 25 }, (_, i) => ({
          nonce: freshNonce(),
          wallet: 'purge',
          expires_at: i < 20 ? past : future,
          used_at: past,
        })),
      )
      .execute();
    for (let i = 0; i < 7; i++) {
      await hitRateLimit(t.db, { bucket: `p:${i}`, now: new Date(now.getTime() - 2 * MINUTE), windowMs: MINUTE });
    }
    await hitRateLimit(t.db, { bucket: 'p:live', now, windowMs: MINUTE });
    const options = {
      noncesExpiredBefore: now,
      windowsBefore: new Date(now.getTime() - MINUTE),
      sessionsEndedBefore: now,
      batchSize: 5,
    };
    // Two batches of five at most: 10 of the 20 expired nonces and all 10 ended windows (7
    // here, 3 of the first test).
    expect(await purgeExpiredAuthState(t.db, { ...options, maxBatches: 2 })).toEqual({
      nonces: 10,
      rateLimitWindows: 10,
      sessions: 0,
    });
    const rest = await purgeExpiredAuthState(t.db, options);
    expect(rest.nonces).toBe(10);
    expect(rest.rateLimitWindows).toBe(0);
    const left = await t.db.selectFrom('used_nonces').select('expires_at').execute();
    expect(left.every((row) => row.expires_at > now)).toBe(true);
    expect(left.filter((row) => row.expires_at.getTime() === future.getTime())).toHaveLength(5);
    const windows = await t.db.selectFrom('rate_limit_hits').select('bucket').execute();
    expect(windows.map((w) => w.bucket)).toEqual(['p:live']);
  });
});
