// C2SP tlog-tiles paths: `tile/<L>/<N>[.p/<W>]` and `tile/entries/<N>[.p/<W>]`, where N is written
// in groups of three digits, all but the last prefixed with `x` (1234067 → x001/x234/067).
// Go's Tile.Path is the same encoding with the tile height in the path (`tile/8/0/…`); C2SP's has none.
import { TILE_WIDTH, type Tile } from './tiles.js';

export type ParsedTilePath =
  | { kind: 'hash'; level: number; index: number; width: number }
  | { kind: 'entries'; index: number; width: number };

/** Tile levels a path may name: C2SP's 0..63 (Go's limit too). */
const MAX_LEVEL = 63;

function encodeIndex(index: number): string {
  let n = index;
  let out = String(n % 1000).padStart(3, '0');
  while (n >= 1000) {
    n = Math.floor(n / 1000);
    out = `x${String(n % 1000).padStart(3, '0')}/${out}`;
  }
  return out;
}

function assertTileNumbers(index: number, width: number): void {
  if (!Number.isSafeInteger(index) || index < 0) throw new RangeError(`tile index must be ≥ 0, got ${index}`);
  if (!Number.isSafeInteger(width) || width < 1 || width > TILE_WIDTH) {
    throw new RangeError(`tile width must be 1..256, got ${width}`);
  }
}

function suffix(width: number): string {
  return width === TILE_WIDTH ? '' : `.p/${width}`;
}

/** The path of a hash tile, e.g. `tile/0/x001/234.p/5`. */
export function tilePath(tile: Tile): string {
  assertTileNumbers(tile.index, tile.width);
  if (!Number.isSafeInteger(tile.level) || tile.level < 0 || tile.level > MAX_LEVEL) {
    throw new RangeError(`tile level must be 0..63, got ${tile.level}`);
  }
  return `tile/${tile.level}/${encodeIndex(tile.index)}${suffix(tile.width)}`;
}

/** The path of the entry bundle `index` (entries 256·index …) holding `width` entries. */
export function entriesPath(index: number, width: number): string {
  assertTileNumbers(index, width);
  return `tile/entries/${encodeIndex(index)}${suffix(width)}`;
}

const levelPattern = /^(?:0|[1-9][0-9]?)$/;
const groupPattern = /^x?[0-9]{3}$/;
const widthPattern = /^[1-9][0-9]{0,2}$/;

/**
 * Parses a tile or entry-bundle path (relative to the log's prefix: `tile/…`). Anything but the
 * one canonical spelling of a valid tile is null: no leading zeros, `.p/` widths 1..255 only,
 * levels 0..63, indexes whose hashes are numbered within safe integers.
 */
export function parseTilePath(path: string): ParsedTilePath | null {
  const parts = path.split('/');
  if (parts.length < 3 || parts[0] !== 'tile') return null;
  const levelPart = parts[1]!;
  const isEntries = levelPart === 'entries';
  if (!isEntries && !levelPattern.test(levelPart)) return null;
  const level = isEntries ? 0 : Number(levelPart);
  if (level > MAX_LEVEL) return null;

  let groups = parts.slice(2);
  let width = TILE_WIDTH;
  const last = groups[groups.length - 1]!;
  const beforeLast = groups[groups.length - 2];
  if (beforeLast?.endsWith('.p')) {
    if (!widthPattern.test(last)) return null;
    width = Number(last);
    if (width >= TILE_WIDTH) return null;
    groups = [...groups.slice(0, -2), beforeLast.slice(0, -'.p'.length)];
  }
  // Six groups reach 10^18, past 2^53: more than that cannot be a safe index.
  if (groups.length === 0 || groups.length > 6) return null;
  let index = 0;
  for (const [i, group] of groups.entries()) {
    if (!groupPattern.test(group) || group.startsWith('x') !== i < groups.length - 1) return null;
    index = index * 1000 + Number(group.replace('x', ''));
  }
  // The index's first hash, 256·index, must be a safe integer.
  if (!Number.isSafeInteger(index * TILE_WIDTH)) return null;
  const canonical = isEntries ? entriesPath(index, width) : tilePath({ level, index, width });
  if (canonical !== path) return null;
  return isEntries ? { kind: 'entries', index, width } : { kind: 'hash', level, index, width };
}
