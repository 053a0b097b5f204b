// Checkpoints (C2SP tlog-checkpoint) and entry bundles (C2SP tlog-tiles).
import { describe, expect, it } from 'vitest';
import {
  CheckpointError,
  decodeEntryBundle,
  EntryBundleError,
  encodeEntryBundle,
  formatCheckpoint,
  parseCheckpoint,
} from '../../src/log/index.js';

const root = new Uint8Array(32).map((_, i) => i);
const rootB64 = Buffer.from(root).toString('base64');

describe('checkpoints', () => {
  it('are origin, size and base64 root hash, one per line', () => {
    const text = formatCheckpoint({ origin: 'example.com/signals', size: 70_000, rootHash: root });
    expect(text).toBe(`example.com/signals\n70000\n${rootB64}\n`);
    expect(parseCheckpoint(text)).toEqual({
      origin: 'example.com/signals',
      size: 70_000,
      rootHash: root,
      extensions: [],
    });
  });

  it('keep extension lines', () => {
    expect(parseCheckpoint(`o\n1\n${rootB64}\nextra line\n`).extensions).toEqual(['extra line']);
  });

  it.each([
    ['no final newline', `o\n1\n${rootB64}`],
    ['missing root', 'o\n1\n'],
    ['empty origin', `\n1\n${rootB64}\n`],
    ['leading zero size', `o\n01\n${rootB64}\n`],
    ['negative size', `o\n-1\n${rootB64}\n`],
    ['size with a sign', `o\n+1\n${rootB64}\n`],
    ['size past 2^53', `o\n9007199254740993\n${rootB64}\n`],
    ['short hash', `o\n1\n${Buffer.alloc(31).toString('base64')}\n`],
    ['unpadded hash', `o\n1\n${rootB64.replace(/=+$/, '')}\n`],
    ['url-safe hash', `o\n1\n${Buffer.alloc(32, 0xfb).toString('base64url')}=\n`],
    ['empty extension line', `o\n1\n${rootB64}\n\n`],
  ])('reject %s', (_, text) => {
    expect(() => parseCheckpoint(text)).toThrow(CheckpointError);
  });
});

describe('entry bundles', () => {
  it('are each entry as a big-endian uint16 length then its bytes', () => {
    const entries = [new Uint8Array([1, 2, 3]), new Uint8Array(0), new Uint8Array(300).fill(7)];
    const bundle = encodeEntryBundle(entries);
    expect(Array.from(bundle.subarray(0, 7))).toEqual([0, 3, 1, 2, 3, 0, 0]);
    expect(Array.from(bundle.subarray(7, 9))).toEqual([1, 44]);
    expect(bundle.length).toBe(2 + 3 + 2 + 2 + 300);
    expect(decodeEntryBundle(bundle)).toEqual(entries);
    expect(decodeEntryBundle(new Uint8Array(0))).toEqual([]);
    const max = new Uint8Array(65_535).fill(1);
    expect(decodeEntryBundle(encodeEntryBundle([max]))).toEqual([max]);
  });

  it('refuse entries over 65,535 bytes and bundles over 256 entries', () => {
    expect(() => encodeEntryBundle([new Uint8Array(65_536)])).toThrow(EntryBundleError);
    expect(() => encodeEntryBundle(Array.from({ length: 257 }, () => new Uint8Array(1)))).toThrow(EntryBundleError);
    expect(() => decodeEntryBundle(new Uint8Array(257 * 2))).toThrow(EntryBundleError);
  });

  it('reject every truncation', () => {
    const bundle = encodeEntryBundle([new Uint8Array([9, 9]), new Uint8Array([8, 8, 8])]);
    for (let cut = 1; cut < bundle.length; cut++) {
      if (cut === 4) continue; // a cut exactly between two entries is a valid shorter bundle
      expect(() => decodeEntryBundle(bundle.subarray(0, cut)), `cut at ${cut}`).toThrow(EntryBundleError);
    }
    expect(decodeEntryBundle(bundle.subarray(0, 4))).toEqual([new Uint8Array([9, 9])]);
  });
});
