/**
 * What the next issue's receipts build on (docs/log.md, "Sequencing"): an appender accepts an entry
 * in its own transaction (`appendLogEntry`), and after the commit waits for it in memory
 * (`logSequencer.waitFor`): it learns its index and a signed checkpoint holding it, and the
 * inclusion proof there checks. Run on real sequencers over a real database, both backends; on
 * PostgreSQL two sequencers share one database, as two servers do, and a waiter on one is woken by
 * the other's integration; a rolled-back append is never in the tree; 300 waiters at once resolve.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkInclusion, inclusionProof, leafHash, noteSigner, openCheckpoint, type Tile } from '@signal/core/log';
import { appendLogEntry, createDatabase, type DatabaseHandle, migrateToLatest, readLogTiles } from '@signal/db';
import { createScratchDatabase } from '@signal/test-support';
import { startedForTests } from '@signal/test-support/vitest';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogSequencer, type LogSequencer } from '../../src/procedures/log-sequencer.js';

const seed = () =>
  new Uint8Array(
    Buffer.from(generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }).d as string, 'base64url'),
  );
const log = pino({ level: 'silent' });

interface Rig {
  database: DatabaseHandle;
  sequencers: LogSequencer[];
  stop(): Promise<void>;
}

/** `count` sequencers with one key on one database (PGlite: one process, so one sequencer). */
async function rig(backend: 'postgres' | 'pglite', count: number): Promise<Rig> {
  const scratch = backend === 'postgres' ? await createScratchDatabase() : undefined;
  const dir = backend === 'pglite' ? await mkdtemp(join(tmpdir(), 'signal-log-wait-')) : undefined;
  const open = () => (scratch ? createDatabase({ url: scratch.url, poolSize: 4 }) : createDatabase({ dataDir: dir! }));
  const database = open();
  await migrateToLatest(database.db);
  const signer = noteSigner('wait.example/signals', seed());
  const handles = scratch ? Array.from({ length: count }, open) : [database];
  const sequencers = handles.map((handle) => createLogSequencer({ database: handle, log }, signer));
  for (const sequencer of sequencers) await sequencer.start();
  return {
    database,
    sequencers,
    async stop() {
      for (const sequencer of sequencers) await sequencer.stop();
      for (const handle of new Set([...handles, database])) await handle.close();
      await scratch?.drop();
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  };
}

const tiles = (database: DatabaseHandle) => async (wanted: Tile[]) =>
  (await readLogTiles(database.db, wanted)).map((data) => data!);

const text = (s: string) => new TextEncoder().encode(s);

describe.each(['postgres', 'pglite'] as const)('waiting for an entry in a signed checkpoint on %s', (backend) => {
  const setup = startedForTests(() => rig(backend, 2));

  it('learns its index and a checkpoint that holds it, whose inclusion proof checks', async () => {
    const [first] = setup.sequencers;
    const entries = [text('{"n":1,"type":"test","v":1}'), text('{"n":2,"type":"test","v":1}')];
    const acceptances = await setup.database.db
      .transaction()
      .execute(async (trx) => [await appendLogEntry(trx, entries[0]!), await appendLogEntry(trx, entries[1]!)]);
    first!.kick();
    const included = await Promise.all(acceptances.map((a) => first!.waitFor(a, { maxWaitMs: 5_000 })));
    expect(included.map((i) => i?.logIndex)).toEqual([acceptances[0]!.minIndex, acceptances[0]!.minIndex + 1]);
    for (const [i, inclusion] of included.entries()) {
      const checkpoint = openCheckpoint(inclusion!.checkpoint.note, first!.verifierKey);
      expect(checkpoint.size).toBe(inclusion!.checkpoint.size);
      expect(checkpoint.size).toBeGreaterThan(inclusion!.logIndex);
      const proof = await inclusionProof(inclusion!.logIndex, checkpoint.size, tiles(setup.database));
      expect(
        checkInclusion(proof, checkpoint.size, checkpoint.rootHash, inclusion!.logIndex, leafHash(entries[i]!)),
      ).toBe(true);
    }
  });

  it('never includes an append whose transaction rolled back', async () => {
    const [first] = setup.sequencers;
    let rolledBack: Awaited<ReturnType<typeof appendLogEntry>> | undefined;
    await setup.database.db
      .transaction()
      .execute(async (trx) => {
        rolledBack = await appendLogEntry(trx, text('{"type":"never","v":1}'));
        throw new Error('the change failed');
      })
      .catch(() => {});
    first!.kick();
    expect(await first!.waitFor(rolledBack!, { maxWaitMs: 400 })).toBeUndefined();
  });

  it('wakes 300 waiters at once, each with its own index', async () => {
    const [first, second = first] = setup.sequencers;
    const acceptances = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        setup.database.db.transaction().execute((trx) => appendLogEntry(trx, text(`{"n":${i},"type":"many","v":1}`))),
      ),
    );
    // Waiting on the second while the first is kicked: the second learns of it by its own poll.
    first!.kick();
    const included = await Promise.all(acceptances.map((a) => second!.waitFor(a, { maxWaitMs: 10_000 })));
    const indexes = included.map((i) => i?.logIndex);
    expect(indexes.every((i) => typeof i === 'number')).toBe(true);
    expect(new Set(indexes).size).toBe(300);
    for (const [i, inclusion] of included.entries()) {
      expect(inclusion!.logIndex).toBeGreaterThanOrEqual(acceptances[i]!.minIndex);
      expect(inclusion!.checkpoint.size).toBeGreaterThan(inclusion!.logIndex);
    }
  });

  it('answers undefined when its signal aborts or the wait runs out', async () => {
    const [first] = setup.sequencers;
    const never = { id: 9_000_000_000, minIndex: 0 };
    const aborted = new AbortController();
    const waiting = first!.waitFor(never, { maxWaitMs: 10_000, signal: aborted.signal });
    aborted.abort();
    expect(await waiting).toBeUndefined();
    expect(await first!.waitFor(never, { maxWaitMs: 150 })).toBeUndefined();
  });
});
