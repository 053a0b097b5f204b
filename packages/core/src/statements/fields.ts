/**
 * The field types of the signed statements, each written once: decimal strings, instants,
 * statement ids and salts, delegated keys, instruments and notes. The statement schemas are
 * assembled from them.
 */
import bs58 from 'bs58';
import { z } from 'zod';
import { isDec } from './decimal.js';
import { isInstant } from './instants.js';

export { compareInstants, compareInstantsOrNull, instantMs, isInstant } from './instants.js';

export const instantField = z.string().refine(isInstant, 'must be an instant in UTC: YYYY-MM-DDTHH:MM:SS[.fraction]Z');

export const decField = z
  .string()
  .refine(
    isDec,
    'must be a decimal string greater than 0: up to 20 digits, no leading zero, optionally "." and 1..12 digits',
  );

/** A statement id, and a signal's id (the open's): public at once, so opaque. */
export const STATEMENT_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const statementIdField = z
  .string()
  .regex(STATEMENT_ID_PATTERN, 'must be 1..64 characters of A-Z, a-z, 0-9, "_" and "-"');

/** 22 base64url characters carry 132 bits, the fewest that hold the 128 random bits the commitment needs. */
export const SALT_PATTERN = /^[A-Za-z0-9_-]{22,64}$/;
export const saltField = z
  .string()
  .regex(SALT_PATTERN, 'must be 22..64 base64url characters (at least 128 random bits), unpadded');

export const ED25519_KEY_PREFIX = 'ed25519:';

/** The 32 public-key bytes of `ed25519:<base58>` written canonically, or null. */
export function parseEd25519Key(text: string): Uint8Array | null {
  if (!text.startsWith(ED25519_KEY_PREFIX)) return null;
  const base58 = text.slice(ED25519_KEY_PREFIX.length);
  // base58 of 32 bytes is 32..44 characters; the bound keeps the decoder away from long input.
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(base58)) return null;
  const bytes = bs58.decode(base58);
  return bytes.length === 32 ? bytes : null;
}

export const ed25519KeyField = z
  .string()
  .refine(
    (text) => parseEd25519Key(text) !== null,
    'must be "ed25519:" followed by the base58 of a 32-byte public key',
  );

export const INSTRUMENT_PATTERN = /^[A-Z0-9._:/-]{1,32}$/;
export const instrumentField = z
  .string()
  .regex(INSTRUMENT_PATTERN, 'must be 1..32 characters of A-Z, 0-9, ".", "_", ":", "/" and "-"');

const NOTE_MAX = 500;
const CONTROL_CHARACTER = /\p{Cc}/u;

/** `noteField`'s verdict: at most 500 code points, no control character. */
export function isNote(text: string): boolean {
  return (text.length <= NOTE_MAX || [...text].length <= NOTE_MAX) && !CONTROL_CHARACTER.test(text);
}

/** At most 500 characters (code points) and no control characters; "" on an update clears the note. */
export const noteField = z
  .string()
  // Code points: counted only when the UTF-16 length could exceed the bound.
  .refine((text) => text.length <= NOTE_MAX || [...text].length <= NOTE_MAX, `must be at most ${NOTE_MAX} characters`)
  // The control characters (category Cc): C0, DEL and C1.
  .refine(
    (text) => !CONTROL_CHARACTER.test(text),
    'must not contain control characters (line breaks and tabs included)',
  );

export const targetsField = z.array(decField).max(10, 'must have at most 10 targets');
