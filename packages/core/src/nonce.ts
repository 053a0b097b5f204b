/**
 * Self-authenticating sign-in nonces: issuing one writes nothing anywhere. A nonce carries its
 * random bits and its expiry, and a MAC (HMAC-SHA-256, truncated to 128 bits) over a canonical
 * encoding of everything it binds, under a secret derived from the JWT signing key; so every
 * server holding that key issues and checks the same nonces, and no one can mint one or move
 * one to another wallet. Single use is the database's job, and only once a sign-in succeeds
 * (see `recordNonceUseAndLogin` in @signal/db).
 *
 * Server only (node:crypto). Nothing here reads a clock or a database: the caller passes both.
 *
 * ## The record and its encoding (the extension point)
 *
 * What a nonce binds is one record, `NonceRecord`, described field by field in `FIELDS`.
 * Each field has a one-byte tag, a byte encoding, and a place:
 * - **carried** fields travel inside the nonce and `open` hands them back (the random bits,
 *   the expiry);
 * - **bound** fields do not travel: the verifier supplies them again (the wallet, from the
 *   verify request), so the nonce opens only for the same value.
 * The MAC input is `"signal-auth-nonce" ‖ version ‖ field*`, each field `tag (u8) ‖ length
 * (u16, big-endian) ‖ bytes`, in ascending tag order, carried and bound alike; an optional
 * field left undefined is absent (and must be absent again when opening). The nonce is
 * `version (u8) ‖ carried field* ‖ mac (16 bytes)`, each carried field `tag ‖ length (u8) ‖
 * bytes`, in base62 (fixed width per byte length, so every nonce has exactly one spelling).
 *
 * To bind more (a message format, chain id, domain, issue time, as SIWE/SIWS need): add the
 * field to `NonceRecord` and an entry with a new tag to `FIELDS` (TypeScript insists on both),
 * carried if the verifier must learn it from the nonce, bound if it knows it anyway. Nonces
 * issued before keep opening as long as the new field is optional; bump `NONCE_VERSION` only
 * for a change that would read old nonces differently.
 */
import { createHmac, createPrivateKey, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { isSignInDomain } from './sign-in-message.js';

export const NONCE_VERSION = 1;
/** 128 random bits per nonce, the contract's minimum. */
export const NONCE_RANDOM_BYTES = 16;
/** HMAC-SHA-256 truncated to 128 bits: forging one takes 2^128 guesses. */
const MAC_BYTES = 16;
const MAC_CONTEXT = Buffer.from('signal-auth-nonce', 'utf8');
/** The longest nonce `open` looks at: far above any record, far below the request limits. */
const MAX_NONCE_CHARS = 512;

/** Everything a nonce binds. See the file comment for how to add a field. */
export interface NonceRecord {
  /** 128 bits from the CSPRNG: what makes each nonce unique. Carried. */
  random: Uint8Array;
  /** Milliseconds since the epoch, the end of its life. Carried. */
  expiresAt: number;
  /** The canonical wallet it was issued for. Bound: the verify request names it. */
  wallet: string;
  /**
   * The sign-in message it was issued with (`sign-in-message.ts`); absent: the plain message.
   * Carried, as are the three below: verify rebuilds the exact text from them.
   */
  format?: 'siwe' | 'siws';
  /** The Chain ID line: an EIP-155 chain id in decimal (siwe), a cluster name (siws). */
  chainId?: string;
  /** host[:port] of the site the message names. */
  domain?: string;
  /** Milliseconds since the epoch: the message's Issued At. */
  issuedAt?: number;
  /**
   * `link`: the nonce links a wallet to a signed-in user (POST /me/wallets) and signs no one in;
   * absent: a sign-in nonce. Bound, as is the user below: each route opens a nonce only with
   * its own purpose, so one route's nonce fails the other's MAC.
   */
  purpose?: 'link';
  /** The user a link nonce was issued to (decimal id). Bound: only that user's link opens it. */
  userId?: string;
}

interface FieldSpec<T> {
  tag: number;
  carried: boolean;
  /** Optional fields may be undefined, and are then left out of nonce and MAC alike. */
  optional?: boolean;
  encode(value: T): Uint8Array;
  /** Carried fields only: the value back from its bytes, or undefined if they cannot be one. */
  decode?(bytes: Uint8Array): T | undefined;
}

const utf8 = {
  encode: (value: string) => Buffer.from(value, 'utf8'),
};

/** A carried text field: decoded only when it has the shape its issuer gave it. */
const utf8Matching = (shape: RegExp) => (bytes: Uint8Array) => {
  const text = Buffer.from(bytes).toString('utf8');
  return shape.test(text) ? text : undefined;
};

/** Unsigned 48-bit big-endian integer: milliseconds reach past the year 10,000. */
const uint48 = {
  encode(value: number) {
    const bytes = Buffer.alloc(6);
    bytes.writeUIntBE(value, 0, 6);
    return bytes;
  },
  decode(bytes: Uint8Array) {
    return bytes.length === 6 ? Buffer.from(bytes).readUIntBE(0, 6) : undefined;
  },
};

const FIELDS: { [K in keyof NonceRecord]-?: FieldSpec<NonceRecord[K]> } = {
  random: {
    tag: 1,
    carried: true,
    encode: (value) => value,
    decode: (bytes) => (bytes.length === NONCE_RANDOM_BYTES ? Uint8Array.from(bytes) : undefined),
  },
  expiresAt: { tag: 2, carried: true, ...uint48 },
  wallet: { tag: 3, carried: false, ...utf8 },
  format: {
    tag: 4,
    carried: true,
    optional: true,
    encode: (value) => Uint8Array.of(value === 'siwe' ? 1 : 2),
    decode: (bytes) => (bytes.length !== 1 ? undefined : bytes[0] === 1 ? 'siwe' : bytes[0] === 2 ? 'siws' : undefined),
  },
  chainId: { tag: 5, carried: true, optional: true, ...utf8, decode: utf8Matching(/^[A-Za-z0-9:_-]{1,64}$/) },
  domain: {
    tag: 6,
    carried: true,
    optional: true,
    ...utf8,
    decode: (bytes) => {
      const text = Buffer.from(bytes).toString('utf8');
      return isSignInDomain(text) ? text : undefined;
    },
  },
  issuedAt: { tag: 7, carried: true, optional: true, ...uint48 },
  // `link` is the only purpose a nonce names (a sign-in nonce names none): one byte says it.
  purpose: { tag: 8, carried: false, optional: true, encode: () => Uint8Array.of(1) },
  userId: { tag: 9, carried: false, optional: true, ...utf8 },
};

type FieldName = keyof NonceRecord;
const FIELD_ORDER = (Object.keys(FIELDS) as FieldName[]).sort((a, b) => FIELDS[a].tag - FIELDS[b].tag);
const CARRIED = FIELD_ORDER.filter((name) => FIELDS[name].carried);
const BY_TAG = new Map(FIELD_ORDER.map((name) => [FIELDS[name].tag, name]));

type CarriedName = { [K in FieldName]: (typeof FIELDS)[K]['carried'] extends true ? K : never }[FieldName];
/** The fields a verifier supplies to open a nonce. */
export type NonceBinding = Pick<NonceRecord, 'wallet' | 'purpose' | 'userId'>;

export type NonceCheck =
  | { ok: true; record: NonceRecord }
  | { ok: false; reason: 'malformed' | 'forged' | 'expired'; message: string };

/**
 * The nonce secret of a signing key: HKDF-SHA-256 over the key's PKCS#8 bytes, so servers that
 * share JWT_PRIVATE_KEY (or DATA_DIR) share it, and a new key makes a new secret. Never the
 * key itself: a MAC secret and a signing key stay separate by construction.
 */
export function nonceSecretFromSigningKey(privateKeyPem: string): Uint8Array {
  const der = createPrivateKey(privateKeyPem).export({ type: 'pkcs8', format: 'der' });
  return new Uint8Array(hkdfSync('sha256', der, 'signal-auth-nonce-secret', `v${NONCE_VERSION}`, 32));
}

export interface NonceCodec {
  /** A new nonce binding `record` (fresh random bits are drawn here). */
  issue(record: Omit<NonceRecord, 'random'>): string;
  /**
   * Checks, in memory and in this order: shape (alphabet, length, version, layout), MAC over
   * the carried fields plus `binding`, expiry against `now`. On success, the whole record.
   */
  open(nonce: string, binding: NonceBinding, now: Date): NonceCheck;
}

export function createNonceCodec(secret: Uint8Array): NonceCodec {
  if (secret.length < 32) throw new Error('nonce secret must be at least 32 bytes');
  const key = Buffer.from(secret);

  const mac = (record: NonceRecord) => {
    const hmac = createHmac('sha256', key).update(MAC_CONTEXT).update(Uint8Array.of(NONCE_VERSION));
    for (const name of FIELD_ORDER) {
      const spec = FIELDS[name] as FieldSpec<unknown>;
      const value = record[name];
      if (value === undefined) continue;
      const bytes = spec.encode(value);
      const header = Buffer.alloc(3);
      header.writeUInt8(spec.tag, 0);
      header.writeUInt16BE(bytes.length, 1);
      hmac.update(header).update(bytes);
    }
    return hmac.digest().subarray(0, MAC_BYTES);
  };

  return {
    issue(fields) {
      const record: NonceRecord = { ...fields, random: randomBytes(NONCE_RANDOM_BYTES) };
      const parts: Uint8Array[] = [Uint8Array.of(NONCE_VERSION)];
      for (const name of CARRIED) {
        const spec = FIELDS[name] as FieldSpec<unknown>;
        const value = record[name];
        if (value === undefined) continue;
        const bytes = spec.encode(value);
        if (bytes.length > 255) throw new Error(`nonce field ${name} is longer than 255 bytes`);
        parts.push(Uint8Array.of(spec.tag, bytes.length), bytes);
      }
      parts.push(mac(record));
      return encodeBase62(Buffer.concat(parts));
    },

    open(nonce, binding, now) {
      const malformed = { ok: false, reason: 'malformed', message: 'nonce is not one this service issued' } as const;
      if (nonce.length > MAX_NONCE_CHARS) return malformed;
      const bytes = decodeBase62(nonce);
      if (!bytes || bytes.length < 1 + MAC_BYTES || bytes[0] !== NONCE_VERSION) return malformed;
      const carried = parseCarried(bytes.subarray(1, bytes.length - MAC_BYTES));
      if (!carried) return malformed;
      const record = { ...binding, ...carried } as NonceRecord;
      if (!timingSafeEqual(mac(record), bytes.subarray(bytes.length - MAC_BYTES))) {
        return {
          ok: false,
          reason: 'forged',
          message:
            'nonce was not issued for this wallet and purpose by this service (another wallet, a sign-in nonce used to link or the reverse, another user, altered, or an old key)',
        };
      }
      if (record.expiresAt <= now.getTime()) return { ok: false, reason: 'expired', message: 'nonce has expired' };
      return { ok: true, record };
    },
  };
}

/** The carried fields, strictly: known carried tags, ascending, each once, the mandatory ones present. */
function parseCarried(bytes: Uint8Array): Pick<NonceRecord, CarriedName> | undefined {
  const out: Partial<Record<FieldName, unknown>> = {};
  let offset = 0;
  let lastTag = 0;
  while (offset < bytes.length) {
    if (offset + 2 > bytes.length) return undefined;
    const tag = bytes[offset] as number;
    const length = bytes[offset + 1] as number;
    const name = BY_TAG.get(tag);
    if (!name || tag <= lastTag || offset + 2 + length > bytes.length) return undefined;
    const spec = FIELDS[name] as FieldSpec<unknown>;
    if (!spec.carried || !spec.decode) return undefined;
    const value = spec.decode(bytes.subarray(offset + 2, offset + 2 + length));
    if (value === undefined) return undefined;
    out[name] = value;
    lastTag = tag;
    offset += 2 + length;
  }
  for (const name of CARRIED) if (out[name] === undefined && !FIELDS[name].optional) return undefined;
  return out as Pick<NonceRecord, CarriedName>;
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const DIGIT = new Map([...ALPHABET].map((c, i) => [c, BigInt(i)]));
const SIXTY_TWO = 62n;

/**
 * Base62 width of an n-byte value: the fewest digits that hold every n-byte number. Each n has
 * its own width (a byte adds 1.34 digits), so the width tells the byte length back.
 */
const widthOfBytes: number[] = [];
const bytesOfWidth = new Map<number, number>();
for (let n = 0, width = 0, capacity = 1n; n <= 300; n++) {
  const needed = 1n << BigInt(8 * n);
  while (capacity < needed) {
    capacity *= SIXTY_TWO;
    width++;
  }
  widthOfBytes[n] = width;
  bytesOfWidth.set(width, n);
}

/** Big-endian bytes as base62, left-padded with '0' to the width of their length. */
export function encodeBase62(bytes: Uint8Array): string {
  const width = widthOfBytes[bytes.length];
  if (width === undefined) throw new Error('value too long for base62 nonce encoding');
  let value = bytes.length === 0 ? 0n : BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
  let out = '';
  while (value > 0n) {
    out = ALPHABET[Number(value % SIXTY_TWO)] + out;
    value /= SIXTY_TWO;
  }
  return out.padStart(width, '0');
}

/**
 * The bytes of a base62 string, or undefined unless it is the one spelling encodeBase62 gives:
 * alphabet only, a width some byte length has, a value that fits that length.
 */
export function decodeBase62(text: string): Uint8Array | undefined {
  const length = bytesOfWidth.get(text.length);
  if (length === undefined) return undefined;
  let value = 0n;
  for (const c of text) {
    const digit = DIGIT.get(c);
    if (digit === undefined) return undefined;
    value = value * SIXTY_TWO + digit;
  }
  if (value >> BigInt(8 * length) !== 0n) return undefined;
  return Buffer.from(value.toString(16).padStart(2 * length, '0'), 'hex');
}
