// C2SP signed notes with Ed25519 keys, ported from Go's golang.org/x/mod/sumdb/note (note.go),
// BSD-3-Clause, Copyright 2019 The Go Authors. A note is its text, a blank line, then signature
// lines `— <name> <base64(4-byte key hash ‖ signature)>`.
import { ed25519 } from '@noble/curves/ed25519';
import { concatBytes, fromBase64, fromUtf8, toBase64, utf8 } from './bytes.js';
import { sha256Bytes } from './hash.js';

const ALG_ED25519 = 0x01;

export type NoteErrorCode =
  /** The note's bytes are not a note (bad text, bad signature line, too many signatures). */
  | 'malformed-note'
  /** No signature is by a key the caller knows. */
  | 'unknown-key'
  /** A signature by a known key does not verify: the note was altered or signed by another key. */
  | 'bad-signature'
  /** A verifier key given is not `<name>+<hex hash>+<base64 key>` with a matching hash. */
  | 'malformed-key'
  /** Two known keys share a name and key hash, so a signature cannot be attributed. */
  | 'ambiguous-key';

export class NoteError extends Error {
  override name = 'NoteError';
  constructor(
    readonly code: NoteErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A public key a note can be checked with. */
export interface NoteVerifier {
  name: string;
  keyHash: number;
  publicKey: Uint8Array;
}

/** A key that signs notes: its verifier plus the signing function. */
export interface NoteSigner extends NoteVerifier {
  /** The verifier key to publish (`GET /log/key`). */
  verifierKey: string;
  sign(message: Uint8Array): Uint8Array;
}

// Go's unicode.IsSpace: ASCII white space, NEL, NBSP and Unicode's White_Space property.
const spacePattern = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;
const loneSurrogatePattern = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A key name: non-empty, no white space, no `+`. Go's isValidName. */
export function isValidKeyName(name: string): boolean {
  return name !== '' && !spacePattern.test(name) && !name.includes('+') && !loneSurrogatePattern.test(name);
}

/** First 4 bytes, big-endian, of SHA-256(name ‖ "\n" ‖ 0x01 ‖ public key). Go's keyHash. */
export function noteKeyHash(name: string, publicKey: Uint8Array): number {
  const sum = sha256Bytes(concatBytes(utf8(`${name}\n`), new Uint8Array([ALG_ED25519]), publicKey));
  return ((sum[0]! << 24) >>> 0) + (sum[1]! << 16) + (sum[2]! << 8) + sum[3]!;
}

function keyHashHex(hash: number): string {
  return hash.toString(16).padStart(8, '0');
}

/** The verifier key of an Ed25519 public key: `<name>+<hex key hash>+<base64(0x01 ‖ key)>`. */
export function verifierKey(name: string, publicKey: Uint8Array): string {
  if (!isValidKeyName(name)) throw new NoteError('malformed-key', `invalid key name ${JSON.stringify(name)}`);
  if (publicKey.length !== 32) throw new NoteError('malformed-key', 'an Ed25519 public key is 32 bytes');
  const encoded = toBase64(concatBytes(new Uint8Array([ALG_ED25519]), publicKey));
  return `${name}+${keyHashHex(noteKeyHash(name, publicKey))}+${encoded}`;
}

function chop(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + separator.length)];
}

/** Parses a verifier key, checking its key hash. Go's NewVerifier; throws NoteError('malformed-key'). */
export function parseVerifierKey(text: string): NoteVerifier {
  const [name, rest] = chop(text, '+');
  const [hash16, key64] = chop(rest, '+');
  const key = fromBase64(key64);
  if (!/^[0-9a-fA-F]{8}$/.test(hash16) || key === null || !isValidKeyName(name) || key.length === 0) {
    throw new NoteError('malformed-key', 'malformed verifier key');
  }
  const keyHash = Number.parseInt(hash16, 16);
  if (key[0] !== ALG_ED25519) throw new NoteError('malformed-key', 'unknown verifier algorithm');
  const publicKey = key.slice(1);
  if (publicKey.length !== 32) throw new NoteError('malformed-key', 'an Ed25519 public key is 32 bytes');
  if (keyHash !== noteKeyHash(name, publicKey)) throw new NoteError('malformed-key', 'invalid verifier hash');
  return { name, keyHash, publicKey };
}

/** A note signer for `name` from a 32-byte Ed25519 seed (RFC 8032's private key). */
export function noteSigner(name: string, seed: Uint8Array): NoteSigner {
  if (!isValidKeyName(name)) throw new NoteError('malformed-key', `invalid key name ${JSON.stringify(name)}`);
  if (seed.length !== 32) throw new NoteError('malformed-key', 'an Ed25519 seed is 32 bytes');
  const secret = seed.slice();
  const publicKey = ed25519.getPublicKey(secret);
  return {
    name,
    keyHash: noteKeyHash(name, publicKey),
    publicKey,
    verifierKey: verifierKey(name, publicKey),
    sign: (message) => ed25519.sign(message, secret),
  };
}

/** The note text's rules (C2SP signed-note): valid UTF-8, no control characters but newline. */
function checkNoteCharacters(text: string): void {
  if (loneSurrogatePattern.test(text)) throw new NoteError('malformed-note', 'the note is not valid UTF-8');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this rejects.
  if (/[\u0000-\u0009\u000b-\u001f]/.test(text)) {
    throw new NoteError('malformed-note', 'the note contains a control character');
  }
}

/** Signs `text` (non-empty lines, each ending in a newline) with each signer. Go's note.Sign. */
export function signNote(text: string, signers: NoteSigner | NoteSigner[]): string {
  checkNoteCharacters(text);
  if (!text.endsWith('\n') || text.startsWith('\n') || text.includes('\n\n')) {
    throw new NoteError('malformed-note', 'a note text is non-empty lines, each ending in a newline');
  }
  const message = utf8(text);
  let lines = '';
  for (const signer of Array.isArray(signers) ? signers : [signers]) {
    const hash = new Uint8Array(4);
    new DataView(hash.buffer).setUint32(0, signer.keyHash);
    lines += `— ${signer.name} ${toBase64(concatBytes(hash, signer.sign(message)))}\n`;
  }
  return `${text}\n${lines}`;
}

/** What `openNote` checked: the text and whose signatures verified. */
export interface OpenedNote {
  text: string;
  signatures: { name: string; keyHash: number }[];
  /** Signatures by keys the caller did not give (not checked). */
  unverified: { name: string; keyHash: number }[];
}

function verifies(verifier: NoteVerifier, message: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== 64) return false;
  try {
    // RFC 8032's strict rules, as Go's crypto/ed25519 (not ZIP 215's looser ones).
    return ed25519.verify(signature, message, verifier.publicKey, { zip215: false });
  } catch {
    return false;
  }
}

/**
 * Checks a signed note against the keys the caller trusts and returns what was verified. Throws a
 * NoteError naming the check that failed. Go's note.Open: signatures by unknown keys are skipped;
 * at least one known key must have signed; a known key's bad signature fails the whole note.
 */
export function openNoteDetailed(note: string | Uint8Array, keys: (string | NoteVerifier)[]): OpenedNote {
  let msg: string;
  if (typeof note === 'string') msg = note;
  else {
    try {
      msg = fromUtf8(note);
    } catch {
      throw new NoteError('malformed-note', 'the note is not valid UTF-8');
    }
  }
  checkNoteCharacters(msg);
  const known = new Map<string, NoteVerifier[]>();
  for (const key of keys) {
    const verifier = typeof key === 'string' ? parseVerifierKey(key) : key;
    const id = `${verifier.name}+${verifier.keyHash}`;
    known.set(id, [...(known.get(id) ?? []), verifier]);
  }

  const split = msg.lastIndexOf('\n\n');
  if (split < 0) throw new NoteError('malformed-note', 'the note has no signature block');
  const text = msg.slice(0, split + 1);
  let sigs = msg.slice(split + 2);
  if (sigs === '' || !sigs.endsWith('\n'))
    throw new NoteError('malformed-note', 'the signature block must end in a newline');

  const message = utf8(text);
  const opened: OpenedNote = { text, signatures: [], unverified: [] };
  const seen = new Set<string>();
  const seenUnverified = new Set<string>();
  let count = 0;
  while (sigs.length > 0) {
    const end = sigs.indexOf('\n');
    let line = sigs.slice(0, end);
    sigs = sigs.slice(end + 1);
    if (!line.startsWith('— ')) throw new NoteError('malformed-note', 'a signature line starts with "— "');
    line = line.slice(2);
    const [name, b64] = chop(line, ' ');
    const raw = fromBase64(b64);
    if (raw === null || !isValidKeyName(name) || b64 === '' || raw.length < 5) {
      throw new NoteError('malformed-note', 'malformed signature line');
    }
    const keyHash = new DataView(raw.buffer, raw.byteOffset).getUint32(0);
    if (++count > 100) throw new NoteError('malformed-note', 'more than 100 signatures');
    const id = `${name}+${keyHash}`;
    const verifiers = known.get(id);
    if (verifiers === undefined) {
      if (!seenUnverified.has(line)) {
        seenUnverified.add(line);
        opened.unverified.push({ name, keyHash });
      }
      continue;
    }
    if (verifiers.length > 1) throw new NoteError('ambiguous-key', `ambiguous key ${name}+${keyHashHex(keyHash)}`);
    if (seen.has(id)) continue;
    seen.add(id);
    if (!verifies(verifiers[0]!, message, raw.slice(4))) {
      throw new NoteError('bad-signature', `invalid signature for key ${name}+${keyHashHex(keyHash)}`);
    }
    opened.signatures.push({ name, keyHash });
  }
  if (opened.signatures.length === 0) {
    const names = opened.unverified.map((s) => `${s.name}+${keyHashHex(s.keyHash)}`).join(', ');
    throw new NoteError('unknown-key', `the note has no signature by a known key (signed by: ${names})`);
  }
  return opened;
}

/** Checks a signed note (see openNoteDetailed) and returns its verified text. */
export function openNote(note: string | Uint8Array, keys: (string | NoteVerifier)[]): string {
  return openNoteDetailed(note, keys).text;
}
