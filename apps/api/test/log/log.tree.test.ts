/**
 * The served log (CONTRACT.md, "The log"), grown through 0, 1, 255, 256, 257 and 70,000 entries
 * (accepted in bulk through the db function the service's writes call, then integrated by the
 * server's own sequencer): at each size the checkpoint is signed by the key of `/log/key`, its
 * root is the tree hash of the served tiles, every entry bundle holds exactly the entries appended,
 * inclusion proofs check, every earlier checkpoint is consistent with the new one, and the edges of
 * the tree (partial tiles of past sizes, wider partials, tiles and bundles past it, malformed
 * paths, proof bounds) answer as the contract says. Checked by the core library's verifier and,
 * independently, by Go's golang.org/x/mod/sumdb/tlog and sumdb/note (verifyLogWithGo).
 */
import { entriesPath, TILE_WIDTH, tilePath } from '@signal/core/log';
import { describeBackends } from '@signal/test-support/vitest';
import { describe, expect, it } from 'vitest';
import { call, expectError, useApi } from '../harness.js';
import { httpCall } from '../raw-http.js';
import {
  appendInBulk,
  checkpointOfSize,
  expectConsistent,
  expectLogVerifiedTwice,
  expectServedLog,
  fetchCheckpoint,
  fetchVerifierKey,
  get,
  type SeenCheckpoint,
  testEntries,
} from './log-support.js';

const SIZES = [0, 1, 255, 256, 257, 70_000];

describeBackends('the served log on %s', (backend) => {
  const api = useApi(backend, { env: { LOG_ORIGIN: 'log.example.test/signals' } });
  const entries: Uint8Array[] = [];
  const seen: SeenCheckpoint[] = [];

  describe.sequential('grown step by step', () => {
    for (const size of SIZES) {
      it(`at ${size} entries: checkpoint, tiles, bundles and proofs`, { timeout: 60_000 }, async () => {
        const key = await fetchVerifierKey(api.url);
        expect(key).toMatch(/^log\.example\.test\/signals\+[0-9a-f]{8}\+[A-Za-z0-9+/]+=*$/);
        const added = testEntries(entries.length, size - entries.length, backend);
        await appendInBulk(api.db, added);
        entries.push(...added);
        const checkpoint = await checkpointOfSize(api.url, key, size);
        expect(checkpoint.origin).toBe('log.example.test/signals');
        const probes =
          size === 0 ? [] : [...new Set([0, size - 1, Math.floor(size / 2), 255, 256].filter((i) => i < size))];
        // Each earlier checkpoint consistent with this one; by Go's sumdb/tlog and sumdb/note too.
        await expectLogVerifiedTwice(api.url, key, checkpoint, entries, probes, seen);
        seen.push(checkpoint);
      });
    }

    it('serves every past size: partial tiles and bundles of earlier checkpoints, and their proofs', async () => {
      const key = await fetchVerifierKey(api.url);
      const now = await fetchCheckpoint(api.url, key);
      // Size 257's right edge: level-0 tile 1 of width 1, bundle 1 of width 1; size 255's: tile 0 of 255.
      for (const path of [
        tilePath({ level: 0, index: 1, width: 1 }),
        entriesPath(1, 1),
        tilePath({ level: 0, index: 0, width: 255 }),
      ]) {
        const res = await get(api.url, `/log/${path}`);
        expect(res.status, path).toBe(200);
        expect(res.res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      }
      for (const older of seen.filter((c) => c.size > 0 && c.size < now.size)) {
        await expectServedLog(api.url, older, entries.slice(0, older.size), [older.size - 1]).catch((error) => {
          throw new Error(`at past size ${older.size}: ${error}`);
        });
        await expectConsistent(api.url, older, now);
      }
    }, 60_000);

    it('answers 404 past the tree and for malformed paths, never 200', async () => {
      const size = entries.length; // 70,000: 273 full level-0 tiles, tile 273 holds 112 hashes
      const full = Math.floor(size / TILE_WIDTH);
      const rest = size % TILE_WIDTH;
      expect((await get(api.url, `/log/${tilePath({ level: 0, index: full, width: rest })}`)).status).toBe(200);
      const beyond = [
        tilePath({ level: 0, index: full, width: rest + 1 }), // a wider partial
        tilePath({ level: 0, index: full, width: TILE_WIDTH }), // a full tile past the tree
        tilePath({ level: 0, index: full + 1, width: 1 }),
        tilePath({ level: 1, index: 1, width: 18 }), // level 1 holds 273 hashes: tile 1 has 17
        tilePath({ level: 2, index: 0, width: 2 }), // level 2 holds 1 hash
        tilePath({ level: 3, index: 0, width: 1 }),
        entriesPath(full, rest + 1),
        entriesPath(full, TILE_WIDTH),
        entriesPath(full + 1, 1), // a bundle starting at the size
      ];
      for (const path of beyond) expect((await get(api.url, `/log/${path}`)).status, path).toBe(404);
      expect((await get(api.url, `/log/${tilePath({ level: 1, index: 1, width: 17 })}`)).status).toBe(200);
      expect((await get(api.url, `/log/${tilePath({ level: 2, index: 0, width: 1 })}`)).status).toBe(200);
      const malformed = [
        '/log/tile/0/1',
        '/log/tile/0/x000/001',
        '/log/tile/0/000.p/0',
        '/log/tile/0/000.p/256',
        '/log/tile/0/000.p/01',
        '/log/tile/00/000',
        '/log/tile/64/000',
        '/log/tile/-1/000',
        '/log/tile/entries/000.p/',
        '/log/tile/entries',
        '/log/tile/',
        '/log/tile/0/000/',
        '/log/tile/0/%30%30%30',
        '/log/tile/8/0/000',
        '/log/tile/entries/x1/000',
      ];
      for (const path of malformed) {
        const { status } = await get(api.url, path);
        expect([400, 404], path).toContain(status);
      }
      // Dot segments, sent as written (fetch would resolve them first): each once answered the
      // tile it resolves to (a black-box audit), the last a hash tile as an entry bundle.
      for (const path of [
        '/log/tile/0/./000',
        '/log/tile/0/x/../000',
        '/log/tile/0/%2e/000',
        '/log/tile/entries/../0/000',
        // And backslashes, which URL reads as slashes (the review's).
        '/log/tile/0/x\\..\\000',
        '/log/tile/0\\000',
      ]) {
        const reply = await httpCall(api.url, { method: 'GET', path });
        expect(reply.status, path).toBe(404);
        expect(JSON.parse(reply.text).code).toBe('NOT_FOUND');
      }
      const post = await call(api, 'POST', '/log/checkpoint');
      expect(post.status).toBe(404);
    });

    it('holds proof parameters to the contract: plain decimal integers within the tree', async () => {
      const size = entries.length;
      const inclusion = (query: string) => call(api, 'GET', `/log/proof/inclusion?${query}`);
      const consistency = (query: string) => call(api, 'GET', `/log/proof/consistency?${query}`);
      for (const query of [
        `index=0&size=${size + 1}`,
        `index=${size}&size=${size}`,
        'index=5&size=5',
        'index=0&size=0',
        'index=-1&size=3',
        'index=1e1&size=300',
        'index=0x10&size=300',
        'index=1.5&size=300',
        'index=&size=3',
        'size=3',
        'index=1',
      ]) {
        expectError(await inclusion(query), 400, 'VALIDATION_ERROR');
      }
      for (const query of [`from=1&to=${size + 1}`, 'from=0&to=5', 'from=6&to=5', 'from=1e0&to=5', 'from=1', 'to=5']) {
        expectError(await consistency(query), 400, 'VALIDATION_ERROR');
      }
      const same = await consistency(`from=${size}&to=${size}`);
      expect(same.status).toBe(200);
      expect(same.body).toEqual({ from: size, to: size, proof: [] });
      const padded = await inclusion(`index=3&size=${size}`);
      expect(padded.status).toBe(200);
      for (const hash of padded.body.proof) expect(hash).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    });

    it('serves the checkpoint as a never-immutable text cached at most 10 s, and the key as text', async () => {
      const res = await fetch(`${api.url}/log/checkpoint`);
      const cache = res.headers.get('cache-control') ?? '';
      expect(cache).not.toContain('immutable');
      expect(Number(/max-age=(\d+)/.exec(cache)?.[1])).toBeLessThanOrEqual(10);
      const key = await fetch(`${api.url}/log/key`);
      expect(key.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      const head = await fetch(`${api.url}/log/${tilePath({ level: 0, index: 0, width: TILE_WIDTH })}`, {
        method: 'HEAD',
      });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(TILE_WIDTH * 32));
    });
  });
});
