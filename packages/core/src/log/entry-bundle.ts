// C2SP tlog-tiles entry bundles: up to 256 entries, each a big-endian uint16 length then its bytes.
import { TILE_WIDTH } from './tiles.js';

/** The longest entry a bundle can carry (its length is a uint16). */
export const MAX_ENTRY_SIZE = 0xffff;

export class EntryBundleError extends Error {
  override name = 'EntryBundleError';
}

export function encodeEntryBundle(entries: Uint8Array[]): Uint8Array {
  if (entries.length > TILE_WIDTH)
    throw new EntryBundleError(`a bundle holds at most 256 entries, got ${entries.length}`);
  let length = 0;
  for (const entry of entries) {
    if (entry.length > MAX_ENTRY_SIZE)
      throw new EntryBundleError(`an entry is at most 65535 bytes, got ${entry.length}`);
    length += 2 + entry.length;
  }
  const out = new Uint8Array(length);
  let at = 0;
  for (const entry of entries) {
    out[at] = entry.length >> 8;
    out[at + 1] = entry.length & 0xff;
    out.set(entry, at + 2);
    at += 2 + entry.length;
  }
  return out;
}

/**
 * Where each entry of a bundle starts (its bytes are `bytes[start, start + length)`, its
 * big-endian uint16 length the two bytes before): a truncated length or entry, or more than 256
 * entries, throws. Offsets, not copies: the audit reads a million entries without one each.
 */
export function entryBundleOffsets(bytes: Uint8Array): { starts: number[]; lengths: number[] } {
  const starts: number[] = [];
  const lengths: number[] = [];
  let at = 0;
  while (at < bytes.length) {
    if (at + 2 > bytes.length) throw new EntryBundleError(`entry bundle truncated in the length at byte ${at}`);
    const length = (bytes[at]! << 8) | bytes[at + 1]!;
    if (at + 2 + length > bytes.length) {
      throw new EntryBundleError(`entry bundle truncated: entry ${starts.length} needs ${length} bytes`);
    }
    starts.push(at + 2);
    lengths.push(length);
    at += 2 + length;
    if (starts.length > TILE_WIDTH) throw new EntryBundleError('an entry bundle holds at most 256 entries');
  }
  return { starts, lengths };
}

/** Splits a bundle into its entries (copies); a truncated length or entry, or more than 256 entries, throws. */
export function decodeEntryBundle(bytes: Uint8Array): Uint8Array[] {
  const { starts, lengths } = entryBundleOffsets(bytes);
  return starts.map((start, i) => bytes.slice(start, start + lengths[i]!));
}
