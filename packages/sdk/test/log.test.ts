/**
 * `client.log` and `@signal/sdk/log` against the real API: a monitor pins the log's key, keeps a
 * checkpoint, sees the log grow as publishers are added, proves each new entry and the growth
 * with the SDK's checks, and refuses what a lying log would show (a fork, a shrink, another key).
 */
import { randomBytes } from 'node:crypto';
import { createClient, SignalApiError } from '@signal/sdk';
import {
  advanceCheckpoint,
  type Checkpoint,
  checkConsistencyAnswer,
  checkInclusionAnswer,
  decodeEntryBundle,
  entriesPath,
  LogConsistencyError,
  NoteError,
  verifierKey,
} from '@signal/sdk/log';
import { startLogFixture, verifyLogWithGo } from '@signal/test-support';
import { describe, expect, it } from 'vitest';
import { failure, useApi } from './support/api.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
const randomWallet = () => `0x${randomBytes(20).toString('hex')}`;

async function addPublisher(url: string, providerId: number, wallet: string) {
  const res = await fetch(`${url}/providers/${providerId}/publishers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ wallet }),
  });
  expect(res.status).toBe(201);
}

/** The monitor's loop, bounded: steps until the log holds `size` entries. */
async function untilSize(step: () => Promise<Checkpoint>, size: number): Promise<Checkpoint> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const checkpoint = await step();
    if (checkpoint.size >= size) return checkpoint;
    if (Date.now() > deadline) throw new Error(`the log did not reach ${size} entries (at ${checkpoint.size})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(['postgres', 'pglite'] as const)('client.log on %s', (backend) => {
  const api = useApi(backend, { env: { ADMIN_KEY } });

  it('proves new entries and the growth of the log from a kept checkpoint', async () => {
    const client = createClient({ baseUrl: api.url });
    const key = await client.log.key();
    expect(key).toMatch(/^[^+\s]+\+[0-9a-f]{8}\+[A-Za-z0-9+/]+=*$/);
    await addPublisher(api.url, 3, randomWallet());
    const first = await untilSize(() => advanceCheckpoint(client.log, key), 1);

    const wallets = [randomWallet(), randomWallet(), randomWallet()];
    for (const wallet of wallets) await addPublisher(api.url, 3, wallet);
    let kept = first;
    const grown = await untilSize(async () => {
      kept = await advanceCheckpoint(client.log, key, kept);
      return kept;
    }, first.size + 3);

    for (let index = first.size; index < first.size + 3; index++) {
      // The entry's bytes from its bundle, as any reader gets them.
      const bundle = Math.floor(index / 256);
      const width = Math.min(256, grown.size - bundle * 256);
      const res = await fetch(`${api.url}/log/${entriesPath(bundle, width)}`);
      const entry = decodeEntryBundle(new Uint8Array(await res.arrayBuffer()))[index % 256]!;
      expect(JSON.parse(new TextDecoder().decode(entry))).toMatchObject({ type: 'publisher.added', provider: 3, v: 1 });
      const answer = await client.log.inclusionProof(index, grown.size);
      expect(answer).toMatchObject({ index, size: grown.size });
      expect(checkInclusionAnswer(answer, grown, entry)).toBe(true);
      // The same proof does not make another entry part of the log.
      expect(checkInclusionAnswer(answer, grown, new TextEncoder().encode('{"forged":true}'))).toBe(false);
    }

    const growth = await client.log.consistencyProof(first.size, grown.size);
    expect(checkConsistencyAnswer(growth, first, grown)).toBe(true);
    const forgedRoot = { ...first, rootHash: first.rootHash.map((b, i) => (i === 0 ? b ^ 1 : b)) };
    expect(checkConsistencyAnswer(growth, forgedRoot, grown)).toBe(false);
    if (backend === 'postgres') {
      const summary = await verifyLogWithGo(api.url, key, {
        inclusion: [{ index: first.size, size: grown.size }],
        consistency: [{ from: first.size, to: grown.size }],
      });
      expect(summary.size).toBeGreaterThanOrEqual(grown.size);
    }
  });

  it('refuses a kept checkpoint the log does not extend, and a checkpoint under another key', async () => {
    const client = createClient({ baseUrl: api.url });
    const key = await client.log.key();
    await addPublisher(api.url, 4, randomWallet());
    const now = await untilSize(() => advanceCheckpoint(client.log, key), 1);
    // A checkpoint kept from "another history" of the same size: a fork.
    const forked = { ...now, rootHash: new Uint8Array(32).fill(7) };
    await expect(advanceCheckpoint(client.log, key, forked)).rejects.toThrow(LogConsistencyError);
    // One from a longer log than this one: the log would have shrunk.
    const longer = { ...now, size: now.size + 10 };
    await expect(advanceCheckpoint(client.log, key, longer)).rejects.toThrow(/shrank/);
    // A key the monitor did not pin: the checkpoint does not open.
    const impostor = verifierKey(now.origin, randomBytes(32));
    const error = await advanceCheckpoint(client.log, impostor).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoteError);
    expect((error as NoteError).code).toBe('unknown-key');
  });

  it('answers proofs out of the tree with VALIDATION_ERROR', async () => {
    const client = createClient({ baseUrl: api.url });
    const { size } = await advanceCheckpoint(client.log, await client.log.key());
    const beyond = await failure(client.log.inclusionProof(size, size));
    expect(beyond).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
    const zero = await failure(client.log.consistencyProof(0, 1));
    expect(zero).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
    expect(zero).toBeInstanceOf(SignalApiError);
  });
});

describe('advanceCheckpoint against a forked log (fixture server)', () => {
  it('keeps a checkpoint of one history and refuses the other', async () => {
    const seed = randomBytes(32);
    const entry = (tag: string, i: number) => new TextEncoder().encode(`{"n":${i},"tag":"${tag}"}`);
    const honest = await startLogFixture({ entries: Array.from({ length: 10 }, (_, i) => entry('a', i)), seed });
    // Same key, same first 9 entries, then another 10th: what a log showing readers two histories does.
    const forkedEntries = Array.from({ length: 12 }, (_, i) => entry(i === 9 ? 'b' : 'a', i));
    const forked = await startLogFixture({ entries: forkedEntries, seed });
    const rest = (url: string) => ({
      checkpoint: async () => (await fetch(`${url}/log/checkpoint`)).text(),
      consistencyProof: async (from: number, to: number) =>
        (await fetch(`${url}/log/proof/consistency?from=${from}&to=${to}`)).json(),
    });
    try {
      const kept = await advanceCheckpoint(rest(honest.url), honest.verifierKey);
      expect(kept.size).toBe(10);
      await expect(advanceCheckpoint(rest(forked.url), honest.verifierKey, kept)).rejects.toThrow(/forked/);
      // An honest extension of the first 9 entries is accepted.
      const nine = await startLogFixture({ entries: forkedEntries.slice(0, 9), seed });
      const early = await advanceCheckpoint(rest(nine.url), honest.verifierKey);
      expect((await advanceCheckpoint(rest(forked.url), honest.verifierKey, early)).size).toBe(12);
      await nine.close();
    } finally {
      await honest.close();
      await forked.close();
    }
  });
});
