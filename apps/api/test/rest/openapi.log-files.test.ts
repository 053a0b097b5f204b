/**
 * The log's files in /openapi.json (`GET /log/checkpoint`, `/log/key`, hash tiles and entry
 * bundles, full and partial): what the document says of each, its content type, its
 * Cache-Control and its 404s, holds against the running server on both backends, on a log of
 * three entries. The documented checkpoint example is a real signed note: it verifies under the
 * documented key with node:crypto's Ed25519 (not the core library that signed it).
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import { checkpointNote, logVerifierKey } from '@signal/core/log-examples';
import { describeBackends } from '@signal/test-support/vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, useApi } from '../harness.js';
import {
  appendInBulk,
  checkpointOfSize,
  fetchVerifierKey,
  LOG_FILE_TEMPLATES,
  testEntries,
} from '../log/log-support.js';

type Operation = Record<string, any>;

/** The one documented success content of `op`: its media type, and the response for its headers. */
function documented(op: Operation): { type: string; response: Operation } {
  const response = op.responses[200];
  const types = Object.keys(response?.content ?? {});
  expect(types).toHaveLength(1);
  return { type: types[0] as string, response };
}

/** Checks a note's signature by the verifier key with node:crypto: `<name>+<hash>+<base64(0x01 ‖ key)>`. */
function verifiesWithNodeCrypto(note: string, verifierKey: string): boolean {
  // The name holds no `+`; the base64 may.
  const [name, hash, ...rest] = verifierKey.split('+') as [string, string, ...string[]];
  const encoded = rest.join('+');
  const raw = Buffer.from(encoded, 'base64');
  expect(raw[0]).toBe(1);
  // The key hash: the first 4 bytes of SHA-256(name ‖ "\n" ‖ 0x01 ‖ key), as sumdb/note defines it.
  const keyHash = createHash('sha256')
    .update(Buffer.concat([Buffer.from(`${name}\n`), raw]))
    .digest()
    .subarray(0, 4);
  expect(keyHash.toString('hex')).toBe(hash);
  const split = note.indexOf('\n\n');
  const text = note.slice(0, split + 1);
  const line = note
    .slice(split + 2)
    .split('\n')
    .find((l) => l.startsWith(`— ${name} `));
  const signature = Buffer.from(line?.slice(`— ${name} `.length) ?? '', 'base64');
  expect(signature.subarray(0, 4).equals(keyHash)).toBe(true);
  const publicKey = createPublicKey({
    key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw.subarray(1)]),
    format: 'der',
    type: 'spki',
  });
  return verify(null, Buffer.from(text), publicKey, signature.subarray(4));
}

describe("the document's log examples", () => {
  it('the checkpoint example is signed by the key example (node:crypto), and a changed byte is not', () => {
    expect(verifiesWithNodeCrypto(checkpointNote, logVerifierKey)).toBe(true);
    expect(verifiesWithNodeCrypto(checkpointNote.replace('\n3\n', '\n4\n'), logVerifierKey)).toBe(false);
  });
});

describeBackends('the log files as /openapi.json documents them on %s', (backend) => {
  const api = useApi(backend);
  let doc: any;
  const entries = testEntries(0, 3, backend);

  beforeAll(async () => {
    doc = (await call(api, 'GET', '/openapi.json')).body;
    await appendInBulk(api.db, entries);
    await checkpointOfSize(api.url, await fetchVerifierKey(api.url), 3);
  });

  /** GETs `url` and checks status, content type and Cache-Control against the operation at `template`. */
  async function expectAsDocumented(url: string, template: string): Promise<Uint8Array> {
    const op = doc.paths[template]?.get;
    expect(op, template).toBeDefined();
    const { type, response } = documented(op);
    const res = await fetch(`${api.url}${url}`);
    expect(res.status, url).toBe(200);
    expect(res.headers.get('content-type'), url).toBe(type);
    expect(res.headers.get('cache-control'), url).toBe(response.headers['Cache-Control'].schema.example);
    return new Uint8Array(await res.arrayBuffer());
  }

  it('documents the six paths, GET only, under the log tag', () => {
    for (const path of LOG_FILE_TEMPLATES) {
      expect(Object.keys(doc.paths[path] ?? {}), path).toEqual(['get']);
      expect(doc.paths[path].get.tags, path).toEqual(['log']);
    }
  });

  it('the checkpoint and the key: text, with the documented caching, and the note verifies under the key', async () => {
    const key = new TextDecoder().decode(await expectAsDocumented('/log/key', '/log/key'));
    const note = new TextDecoder().decode(await expectAsDocumented('/log/checkpoint', '/log/checkpoint'));
    expect(note.split('\n')[1]).toBe('3');
    expect(verifiesWithNodeCrypto(note, key)).toBe(true);
    expect(doc.paths['/log/checkpoint'].get.responses[200].headers['Cache-Control'].schema.example).not.toMatch(
      /immutable/,
    );
  });

  it('a partial tile and a partial bundle: bytes, immutable, as wide as asked', async () => {
    const tile = await expectAsDocumented('/log/tile/0/000.p/3', '/log/tile/{L}/{N}.p/{W}');
    expect(tile.length).toBe(3 * 32);
    // Leaf 1's hash, SHA-256(0x00 ‖ entry), as RFC 6962 defines it.
    const leaf = createHash('sha256')
      .update(Buffer.concat([Buffer.from([0]), entries[1] as Uint8Array]))
      .digest();
    expect(Buffer.from(tile.subarray(32, 64)).equals(leaf)).toBe(true);
    const bundle = await expectAsDocumented('/log/tile/entries/000.p/2', '/log/tile/entries/{N}.p/{W}');
    expect(bundle.length).toBe(2 + (entries[0]?.length ?? 0) + 2 + (entries[1]?.length ?? 0));
    expect(doc.paths['/log/tile/{L}/{N}'].get.responses[200].headers['Cache-Control'].schema.example).toBe(
      'public, max-age=31536000, immutable',
    );
  });

  // Past the tree, or not a tile's one spelling: 404 NOT_FOUND, listed on the operation the path names.
  it.each([
    ['/log/tile/0/000', '/log/tile/{L}/{N}'],
    ['/log/tile/0/000.p/4', '/log/tile/{L}/{N}.p/{W}'],
    ['/log/tile/0/0000', '/log/tile/{L}/{N}'],
    ['/log/tile/64/000', '/log/tile/{L}/{N}'],
    ['/log/tile/entries/000', '/log/tile/entries/{N}'],
    ['/log/tile/entries/001.p/1', '/log/tile/entries/{N}.p/{W}'],
    ['/log/tile/entries/000.p/256', '/log/tile/entries/{N}.p/{W}'],
  ])('%s: 404, documented on %s', async (url, template) => {
    const reply = await call(api, 'GET', url);
    expect(reply.status).toBe(404);
    expect(reply.body.code).toBe('NOT_FOUND');
    const examples = doc.paths[template].get.responses[404].content['application/json'].examples;
    expect(Object.keys(examples)).toContain('NOT_FOUND');
  });

  it("the documented 404 of a tile past the tree is the server's own wording", async () => {
    const reply = await call(api, 'GET', '/log/tile/0/x001/000');
    expect(reply.body).toEqual(
      doc.paths['/log/tile/{L}/{N}'].get.responses[404].content['application/json'].examples.NOT_FOUND.value,
    );
  });
});
