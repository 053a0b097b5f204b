// C2SP tlog-tiles path encoding, and every way a path can be malformed.
import { describe, expect, it } from 'vitest';
import { entriesPath, parseTilePath, tilePath } from '../../src/log/index.js';

describe('tile paths', () => {
  it('encode N in 3-digit groups, all but the last prefixed x, with .p/W only for partial tiles', () => {
    expect(tilePath({ level: 0, index: 0, width: 256 })).toBe('tile/0/000');
    expect(tilePath({ level: 0, index: 1234, width: 5 })).toBe('tile/0/x001/234.p/5');
    expect(tilePath({ level: 2, index: 1_234_067, width: 256 })).toBe('tile/2/x001/x234/067');
    expect(tilePath({ level: 1, index: 999, width: 255 })).toBe('tile/1/999.p/255');
    expect(tilePath({ level: 0, index: 1000, width: 1 })).toBe('tile/0/x001/000.p/1');
    expect(entriesPath(0, 256)).toBe('tile/entries/000');
    expect(entriesPath(273, 112)).toBe('tile/entries/273.p/112');
    expect(entriesPath(1_000_000, 256)).toBe('tile/entries/x001/x000/000');
  });

  it('refuse to write an impossible tile', () => {
    expect(() => tilePath({ level: 0, index: 0, width: 0 })).toThrow(RangeError);
    expect(() => tilePath({ level: 0, index: 0, width: 257 })).toThrow(RangeError);
    expect(() => tilePath({ level: -1, index: 0, width: 1 })).toThrow(RangeError);
    expect(() => tilePath({ level: 0, index: -1, width: 1 })).toThrow(RangeError);
    expect(() => entriesPath(1.5, 1)).toThrow(RangeError);
  });

  it('parse back what they encode', () => {
    for (const index of [0, 1, 999, 1000, 1001, 123_456, 1_234_067, 2 ** 40]) {
      for (const width of [1, 2, 255, 256]) {
        for (const level of [0, 1, 5, 63]) {
          expect(parseTilePath(tilePath({ level, index, width }))).toEqual({ kind: 'hash', level, index, width });
        }
        expect(parseTilePath(entriesPath(index, width))).toEqual({ kind: 'entries', index, width });
      }
    }
  });

  it('accept the last index whose hashes are numbered within safe integers', () => {
    expect(parseTilePath('tile/0/x035/x184/x372/x088/831')).toEqual({
      kind: 'hash',
      level: 0,
      index: 2 ** 45 - 1,
      width: 256,
    });
  });

  it.each([
    ['', 'empty'],
    ['tile', 'no level'],
    ['tile/0', 'no index'],
    ['/tile/0/000', 'leading slash'],
    ['tile/0/000/', 'trailing slash'],
    ['tiles/0/000', 'wrong prefix'],
    ['tile/8/0/000', "Go's path with the height"],
    ['tile/00/000', 'leading zero in the level'],
    ['tile/01/000', 'leading zero in the level'],
    ['tile/64/000', 'level past 63'],
    ['tile/-1/000', 'negative level'],
    ['tile/data/000', "Go's data tiles"],
    ['tile/0/0', 'index not 3 digits'],
    ['tile/0/00', 'index not 3 digits'],
    ['tile/0/0000', 'index of 4 digits'],
    ['tile/0/x000', 'x on the last group'],
    ['tile/0/001/234', 'no x on a leading group'],
    ['tile/0/x000/001', 'leading zero group'],
    ['tile/0/x000/x001/000', 'leading zero group'],
    ['tile/0/xx01/000', 'double x'],
    ['tile/0/x01/234', 'short leading group'],
    ['tile/0/1a3', 'non-digit'],
    ['tile/0/+12', 'sign'],
    ['tile/0/ 12', 'space'],
    ['tile/0/000.p', 'partial without a width'],
    ['tile/0/000.p/', 'empty width'],
    ['tile/0/000.p/0', 'width 0'],
    ['tile/0/000.p/05', 'leading zero in the width'],
    ['tile/0/000.p/256', 'a full tile spelled as partial'],
    ['tile/0/000.p/300', 'width past 256'],
    ['tile/0/000.p/1/2', 'extra element'],
    ['tile/0/000.P/5', 'upper-case P'],
    ['tile/0/000.x/5', 'other suffix'],
    ['tile/0/.p/5', 'no index before .p'],
    ['tile/entries/000.p/256', 'a full bundle spelled as partial'],
    ['tile/entries/x000', 'x on the last group'],
    ['tile/entries', 'no index'],
    ['tile/0/x001/x002/x003/x004/x005/x006/007', 'past a safe integer'],
    ['tile/0/x035/x184/x372/x088/832', 'first hash (256·2^45) past a safe integer'],
  ])('reject %j (%s)', (path) => {
    expect(parseTilePath(path)).toBeNull();
  });
});
