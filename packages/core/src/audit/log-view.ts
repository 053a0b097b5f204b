/**
 * The log read whole over HTTP and checked against its signed checkpoint: every entry bundle,
 * every tile, the root recomputed from the entries (so each entry is proven in the checkpoint,
 * in its place), and each entry filed under its provider. Browser-safe: fetch only.
 */
import { bytesEqual, fromUtf8, toBase64 } from '../log/bytes.js';
import { type Checkpoint, CheckpointError } from '../log/checkpoint.js';
import { decodeEntryBundle } from '../log/entry-bundle.js';
import { HASH_SIZE, leafHash } from '../log/hash.js';
import { NoteError, type NoteVerifier, parseVerifierKey } from '../log/note.js';
import { openCheckpoint } from '../log/signed-checkpoint.js';
import { entriesPath, tilePath } from '../log/tile-path.js';
import { TILE_WIDTH } from '../log/tiles.js';
import { type AuditFailure, type CheckpointSummary, failure } from './report.js';
import { type ComputedTree, computeTree } from './tree.js';

export interface AuditProgress {
  phase: 'entries' | 'tiles' | 'signals' | 'statements';
  done: number;
  total: number;
}

export interface ReadLogOptions {
  /** The service's base URL (the log is under `/log/`). */
  url: string;
  /** The log's verifier key, pinned (never the one the server states). */
  logKey: string | NoteVerifier;
  fetch?: typeof fetch;
  onProgress?: (progress: AuditProgress) => void;
  /** Requests in flight at once (default 8). */
  concurrency?: number;
}

export interface LogView {
  url: string;
  verifier: NoteVerifier;
  /** The signed checkpoint as served, and opened; null when it did not open. */
  note: string | null;
  checkpoint: Checkpoint | null;
  /** Failures of the log itself: when any, nothing read from it is proven. */
  failures: AuditFailure[];
  tree: ComputedTree | null;
  /** Entry i's bytes (empty when the log failed before its entries were read). */
  entries: Uint8Array[];
  /** Each provider's entries: the log indexes, in order, with the parsed entry. */
  byProvider: Map<number, { index: number; entry: Record<string, unknown>; text: string }[]>;
  /** Milliseconds spent per step. */
  timings: { fetchEntries: number; fetchTiles: number; hashing: number; parsing: number };
}

export function summary(checkpoint: Checkpoint): CheckpointSummary {
  return { origin: checkpoint.origin, size: checkpoint.size, rootHash: toBase64(checkpoint.rootHash) };
}

class HttpError extends Error {}

async function get(fetchImpl: typeof fetch, url: string): Promise<Response> {
  let response: Response;
  try {
    response = await fetchImpl(url);
  } catch (error) {
    throw new HttpError(`${url}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new HttpError(`${url}: HTTP ${response.status}`);
  }
  return response;
}

async function getBytes(fetchImpl: typeof fetch, url: string): Promise<Uint8Array> {
  return new Uint8Array(await (await get(fetchImpl, url)).arrayBuffer());
}

/** Runs `work` on 0..count-1 with at most `limit` at once; the first error stops it. */
async function pool(count: number, limit: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const run = async () => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, run));
}

const now = () => (typeof performance === 'undefined' ? Date.now() : performance.now());

/** Reads the checkpoint, then (when it opens) every entry and tile, checking each against it. */
export async function readLog(options: ReadLogOptions): Promise<LogView> {
  const fetchImpl: typeof fetch = (input, init) => (options.fetch ?? globalThis.fetch)(input, init);
  const base = options.url.replace(/\/+$/, '');
  const verifier = typeof options.logKey === 'string' ? parseVerifierKey(options.logKey) : options.logKey;
  const limit = options.concurrency ?? 8;
  const view: LogView = {
    url: base,
    verifier,
    note: null,
    checkpoint: null,
    failures: [],
    tree: null,
    entries: [],
    byProvider: new Map(),
    timings: { fetchEntries: 0, fetchTiles: 0, hashing: 0, parsing: 0 },
  };
  let note: string;
  try {
    note = await (await get(fetchImpl, `${base}/log/checkpoint`)).text();
  } catch (error) {
    view.failures.push(failure('log-unreachable', (error as Error).message));
    return view;
  }
  try {
    view.checkpoint = openCheckpoint(note, verifier);
    view.note = note;
  } catch (error) {
    if (!(error instanceof NoteError || error instanceof CheckpointError)) throw error;
    view.failures.push(failure('checkpoint-signature', `the checkpoint does not open with the key: ${error.message}`));
    return view;
  }
  const size = view.checkpoint.size;

  // Every entry, bundle by bundle.
  let started = now();
  const bundles = Math.ceil(size / TILE_WIDTH);
  const entries: Uint8Array[] = new Array(size);
  let fetched = 0;
  try {
    await pool(bundles, limit, async (n) => {
      const width = Math.min(TILE_WIDTH, size - n * TILE_WIDTH);
      const url = `${base}/log/${entriesPath(n, width)}`;
      let decoded: Uint8Array[];
      try {
        decoded = decodeEntryBundle(await getBytes(fetchImpl, url));
      } catch (error) {
        throw new HttpError(error instanceof HttpError ? error.message : `${url}: ${(error as Error).message}`);
      }
      if (decoded.length < width) throw new HttpError(`${url}: ${decoded.length} entries, want ${width}`);
      for (let i = 0; i < width; i++) entries[n * TILE_WIDTH + i] = decoded[i]!;
      fetched++;
      if (fetched % 64 === 0 || fetched === bundles) {
        options.onProgress?.({ phase: 'entries', done: Math.min(fetched * TILE_WIDTH, size), total: size });
      }
    });
  } catch (error) {
    view.failures.push(failure('entries-unavailable', (error as Error).message));
    return view;
  }
  view.timings.fetchEntries = now() - started;

  // The tree from the entries: its root must be the checkpoint's.
  started = now();
  const leaves = new Uint8Array(size * HASH_SIZE);
  for (let i = 0; i < size; i++) leaves.set(leafHash(entries[i]!), i * HASH_SIZE);
  const tree = computeTree(leaves);
  view.timings.hashing = now() - started;
  if (!bytesEqual(tree.rootAt(size), view.checkpoint.rootHash)) {
    view.failures.push(
      failure(
        'tree-root',
        `the ${size} entries served hash to another root than the checkpoint's: an entry was changed, dropped, added or moved`,
      ),
    );
    return view;
  }
  view.tree = tree;
  view.entries = entries;

  // Every tile the log serves for this tree, compared with the entries' hashes.
  started = now();
  const tiles = tree.tiles();
  let compared = 0;
  const wrong: string[] = [];
  try {
    await pool(tiles.length, limit, async (i) => {
      const tile = tiles[i]!;
      const data = await getBytes(fetchImpl, `${base}/log/${tilePath(tile)}`);
      if (!bytesEqual(data, tree.tileData(tile))) wrong.push(tilePath(tile));
      compared++;
      if (compared % 64 === 0 || compared === tiles.length) {
        options.onProgress?.({ phase: 'tiles', done: compared, total: tiles.length });
      }
    });
  } catch (error) {
    view.failures.push(failure('tile-mismatch', `a tile could not be read: ${(error as Error).message}`));
  }
  if (wrong.length > 0) {
    view.failures.push(
      failure(
        'tile-mismatch',
        `${wrong.length} served tile(s) differ from the entries' hashes: ${wrong.sort().slice(0, 5).join(', ')}`,
      ),
    );
  }
  view.timings.fetchTiles = now() - started;

  // Each entry under its provider.
  started = now();
  for (let i = 0; i < size; i++) {
    const text = fromUtf8(entries[i]!);
    let entry: unknown;
    try {
      entry = JSON.parse(text);
    } catch {
      entry = null;
    }
    const provider = (entry as { provider?: unknown } | null)?.provider;
    if (
      typeof entry !== 'object' ||
      entry === null ||
      Array.isArray(entry) ||
      !Number.isSafeInteger(provider) ||
      (provider as number) < 1
    ) {
      view.failures.push(
        failure('entry-malformed', `entry ${i} is not a JSON object naming a provider`, { logIndex: i }),
      );
      continue;
    }
    const list = view.byProvider.get(provider as number) ?? [];
    view.byProvider.set(provider as number, list);
    list.push({ index: i, entry: entry as Record<string, unknown>, text });
  }
  view.timings.parsing = now() - started;
  return view;
}

/**
 * Is `earlier` (a signed checkpoint kept from before) a prefix of the view's tree? The kept note
 * is opened with the same key; its root must be the root of the view's first `size` entries.
 */
export function checkEarlierCheckpoint(view: LogView, earlier: string | Checkpoint): AuditFailure[] {
  if (!view.tree || !view.checkpoint) return [];
  let kept: Checkpoint;
  try {
    kept = typeof earlier === 'string' ? openCheckpoint(earlier, view.verifier) : earlier;
  } catch (error) {
    return [
      failure(
        'checkpoint-signature',
        `the checkpoint kept from before does not open with the key: ${(error as Error).message}`,
      ),
    ];
  }
  if (kept.origin !== view.checkpoint.origin) {
    return [
      failure('log-forked', `the checkpoint kept is of log ${kept.origin}, today's of ${view.checkpoint.origin}`),
    ];
  }
  if (kept.size > view.checkpoint.size) {
    return [failure('log-shrank', `the log has ${view.checkpoint.size} entries, ${kept.size} were seen before`)];
  }
  if (!bytesEqual(view.tree.rootAt(kept.size), kept.rootHash)) {
    return [
      failure(
        'log-forked',
        `today's first ${kept.size} entries hash to another root than the checkpoint kept: the log forked (its history was rewritten)`,
      ),
    ];
  }
  return [];
}
