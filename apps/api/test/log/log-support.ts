/**
 * What the log's tests share: reading the served log over HTTP only (checkpoint, tiles, bundles,
 * proofs) and checking it with the core library's verifier (@signal/core/log: note signatures,
 * tile hashes, RFC 9162 proof checks) and with Go's (verifyLogWithGo), and appending many
 * entries at once through the db function the service's writes use.
 */

import {
  type Checkpoint,
  checkConsistency,
  checkInclusion,
  decodeEntryBundle,
  entriesPath,
  fromBase64,
  leafHash,
  openCheckpoint,
  TILE_WIDTH,
  type Tile,
  tilePath,
  treeHash,
} from '@signal/core/log';
import { appendLogEntries, type DatabaseHandle } from '@signal/db';
import { verifyLogWithGo } from '@signal/test-support';
import { expect } from 'vitest';
import { resentOnReset } from '../harness.js';

/** The log's files as /openapi.json templates them (text and bytes, not JSON). */
export const LOG_FILE_TEMPLATES = [
  '/log/checkpoint',
  '/log/key',
  '/log/tile/{L}/{N}',
  '/log/tile/{L}/{N}.p/{W}',
  '/log/tile/entries/{N}',
  '/log/tile/entries/{N}.p/{W}',
];

export interface SeenCheckpoint extends Checkpoint {
  note: string;
}

const bytes = async (res: Response) => new Uint8Array(await res.arrayBuffer());

/** `GET /log/key`. */
export async function fetchVerifierKey(url: string): Promise<string> {
  const res = await resentOnReset(() => fetch(`${url}/log/key`));
  expect(res.status).toBe(200);
  return res.text();
}

/** `GET /log/checkpoint`, opened with the verifier key (a bad signature throws). */
export async function fetchCheckpoint(url: string, key: string): Promise<SeenCheckpoint> {
  const res = await resentOnReset(() => fetch(`${url}/log/checkpoint`));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  const note = await res.text();
  return { ...openCheckpoint(note, key), note };
}

/** Polls `GET /log/checkpoint` until its size is at least `size`; bounded. */
export async function checkpointOfSize(url: string, key: string, size: number, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const checkpoint = await fetchCheckpoint(url, key);
    if (checkpoint.size >= size) return checkpoint;
    if (Date.now() > deadline)
      throw new Error(`no checkpoint of size ${size} within ${timeoutMs} ms (at ${checkpoint.size})`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A tile reader over HTTP, as a monitor reads the log. */
export const httpTiles =
  (url: string) =>
  async (tiles: Tile[]): Promise<Uint8Array[]> =>
    Promise.all(
      tiles.map(async (tile) => {
        const res = await resentOnReset(() => fetch(`${url}/log/${tilePath(tile)}`));
        expect(res.status, tilePath(tile)).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/octet-stream');
        return bytes(res);
      }),
    );

/** The GET's status (and body bytes). */
export async function get(url: string, path: string): Promise<{ status: number; body: Uint8Array; res: Response }> {
  const res = await resentOnReset(() => fetch(`${url}${path}`));
  return { status: res.status, body: await bytes(res), res };
}

/**
 * The whole served log against `expected` (every entry, in order): the checkpoint's root is the
 * tree hash of the served tiles, every entry bundle holds exactly the entries, the inclusion
 * proofs of `probes` check against the root with the entries' own leaf hashes.
 */
export async function expectServedLog(
  url: string,
  checkpoint: Checkpoint,
  expected: readonly Uint8Array[],
  probes: readonly number[],
): Promise<void> {
  const { size } = checkpoint;
  expect(size).toBe(expected.length);
  expect(Buffer.from(await treeHash(size, httpTiles(url))).toString('base64')).toBe(
    Buffer.from(checkpoint.rootHash).toString('base64'),
  );
  const bundles = Math.ceil(size / TILE_WIDTH);
  for (let start = 0; start < bundles; start += 32) {
    await Promise.all(
      Array.from({ length: Math.min(32, bundles - start) }, async (_, i) => {
        const n = start + i;
        const width = Math.min(TILE_WIDTH, size - n * TILE_WIDTH);
        const res = await get(url, `/log/${entriesPath(n, width)}`);
        expect(res.status, entriesPath(n, width)).toBe(200);
        const entries = decodeEntryBundle(res.body);
        expect(entries.length).toBe(width);
        const wanted = expected.slice(n * TILE_WIDTH, n * TILE_WIDTH + width);
        const same = entries.every((entry, j) => Buffer.from(entry).equals(Buffer.from(wanted[j]!)));
        expect(same, `${entriesPath(n, width)} holds other entries`).toBe(true);
      }),
    );
  }
  for (const index of probes) {
    const res = await resentOnReset(() => fetch(`${url}/log/proof/inclusion?index=${index}&size=${size}`));
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { index: number; size: number; leafHash: string; proof: string[] };
    const leaf = leafHash(expected[index]!);
    expect(answer).toMatchObject({ index, size, leafHash: Buffer.from(leaf).toString('base64') });
    const proof = answer.proof.map((h) => fromBase64(h)!);
    expect(checkInclusion(proof, size, checkpoint.rootHash, index, leaf)).toBe(true);
    // The same proof does not prove another entry there.
    expect(checkInclusion(proof, size, checkpoint.rootHash, index, leafHash(new Uint8Array([1, 2, 3])))).toBe(false);
  }
}

/** The served consistency proof from `older` to `newer` checks against both roots. */
export async function expectConsistent(url: string, older: Checkpoint, newer: Checkpoint): Promise<void> {
  if (older.size === 0) return;
  const res = await resentOnReset(() => fetch(`${url}/log/proof/consistency?from=${older.size}&to=${newer.size}`));
  expect(res.status).toBe(200);
  const answer = (await res.json()) as { from: number; to: number; proof: string[] };
  expect(answer.from).toBe(older.size);
  const proof = answer.proof.map((h) => fromBase64(h)!);
  if (older.size === newer.size) expect(proof).toEqual([]);
  expect(checkConsistency(proof, newer.size, newer.rootHash, older.size, older.rootHash)).toBe(true);
}

/**
 * The served log at `checkpoint` checked twice over, on the same proofs: by the core library
 * (expectServedLog with the inclusion proofs of `probes`, and each of `olders` consistent with
 * it) and, independently, by Go's sumdb/tlog and sumdb/note (verifyLogWithGo), whose summary
 * must name the same origin, size, root and number of proofs.
 */
export async function expectLogVerifiedTwice(
  url: string,
  key: string,
  checkpoint: Checkpoint,
  expected: readonly Uint8Array[],
  probes: readonly number[],
  olders: readonly Checkpoint[],
): Promise<void> {
  const { size } = checkpoint;
  await expectServedLog(url, checkpoint, expected, probes);
  for (const older of olders) await expectConsistent(url, older, checkpoint);
  // An empty tree is a prefix of any (expectConsistent skips it too): Go's check takes sizes from 1.
  const consistency = olders.filter((older) => older.size > 0).map((older) => ({ from: older.size, to: size }));
  const summary = await verifyLogWithGo(url, key, {
    inclusion: probes.map((index) => ({ index, size })),
    consistency,
  });
  expect(summary).toMatchObject({
    origin: checkpoint.origin,
    size,
    entries: size,
    rootHash: Buffer.from(checkpoint.rootHash).toString('base64'),
    inclusionProofs: probes.length,
    consistencyProofs: consistency.length,
  });
}

/** Test entries: canonical JSON like the service's own. */
export function testEntries(from: number, count: number, tag: string): Uint8Array[] {
  return Array.from({ length: count }, (_, i) =>
    new TextEncoder().encode(JSON.stringify({ n: from + i, tag, type: 'test.entry', v: 1 })),
  );
}

/** Accepts `entries` through the db function, in transactions of up to 10,000. */
export async function appendInBulk(database: DatabaseHandle, entries: readonly Uint8Array[]): Promise<void> {
  for (let at = 0; at < entries.length; at += 10_000) {
    await database.db.transaction().execute((trx) => appendLogEntries(trx, entries.slice(at, at + 10_000)));
  }
}
