// An in-memory tile store for the tests, kept the way the server keeps its tables: one row per
// (level, index), a partial tile replaced as it grows, reads sliced down to the width asked.
import { appendLeaves, type Tile, type TileReader, tileHashes } from '../../src/log/index.js';

export class MemoryTileStore {
  size = 0;
  rootHash: Uint8Array = new Uint8Array(32);
  readonly rows = new Map<string, Uint8Array>();
  reads = 0;

  append(leafHashes: Uint8Array[]): void {
    const result = appendLeaves(
      this.size,
      (level) => {
        const count = Math.floor(this.size / 256 ** level);
        const row = this.rows.get(`${level}/${Math.floor(count / 256)}`);
        if (row === undefined) throw new Error(`no right edge at level ${level}`);
        return tileHashes(row);
      },
      leafHashes,
    );
    for (const { tile, data } of result.tiles) this.rows.set(`${tile.level}/${tile.index}`, data);
    this.size = result.size;
    this.rootHash = result.rootHash;
  }

  readTiles: TileReader = async (tiles: Tile[]) => {
    this.reads++;
    return tiles.map((tile) => {
      const row = this.rows.get(`${tile.level}/${tile.index}`);
      if (row === undefined || row.length < tile.width * 32)
        throw new Error(`tile ${tile.level}/${tile.index} missing`);
      return row.slice(0, tile.width * 32);
    });
  };
}
