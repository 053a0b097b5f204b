/**
 * A stand-in log server for tests of log readers (the Go check, the SDK's log client): it serves
 * `/log/*` as the contract words it, from tiles, bundles, proofs and a checkpoint made by
 * @signal/core/log. Not the service's server (apps/api): a fixture to hold the library to readers
 * written elsewhere, and to show those readers fail on a tampered log.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  appendLeaves,
  consistencyProof,
  encodeEntryBundle,
  inclusionProof,
  leafHash,
  noteSigner,
  parseTilePath,
  signCheckpoint,
  type Tile,
  tileHashes,
  toBase64,
} from '@signal/core/log';

export interface LogFixture {
  url: string;
  origin: string;
  verifierKey: string;
  size: number;
  /** Tile rows as a server stores them: `level/index` → the widest data so far. */
  rows: Map<string, Uint8Array>;
  /** From now on, sign checkpoints with this seed instead of the log's key (an impostor). */
  signWith(seed: Uint8Array): void;
  close(): Promise<void>;
}

const decimal = /^(?:0|[1-9][0-9]{0,15})$/;

function intParam(params: URLSearchParams, name: string): number | null {
  const value = params.get(name);
  return value !== null && decimal.test(value) ? Number(value) : null;
}

/** Starts the fixture on 127.0.0.1 with `entries` appended in batches of `batch`. */
export async function startLogFixture(options: {
  entries: Uint8Array[];
  seed: Uint8Array;
  origin?: string;
  batch?: number;
  /** Answers a path outside `/log/` (e.g. a provider's signal list, for the audit's bench); false: 404. */
  other?: (req: IncomingMessage, res: ServerResponse) => boolean;
}): Promise<LogFixture> {
  const origin = options.origin ?? 'localhost/signals';
  const rows = new Map<string, Uint8Array>();
  const entries = options.entries;
  let size = 0;
  let rootHash: Uint8Array = new Uint8Array(0);
  const batch = options.batch ?? 1000;
  do {
    const next = entries.slice(size, size + batch).map(leafHash);
    const result = appendLeaves(
      size,
      (level) => tileHashes(rows.get(`${level}/${Math.floor(size / 256 ** (level + 1))}`)!),
      next,
    );
    for (const { tile, data } of result.tiles) rows.set(`${tile.level}/${tile.index}`, data);
    size = result.size;
    rootHash = result.rootHash;
  } while (size < entries.length);

  let signer = noteSigner(origin, options.seed);
  const verifierKey = signer.verifierKey;
  const readTiles = async (tiles: Tile[]) =>
    tiles.map((t) => {
      const row = rows.get(`${t.level}/${t.index}`);
      if (!row || row.length < t.width * 32) throw new Error(`no tile ${t.level}/${t.index}`);
      return row.slice(0, t.width * 32);
    });

  const server: Server = createServer((req, res) => {
    const answer = (status: number, type: string, body: string | Uint8Array) => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    const url = new URL(req.url ?? '/', 'http://fixture');
    const json = (body: unknown) => answer(200, 'application/json', JSON.stringify(body));
    const bad = (message: string) => answer(400, 'application/json', JSON.stringify({ error: { message } }));
    (async () => {
      if (url.pathname === '/log/checkpoint') {
        return answer(200, 'text/plain; charset=utf-8', signCheckpoint({ origin, size, rootHash }, signer));
      }
      if (url.pathname === '/log/key') return answer(200, 'text/plain; charset=utf-8', verifierKey);
      if (url.pathname === '/log/proof/inclusion') {
        const index = intParam(url.searchParams, 'index');
        const at = intParam(url.searchParams, 'size');
        if (index === null || at === null || index >= at || at > size)
          return bad('need 0 ≤ index < size ≤ the tree size');
        const proof = await inclusionProof(index, at, readTiles);
        return json({ index, size: at, leafHash: toBase64(leafHash(entries[index]!)), proof: proof.map(toBase64) });
      }
      if (url.pathname === '/log/proof/consistency') {
        const from = intParam(url.searchParams, 'from');
        const to = intParam(url.searchParams, 'to');
        if (from === null || to === null || from < 1 || from > to || to > size)
          return bad('need 1 ≤ from ≤ to ≤ the tree size');
        return json({ from, to, proof: (await consistencyProof(from, to, readTiles)).map(toBase64) });
      }
      const tile = url.pathname.startsWith('/log/') ? parseTilePath(url.pathname.slice('/log/'.length)) : null;
      if (tile?.kind === 'entries') {
        const start = tile.index * 256;
        if (start + tile.width > size) return answer(404, 'text/plain', 'beyond the tree');
        return answer(200, 'application/octet-stream', encodeEntryBundle(entries.slice(start, start + tile.width)));
      }
      if (tile?.kind === 'hash') {
        const row = rows.get(`${tile.level}/${tile.index}`);
        if (!row || row.length < tile.width * 32) return answer(404, 'text/plain', 'beyond the tree');
        return answer(200, 'application/octet-stream', row.slice(0, tile.width * 32));
      }
      if (!url.pathname.startsWith('/log/') && options.other?.(req, res)) return;
      return answer(404, 'text/plain', 'not found');
    })().catch((error: Error) => answer(500, 'text/plain', error.message));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    origin,
    verifierKey,
    size,
    rows,
    signWith(seed) {
      signer = noteSigner(origin, seed);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
