// Byte helpers for the log, written for browsers and Node alike (no Buffer, no node: imports).

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

export function utf8(text: string): Uint8Array {
  return utf8Encoder.encode(text);
}

/** Decodes UTF-8, throwing on invalid sequences (a note with bad UTF-8 is malformed, not "repaired"). */
export function fromUtf8(bytes: Uint8Array): string {
  return utf8Decoder.decode(bytes);
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** Standard, padded base64 (RFC 4648 §4), as Go's base64.StdEncoding and C2SP's formats use. */
export function toBase64(bytes: Uint8Array): string {
  // By table, three bytes at a time: a proof encodes 20-odd hashes per request, and building a
  // binary string for btoa cost more than the proof's own math.
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += BASE64[(n >> 18) & 63]! + BASE64[(n >> 12) & 63]! + BASE64[(n >> 6) & 63]! + BASE64[n & 63]!;
  }
  if (bytes.length - i === 1) {
    const n = bytes[i]! << 16;
    out += `${BASE64[(n >> 18) & 63]}${BASE64[(n >> 12) & 63]}==`;
  } else if (bytes.length - i === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += `${BASE64[(n >> 18) & 63]}${BASE64[(n >> 12) & 63]}${BASE64[(n >> 6) & 63]}=`;
  }
  return out;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Strict standard base64: padding required, no white space, and only the canonical spelling
 * (unused bits zero), so one value has one encoding. Returns null when the text is not base64.
 */
export function fromBase64(text: string): Uint8Array | null {
  if (!base64Pattern.test(text)) return null;
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return toBase64(bytes) === text ? bytes : null;
}

export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}
