/**
 * One in-process tile cache (core's createTileCache) per database handle, shared by whatever
 * serves the log from it (the proof routes and the tile files). A tile of a given width never
 * changes once stored, so the cache is never stale; it is per handle so that two databases in
 * one process (tests, the bench) never see each other's tiles.
 */
import { createTileCache, type Tile, type TileCache } from '@signal/core/log';
import type { Kysely } from 'kysely';
import { readLogTiles } from './log.queries.js';
import type { Database } from './schema.js';

const caches = new WeakMap<Kysely<Database>, TileCache>();

export function logTileCache(db: Kysely<Database>): TileCache {
  let cache = caches.get(db);
  if (!cache) {
    cache = createTileCache();
    caches.set(db, cache);
  }
  return cache;
}

/** The core library's tile reader over the stored tiles: a tile not stored (as wide as asked) throws. */
export const storedLogTiles = (db: Kysely<Database>) => async (tiles: Tile[]) => {
  const data = await readLogTiles(db, tiles);
  return data.map((bytes, i) => {
    if (!bytes)
      throw new Error(`log tile ${tiles[i]!.level}/${tiles[i]!.index} of width ${tiles[i]!.width} is missing`);
    return bytes;
  });
};
