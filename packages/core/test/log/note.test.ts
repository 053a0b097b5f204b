// Signed notes against independent implementations: node:crypto's Ed25519, and the fixed keys and
// signatures of Go's own sumdb/note tests (golang.org/x/mod/sumdb/note/note_test.go).
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  NoteError,
  noteSigner,
  openCheckpoint,
  openNote,
  openNoteDetailed,
  parseVerifierKey,
  signCheckpoint,
  signNote,
  verifierKey,
} from '../../src/log/index.js';

// From Go's note_test.go.
const peterKey = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const peterSeed = Buffer.from('AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz', 'base64').subarray(1);
const enochKey = 'EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop';
const text = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const peterSig =
  '— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n';
const enochSig =
  '— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n';

/** A node:crypto Ed25519 key pair with its raw 32-byte seed and public key. */
function nodeKeyPair() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  return { privateKey, publicKey, seed, raw };
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof NoteError) return error.code;
    throw error;
  }
  return 'opened';
}

describe("Go's sumdb/note vectors", () => {
  it('a signer from the seed makes the verifier key and the exact signed note Go makes', () => {
    const signer = noteSigner('PeterNeumann', peterSeed);
    expect(signer.verifierKey).toBe(peterKey);
    expect(signNote(text, signer)).toBe(`${text}\n${peterSig}`);
  });

  it('opens with the known key, skipping a signature by an unknown one', () => {
    const opened = openNoteDetailed(`${text}\n${peterSig}${enochSig}`, [peterKey]);
    expect(opened.text).toBe(text);
    expect(opened.signatures).toEqual([{ name: 'PeterNeumann', keyHash: 0xc74f20a3 }]);
    expect(opened.unverified).toEqual([{ name: 'EnochRoot', keyHash: 0xaf0cfe78 }]);
    expect(openNote(`${text}\n${peterSig}${enochSig}`, [peterKey, enochKey])).toBe(text);
  });

  it('names the failed check', () => {
    expect(codeOf(() => openNote(`${text}\n${enochSig}`, [peterKey]))).toBe('unknown-key');
    expect(codeOf(() => openNote(`${text.replace('If', 'if')}\n${peterSig}`, [peterKey]))).toBe('bad-signature');
    expect(codeOf(() => openNote(`${text}${peterSig}`, [peterKey]))).toBe('malformed-note');
    expect(codeOf(() => openNote(`${text}\n${peterSig.slice(0, -1)}`, [peterKey]))).toBe('malformed-note');
    expect(codeOf(() => openNote(`${text}\n${peterSig.replace('— ', '-- ')}`, [peterKey]))).toBe('malformed-note');
    expect(codeOf(() => openNote(`${text}\n— PeterNeumann AAAA\n`, [peterKey]))).toBe('malformed-note');
    expect(codeOf(() => openNote(`a\tb\n\n${peterSig}`, [peterKey]))).toBe('malformed-note');
    expect(codeOf(() => openNote(new Uint8Array([0x61, 0xff, 0x0a, 0x0a]), [peterKey]))).toBe('malformed-note');
    expect(codeOf(() => openNote(`${text}\n${peterSig.repeat(101)}`, [peterKey]))).toBe('malformed-note');
    expect(codeOf(() => openNote(`${text}\n${peterSig}`, [peterKey, peterKey]))).toBe('ambiguous-key');
  });

  it("parses verifier keys and rejects every mangling of one (as Go's TestNewVerifier)", () => {
    const v = parseVerifierKey(peterKey);
    expect(v.name).toBe('PeterNeumann');
    expect(v.keyHash).toBe(0xc74f20a3);
    expect(verifierKey(v.name, v.publicKey)).toBe(peterKey);
    const bad: string[] = [];
    for (let i = 0; i <= peterKey.length; i++) {
      for (let j = i + 1; j <= peterKey.length; j++)
        if (i !== 0 || j !== peterKey.length) bad.push(peterKey.slice(i, j));
    }
    for (let i = 0; i < peterKey.length; i++) {
      bad.push(peterKey.slice(0, i) + String.fromCharCode(peterKey.charCodeAt(i) + 1) + peterKey.slice(i + 1));
    }
    bad.push('PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY==');
    bad.push('PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW');
    for (const key of bad)
      expect(
        codeOf(() => parseVerifierKey(key)),
        key,
      ).toBe('malformed-key');
  });
});

describe('against node:crypto Ed25519', () => {
  it('a note signed with node:crypto opens', () => {
    const { privateKey, raw } = nodeKeyPair();
    const name = 'example.com/signals';
    const key = verifierKey(name, raw);
    const keyHash = createHash('sha256')
      .update(`${name}\n`)
      .update(Buffer.from([1]))
      .update(raw)
      .digest();
    expect(key).toBe(
      `${name}+${keyHash.subarray(0, 4).toString('hex')}+${Buffer.concat([Buffer.from([1]), raw]).toString('base64')}`,
    );
    const body = 'example.com/signals\n3\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n';
    const signature = sign(null, Buffer.from(body), privateKey);
    const note = `${body}\n— ${name} ${Buffer.concat([keyHash.subarray(0, 4), signature]).toString('base64')}\n`;
    expect(openNote(note, [key])).toBe(body);
    expect(openCheckpoint(note, key).size).toBe(3);
  });

  it('a note signed by noteSigner verifies with node:crypto', () => {
    const { seed, publicKey, raw } = nodeKeyPair();
    const signer = noteSigner('log.example', seed);
    expect(Buffer.from(signer.publicKey).equals(raw)).toBe(true);
    const note = signNote('log.example\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n', signer);
    const line = note.split('\n').at(-2)!;
    const sig = Buffer.from(line.split(' ')[2]!, 'base64');
    expect(verify(null, Buffer.from(note.slice(0, note.lastIndexOf('\n\n') + 1)), publicKey, sig.subarray(4))).toBe(
      true,
    );
    expect(sig.readUInt32BE(0)).toBe(signer.keyHash);
  });

  it('a checkpoint signed by another key, or for another origin, does not open', () => {
    const good = nodeKeyPair();
    const other = nodeKeyPair();
    const origin = 'example.com/signals';
    const rootHash = new Uint8Array(32);
    const forged = signCheckpoint({ origin, size: 9, rootHash }, noteSigner(origin, other.seed));
    expect(codeOf(() => openCheckpoint(forged, verifierKey(origin, good.raw)))).toBe('unknown-key');
    // The same name and key hash cannot be faked without the key: swap the key-hash prefix.
    const keyHash = Buffer.alloc(4);
    keyHash.writeUInt32BE(noteSigner(origin, good.seed).keyHash);
    const sigLine = forged.split('\n').at(-2)!;
    const raw = Buffer.from(sigLine.split(' ')[2]!, 'base64');
    const spoofed = forged.replace(
      sigLine,
      `— ${origin} ${Buffer.concat([keyHash, raw.subarray(4)]).toString('base64')}`,
    );
    expect(codeOf(() => openCheckpoint(spoofed, verifierKey(origin, good.raw)))).toBe('bad-signature');
    // A checkpoint of another log signed with this key under this name is refused by origin.
    const signer = noteSigner(origin, good.seed);
    const otherLog = signNote(`other.example/log\n9\n${Buffer.alloc(32).toString('base64')}\n`, signer);
    expect(() => openCheckpoint(otherLog, signer.verifierKey)).toThrow(/origin/);
  });

  it("a signer from a PKCS#8 key (LOG_PRIVATE_KEY) has node:crypto's public key", () => {
    const { privateKey, raw } = nodeKeyPair();
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const seed = Buffer.from(createPrivateKey(pem).export({ format: 'jwk' }).d!, 'base64url');
    expect(Buffer.from(noteSigner('x', seed).publicKey).equals(raw)).toBe(true);
    expect(Buffer.from(createPublicKey(pem).export({ format: 'jwk' }).x!, 'base64url').equals(raw)).toBe(true);
  });

  it('a signer refuses a text that is not a note body', () => {
    const signer = noteSigner('x', nodeKeyPair().seed);
    for (const bad of ['no newline', 'a\n\nb\n', '\na\n', 'tab\there\n']) {
      expect(codeOf(() => signNote(bad, signer))).toBe('malformed-note');
    }
  });
});
