/**
 * The public log's files (CONTRACT.md, "The log"; C2SP tlog-tiles): `/log/checkpoint`, `/log/key`
 * and the tiles under `/log/tile/`. They are files in the C2SP sense, which a static host or a CDN
 * could serve as well: a full tile, and a partial tile of a given width, never change (a tile's
 * first hashes are fixed once written), so both are immutable; the checkpoint moves, so it is
 * cached a moment only.
 *
 * What is served is bounded by the tree's size in the database (every size up to it has a signed
 * checkpoint): a tile or bundle needing more than the tree holds is 404, a path that is not the
 * one canonical spelling of a tile is 404 too (parseTilePath), never 200.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DomainError } from '@signal/core';
import {
  encodeEntryBundle,
  LOG_CHECKPOINT_CACHE,
  LOG_IMMUTABLE_CACHE,
  LOG_KEY_CACHE,
  parseTilePath,
  TILE_HEIGHT,
  TILE_WIDTH,
} from '@signal/core/log';
import { type Database, logTileCache, readLogEntries, readLogSize, storedLogTiles } from '@signal/db';
import type { Kysely } from 'kysely';

type Route = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export const LOG_TILE_PREFIX = '/log/tile/';
const IMMUTABLE = LOG_IMMUTABLE_CACHE;
const CHECKPOINT_CACHE = LOG_CHECKPOINT_CACHE;

export interface LogFiles {
  db: Kysely<Database>;
  /** The newest checkpoint this server has seen (never an older one than it served). */
  checkpoint(): { note: string } | undefined;
  verifierKey: string;
}

function send(res: ServerResponse, type: string, body: string | Uint8Array, cache: string): void {
  res.statusCode = 200;
  res.setHeader('Content-Type', type);
  res.setHeader('Cache-Control', cache);
  res.setHeader('Content-Length', typeof body === 'string' ? Buffer.byteLength(body) : body.length);
  res.end(body);
}

const noTile = (path: string, why: string) => new DomainError('NOT_FOUND', `No log tile ${path}: ${why}`);

/** `/log/tile/…`: a hash tile or an entry bundle as wide as asked, if the tree holds that much. */
async function serveTile(files: LogFiles, pathname: string, res: ServerResponse): Promise<void> {
  const path = pathname.slice('/log/'.length);
  const tile = parseTilePath(path);
  if (!tile) throw noTile(path, 'not a tile path (C2SP tlog-tiles: tile/<L>/<N>[.p/<W>], tile/entries/<N>[.p/<W>])');
  // A hash tile the cache holds was in the tree, and a tile never changes: no database read.
  const cache = logTileCache(files.db);
  const cached = tile.kind === 'hash' ? cache.peek(tile) : undefined;
  if (cached) return send(res, 'application/octet-stream', cached, IMMUTABLE);
  const size = await readLogSize(files.db);
  // How many hashes (or entries) of this tile the tree holds.
  const count = tile.kind === 'hash' ? Math.floor(size / 2 ** (TILE_HEIGHT * tile.level)) : size;
  const available = Math.min(TILE_WIDTH, count - tile.index * TILE_WIDTH);
  if (tile.width > available) throw noTile(path, `the log holds ${size} entries`);
  if (tile.kind === 'entries') {
    const entries = await readLogEntries(files.db, tile.index * TILE_WIDTH, tile.width);
    if (entries.length !== tile.width) throw new Error(`log entries of bundle ${path} are missing`);
    send(res, 'application/octet-stream', encodeEntryBundle(entries), IMMUTABLE);
    return;
  }
  const [data] = await cache.tiles([tile], storedLogTiles(files.db));
  send(res, 'application/octet-stream', data!, IMMUTABLE);
}

export function logFileRoutes(files: LogFiles): { routes: Record<string, Route>; tiles: Route } {
  return {
    routes: {
      '/log/checkpoint': async (_req, res) => {
        const checkpoint = files.checkpoint();
        if (!checkpoint)
          throw new DomainError('SERVICE_UNAVAILABLE', 'The log has no checkpoint yet: the database is not answering');
        send(res, 'text/plain; charset=utf-8', checkpoint.note, CHECKPOINT_CACHE);
      },
      '/log/key': async (_req, res) => send(res, 'text/plain; charset=utf-8', files.verifierKey, LOG_KEY_CACHE),
    },
    tiles: (req, res) => serveTile(files, new URL(req.url ?? '/', 'http://host').pathname, res),
  };
}
