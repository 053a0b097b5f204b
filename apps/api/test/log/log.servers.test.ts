/**
 * One log, two servers on one PostgreSQL database (CONTRACT.md, "The log": any server accepts,
 * one at a time integrates, no fork). Writers add publishers through both servers while bulk
 * appends land in the database and a poller on each server reads its checkpoint all along: every
 * checkpoint seen verifies, each server's sizes never go down, any two checkpoints seen (from
 * either server) are consistent, each entry is in the tree exactly once; and a checkpoint
 * covering an append is served within 1 s of the append's answer, by the other server too.
 */
import { randomBytes } from 'node:crypto';
import { verifyLogWithGo } from '@signal/test-support';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { call, createServiceKey, evmWallet, useServerPair } from '../harness.js';
import {
  appendInBulk,
  checkpointOfSize,
  expectConsistent,
  fetchCheckpoint,
  fetchVerifierKey,
  type SeenCheckpoint,
  testEntries,
} from './log-support.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;

describe('the log on two servers sharing a PostgreSQL database', () => {
  const { a, b } = useServerPair('postgres', { ADMIN_KEY });

  it('never forks and never shrinks under concurrent appends on both servers', { timeout: 60_000 }, async () => {
    const key = await fetchVerifierKey(a.url);
    expect(await fetchVerifierKey(b.url)).toBe(key);
    const writer = await createServiceKey(a, ADMIN_KEY, 'writer', ['providers:write']);
    const providerId = (await call(a, 'POST', '/providers', { token: writer, body: { name: 'Two Servers' } })).body.id;
    const start = (await fetchCheckpoint(a.url, key)).size;

    const seen: Record<'a' | 'b', SeenCheckpoint[]> = { a: [], b: [] };
    let writing = true;
    const poll = async (name: 'a' | 'b', url: string) => {
      while (writing) {
        seen[name].push(await fetchCheckpoint(url, key));
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
      seen[name].push(await fetchCheckpoint(url, key));
    };
    const adds = (url: string, count: number) => async () => {
      for (let i = 0; i < count; i++) {
        const reply = await call({ url }, 'POST', `/providers/${providerId}/publishers`, {
          token: writer,
          body: { wallet: evmWallet().address },
        });
        expect(reply.status).toBe(201);
      }
    };
    const pollers = [poll('a', a.url), poll('b', b.url)];
    const bulk = testEntries(0, 30_000, 'two-servers');
    await Promise.all([
      adds(a.url, 25)(),
      adds(a.url, 25)(),
      adds(b.url, 25)(),
      adds(b.url, 25)(),
      appendInBulk(a.db, bulk),
    ]);
    const total = start + 100 + bulk.length;
    await checkpointOfSize(a.url, key, total);
    await checkpointOfSize(b.url, key, total);
    writing = false;
    await Promise.all(pollers);

    for (const name of ['a', 'b'] as const) {
      const sizes = seen[name].map((c) => c.size);
      expect(sizes, `server ${name}`).toEqual([...sizes].sort((x, y) => x - y));
    }
    // Every distinct checkpoint seen anywhere: one note per size, and each a prefix of the next.
    const bySize = new Map<number, SeenCheckpoint>();
    for (const checkpoint of [...seen.a, ...seen.b]) {
      const same = bySize.get(checkpoint.size);
      if (same) expect(checkpoint.note).toBe(same.note);
      else bySize.set(checkpoint.size, checkpoint);
    }
    const ordered = [...bySize.values()].sort((x, y) => x.size - y.size);
    expect(ordered.length).toBeGreaterThan(2);
    const last = ordered.at(-1)!;
    expect(last.size).toBe(total);
    for (const [i, checkpoint] of ordered.entries()) {
      await expectConsistent(i % 2 ? a.url : b.url, checkpoint, ordered[i + 1] ?? last);
      await expectConsistent(i % 2 ? b.url : a.url, checkpoint, last);
    }
    // Go's check of the end state, served by either server, with every size seen proved a prefix of it.
    const consistency = ordered.filter((c) => c.size > 0).map((c) => ({ from: c.size, to: total }));
    for (const server of [a, b]) {
      expect(await verifyLogWithGo(server.url, key, { consistency })).toMatchObject({
        size: total,
        entries: total,
        consistencyProofs: consistency.length,
      });
    }
    // Each accepted entry once: no pending left, every acceptance id in the tree once.
    const counts = await sql<{ entries: number; distinct_ids: number; pending: number }>`
      select count(*)::int as entries, count(distinct accepted_id)::int as distinct_ids,
        (select count(*)::int from log_pending) as pending
      from log_entries
    `.execute(a.db.db);
    expect(counts.rows[0]).toEqual({ entries: total, distinct_ids: total, pending: 0 });
  });

  it('serves a checkpoint covering an append within 1 s of its answer, on either server', async () => {
    const key = await fetchVerifierKey(a.url);
    const writer = await createServiceKey(a, ADMIN_KEY, 'writer-2', ['providers:write']);
    const providerId = (await call(b, 'POST', '/providers', { token: writer, body: { name: 'Quick' } })).body.id;
    for (const [writeTo, readFrom] of [
      [a, b],
      [b, a],
      [a, a],
    ] as const) {
      const before = (await fetchCheckpoint(readFrom.url, key)).size;
      const reply = await call(writeTo, 'POST', `/providers/${providerId}/publishers`, {
        token: writer,
        body: { wallet: evmWallet().address },
      });
      expect(reply.status).toBe(201);
      const answered = Date.now();
      await checkpointOfSize(readFrom.url, key, before + 1, 1_000);
      expect(Date.now() - answered).toBeLessThan(1_000);
    }
  });
});
