/**
 * A sequencer killed mid-integration (CONTRACT.md, "The log": a server killed while integrating
 * leaves a state the next one finishes; an accepted entry is never lost and never appears twice).
 * The built server integrates 60,000 entries accepted in bulk, in batches of 10,000; while one of
 * its transactions holds the log's state row and has written, it gets SIGKILL. The database rolls
 * that batch back whole; a second server (same key) then finishes: every entry once, in acceptance
 * order, the served log verifies and the checkpoint seen before the kill is consistent with the end.
 */

import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { useScratchDatabase } from '../harness.js';
import { type ApiProcess, signingKeyPem, spawnApi } from '../process.js';
import {
  appendInBulk,
  checkpointOfSize,
  expectLogVerifiedTwice,
  fetchCheckpoint,
  fetchVerifierKey,
  testEntries,
} from './log-support.js';

const ENTRIES = 60_000;
const BATCH = 10_000;

describe('the log sequencer killed mid-integration (built server, PostgreSQL)', () => {
  const { scratch, direct } = useScratchDatabase();
  const processes: ApiProcess[] = [];
  afterAll(async () => {
    for (const p of processes) await p.crash();
  });

  it('loses nothing and doubles nothing: the next server finishes', { timeout: 90_000 }, async () => {
    const env = { DATABASE_URL: scratch.url, JWT_PRIVATE_KEY: signingKeyPem(), LOG_PRIVATE_KEY: signingKeyPem() };
    const first = await spawnApi(env);
    processes.push(first);
    const key = await fetchVerifierKey(first.url);
    const entries = testEntries(0, ENTRIES, 'killed');
    await appendInBulk(direct, entries);

    // A transaction that holds the state row's lock (SELECT … FOR UPDATE takes RowShareLock on the
    // table until it ends) and has written (it has a transaction id): an integration under way.
    let integrating: number | undefined;
    const deadline = Date.now() + 30_000;
    while (integrating === undefined && Date.now() < deadline) {
      const found = await sql<{ pid: number }>`
        select l.pid from pg_locks l
        join pg_class c on c.oid = l.relation
        join pg_stat_activity a on a.pid = l.pid
        where c.relname = 'log_state' and l.mode = 'RowShareLock' and l.granted and a.backend_xid is not null
      `.execute(direct.db);
      integrating = found.rows[0]?.pid;
    }
    expect(integrating, 'no integration seen under way').toBeDefined();
    await first.crash();
    const before = await fetchState();
    // Gone with its transaction: the batch it was writing is not there, the rest is whole.
    expect(before.size % BATCH).toBe(0);
    expect(before.size).toBeLessThan(ENTRIES);
    expect(before.pending).toBe(ENTRIES - before.size);
    expect(before.entries).toBe(before.size);

    const second = await spawnApi(env);
    processes.push(second);
    expect(await fetchVerifierKey(second.url)).toBe(key);
    const early = await fetchCheckpoint(second.url, key);
    const last = await checkpointOfSize(second.url, key, ENTRIES, 60_000);
    expect(last.size).toBe(ENTRIES);
    expect(await fetchState()).toEqual({
      size: ENTRIES,
      pending: 0,
      entries: ENTRIES,
      distinctIds: ENTRIES,
      inOrder: true,
    });
    await expectLogVerifiedTwice(second.url, key, last, entries, [0, before.size, ENTRIES - 1], [early]);
  });

  async function fetchState() {
    const result = await sql<{
      size: number;
      pending: number;
      entries: number;
      distinct_ids: number;
      out_of_order: number;
    }>`
      select (select size from log_state)::int as size, (select count(*) from log_pending)::int as pending,
        count(*)::int as entries, count(distinct accepted_id)::int as distinct_ids,
        (select count(*) from (
          select accepted_id < lag(accepted_id) over (order by idx) as back from log_entries
        ) o where o.back)::int as out_of_order
      from log_entries
    `.execute(direct.db);
    const row = result.rows[0]!;
    return {
      size: row.size,
      pending: row.pending,
      entries: row.entries,
      ...(row.size === ENTRIES ? { distinctIds: row.distinct_ids, inOrder: row.out_of_order === 0 } : {}),
    };
  }
});
