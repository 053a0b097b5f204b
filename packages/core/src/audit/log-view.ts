/**
 * The log read whole over HTTP and checked against its signed checkpoint: every entry bundle,
 * every tile, the root recomputed from the entries (so each entry is proven in the checkpoint,
 * in its place), and each entry filed under its provider. Browser-safe: fetch only.
 */
import { bytesEqual, fromUtf8, toBase64 } from '../log/bytes.js';
import { type Checkpoint, CheckpointError } from '../log/checkpoint.js';
import { entryBundleOffsets } from '../log/entry-bundle.js';
import { HASH_SIZE } from '../log/hash.js';
import { NoteError, type NoteVerifier, parseVerifierKey } from '../log/note.js';
import { openCheckpoint } from '../log/signed-checkpoint.js';
import { entriesPath, tilePath } from '../log/tile-path.js';
import { TILE_WIDTH } from '../log/tiles.js';
import { get, getBytes, HttpError, pool } from './http.js';
import { type AuditFailure, type CheckpointSummary, failure } from './report.js';
import { type AuditCrypto, hashInto, nobleCrypto } from './signatures.js';
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
  /** The SHA-256 to hash the tree with (default @noble's). */
  crypto?: AuditCrypto;
  /**
   * Keep only this provider's entries in `byProvider` (every entry is still read, hashed and
   * parsed: the check that each is a JSON object naming a provider holds for all of them).
   */
  provider?: number;
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
  byProvider: Map<number, ProviderEntry[]>;
  /** Milliseconds spent per step. */
  timings: { fetchEntries: number; fetchTiles: number; hashing: number; parsing: number };
}

export function summary(checkpoint: Checkpoint): CheckpointSummary {
  return { origin: checkpoint.origin, size: checkpoint.size, rootHash: toBase64(checkpoint.rootHash) };
}

export type ProviderEntry = { index: number; entry: Record<string, unknown>; text: string };

/**
 * Entries `first`…`first + count - 1` parsed: each must be a JSON object naming a provider (the
 * index of one that is not goes to `malformed`); those of `provider` (of every provider when it
 * is undefined) are kept, in order.
 */
function fileEntries(
  entries: Uint8Array[],
  first: number,
  count: number,
  provider: number | undefined,
  malformed: number[],
): ProviderEntry[] {
  const kept: ProviderEntry[] = [];
  for (let i = first; i < first + count; i++) {
    let text = '';
    let entry: unknown;
    try {
      text = fromUtf8(entries[i]!);
      entry = JSON.parse(text);
    } catch {
      // Not UTF-8, or not JSON.
      entry = null;
    }
    const named = (entry as { provider?: unknown } | null)?.provider;
    if (
      typeof entry !== 'object' ||
      entry === null ||
      Array.isArray(entry) ||
      !Number.isSafeInteger(named) ||
      (named as number) < 1
    ) {
      malformed.push(i);
      continue;
    }
    if (provider === undefined || named === provider) {
      kept.push({ index: i, entry: entry as Record<string, unknown>, text });
    }
  }
  return kept;
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

  // Every entry, bundle by bundle, hashed and parsed as its bundle arrives (while the next ones
  // are on their way): an entry is a view into its bundle, never a copy; its leaf hash is taken
  // over the bundle's own bytes, the length byte before the entry overwritten with 0x00 (read
  // already), and written straight into the leaf row.
  let started = now();
  const bundles = Math.ceil(size / TILE_WIDTH);
  const entries: Uint8Array[] = new Array(size);
  const leaves = new Uint8Array(size * HASH_SIZE);
  const hash = hashInto(options.crypto ?? nobleCrypto);
  const kept: ProviderEntry[][] = new Array(bundles);
  const malformed: number[] = [];
  let fetched = 0;
  let hashing = 0;
  let parsing = 0;
  try {
    await pool(bundles, limit, async (n) => {
      const width = Math.min(TILE_WIDTH, size - n * TILE_WIDTH);
      const url = `${base}/log/${entriesPath(n, width)}`;
      let bytes: Uint8Array;
      let offsets: { starts: number[]; lengths: number[] };
      try {
        bytes = await getBytes(fetchImpl, url);
        offsets = entryBundleOffsets(bytes);
      } catch (error) {
        throw new HttpError(error instanceof HttpError ? error.message : `${url}: ${(error as Error).message}`);
      }
      if (offsets.starts.length < width) throw new HttpError(`${url}: ${offsets.starts.length} entries, want ${width}`);
      let at = now();
      const first = n * TILE_WIDTH;
      for (let i = 0; i < width; i++) {
        const start = offsets.starts[i]!;
        const end = start + offsets.lengths[i]!;
        entries[first + i] = bytes.subarray(start, end);
        bytes[start - 1] = 0x00;
        hash(bytes.subarray(start - 1, end), leaves, (first + i) * HASH_SIZE);
      }
      const hashed = now();
      hashing += hashed - at;
      at = hashed;
      kept[n] = fileEntries(entries, first, width, options.provider, malformed);
      parsing += now() - at;
      fetched++;
      if (fetched % 64 === 0 || fetched === bundles) {
        options.onProgress?.({ phase: 'entries', done: Math.min(fetched * TILE_WIDTH, size), total: size });
      }
    });
  } catch (error) {
    view.failures.push(failure('entries-unavailable', (error as Error).message));
    return view;
  }
  view.timings.fetchEntries = now() - started - hashing - parsing;

  // The tree from the entries: its root must be the checkpoint's.
  started = now();
  const tree = computeTree(leaves, hash);
  view.timings.hashing = hashing + now() - started;
  view.timings.parsing = parsing;
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

  // Each entry under its provider (parsed as it arrived; filed once the tree holds).
  malformed.sort((a, b) => a - b);
  for (const i of malformed) {
    view.failures.push(
      failure('entry-malformed', `entry ${i} is not a JSON object naming a provider`, { logIndex: i }),
    );
  }
  for (const list of kept) {
    for (const item of list) {
      const mine = view.byProvider.get(item.entry.provider as number) ?? [];
      view.byProvider.set(item.entry.provider as number, mine);
      mine.push(item);
    }
  }
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
