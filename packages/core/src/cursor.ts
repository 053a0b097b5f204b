/**
 * Page cursors: an opaque, tamper-evident position in a sorted listing. A cursor names the
 * listing it belongs to (`kind`), its sort and direction, the filters it lists, and the sort key
 * and id of the last item served; the next page is what comes strictly after that (key, id)
 * pair in the order, so a walk never repeats or skips an item whose sort key did not change,
 * whatever else moved.
 *
 * Format: base64url(JSON [kind, sortBy, order, key, id, filters?]) "." base64url(HMAC-SHA-256
 * of the first part, first 16 bytes). `filters` (an object of the listing's filter values) is
 * left out when there are none, so cursors sealed before filters existed still open. The MAC key is derived from the JWT signing key (HKDF), so every
 * server that accepts a token also accepts a cursor, and a client can neither forge a position
 * nor move a cursor to another sort or listing.
 */
import { createHmac, createPrivateKey, hkdfSync, timingSafeEqual } from 'node:crypto';
import { MAX_CURSOR_LENGTH } from './schemas.js';

/** null: the last item's sort key was null (a figure not published yet; nulls sort last). */
export type CursorKey = string | number | null;

/** The filter values a cursor's listing was asked with. */
export type CursorFilters = Record<string, string | number>;

export interface CursorPosition {
  /** Which listing: a cursor of one is refused by another. */
  kind: string;
  sortBy: string;
  order: 'asc' | 'desc';
  /** The sort key of the last item served (exactly as the database compares it). */
  key: CursorKey;
  /** Its id, the tie-break. */
  id: number;
  /** The listing's filters; absent or empty when it had none. */
  filters?: CursorFilters;
}

export interface CursorCodec {
  seal(position: CursorPosition): string;
  /** The position, or undefined for anything this codec did not seal (malformed, tampered). */
  open(cursor: string): CursorPosition | undefined;
}

const MAC_BYTES = 16;
const FORMAT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/;

/** 32 bytes for the cursor MAC, derived from a PEM private key (HKDF-SHA-256, own label). */
export function cursorSecretFromSigningKey(privateKeyPem: string): Buffer {
  const der = createPrivateKey(privateKeyPem).export({ format: 'der', type: 'pkcs8' });
  return Buffer.from(hkdfSync('sha256', der, 'signal-api', 'page cursor v1', 32));
}

export function createCursorCodec(secret: Uint8Array): CursorCodec {
  const mac = (payload: string) => createHmac('sha256', secret).update(payload).digest().subarray(0, MAC_BYTES);
  return {
    seal(position) {
      const fields: unknown[] = [position.kind, position.sortBy, position.order, position.key, position.id];
      if (position.filters && Object.keys(position.filters).length > 0) fields.push(position.filters);
      const payload = Buffer.from(JSON.stringify(fields)).toString('base64url');
      return `${payload}.${mac(payload).toString('base64url')}`;
    },
    open(cursor) {
      if (cursor.length > MAX_CURSOR_LENGTH || !FORMAT.test(cursor)) return undefined;
      const dot = cursor.indexOf('.');
      const payload = cursor.slice(0, dot);
      const given = Buffer.from(cursor.slice(dot + 1), 'base64url');
      if (given.length !== MAC_BYTES || !timingSafeEqual(given, mac(payload))) return undefined;
      let fields: unknown;
      try {
        fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        return undefined;
      }
      if (!Array.isArray(fields) || (fields.length !== 5 && fields.length !== 6)) return undefined;
      const [kind, sortBy, order, key, id, filters] = fields as unknown[];
      if (typeof kind !== 'string' || typeof sortBy !== 'string') return undefined;
      if (order !== 'asc' && order !== 'desc') return undefined;
      if (typeof key !== 'string' && typeof key !== 'number' && key !== null) return undefined;
      if (typeof id !== 'number' || !Number.isSafeInteger(id)) return undefined;
      if (filters === undefined) return { kind, sortBy, order, key, id };
      if (!isFilters(filters)) return undefined;
      return { kind, sortBy, order, key, id, filters };
    },
  };
}

function isFilters(value: unknown): value is CursorFilters {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.values(value).every((v) => typeof v === 'string' || typeof v === 'number');
}
