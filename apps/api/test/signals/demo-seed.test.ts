/**
 * The demo seed's signals (CONTRACT.md, Version 4, "Signals", last point; docs/demo-app.md,
 * "Signals in the demo"): a fresh start with SEED_PROVIDERS gives the ten most followed demo
 * providers a publisher wallet and a delegated bot key, and six signals each (closed in two
 * halves, updated, cancelled, partly closed, expiring, open), some still hidden behind a reveal
 * delay, all through the statement routes: every statement is in the served log, inside a signed
 * checkpoint (checked by Go's sumdb/tlog), signed by the documented demo keys (checked by viem
 * and tweetnacl), and hashes to its logged commitment once revealed. A second start seeds nothing.
 */
import { createHash } from 'node:crypto';
import type { Signal } from '@signal/core';
import { verifyLogWithGo } from '@signal/test-support';
import { describeBackends } from '@signal/test-support/vitest';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { verifyMessage } from 'viem';
import { beforeAll, expect, it } from 'vitest';
import { call, evmWallet, signIn, startApi, type TestApi, useApi } from '../harness.js';
import { fetchCheckpoint, fetchVerifierKey } from '../log/log-support.js';
import { logCapture } from '../log-capture.js';
import { demoBotKey, demoWallet } from './demo-keys.js';
import { servedEntry } from './statement-support.js';

const PROVIDERS = 40;
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describeBackends('the demo seed publishes signals through the routes, on %s', (backend) => {
  // Ten, as `pnpm start` seeds them; four on PGlite (the same code, one WASM core: its seed is
  // the slow one on a loaded machine), which still covers the reveal delays' every kind.
  const PUBLISHING = backend === 'postgres' ? 10 : 4;
  let startedMs = 0;
  const api = useApi(backend, {
    env: { SEED_PROVIDERS: String(PROVIDERS), SEED_SIGNAL_PROVIDERS: String(PUBLISHING) },
  });
  let seeded: number[] = [];
  let publicView = new Map<number, Signal[]>();
  let readAt = 0;

  beforeAll(async () => {
    startedMs = performance.now();
    const { items } = (await call(api, 'GET', `/providers?limit=100`)).body as { items: { id: number }[] };
    expect(items.length).toBe(PROVIDERS);
    for (const { id } of items) {
      const publishers = (await call(api, 'GET', `/providers/${id}/publishers`)).body.items as { wallet: string }[];
      if (publishers.length > 0) seeded.push(id);
    }
    seeded = seeded.sort((a, b) => a - b);
    readAt = Date.now();
    publicView = new Map(
      await Promise.all(
        seeded.map(
          async (id) =>
            [id, (await call(api, 'GET', `/providers/${id}/signals?limit=100`)).body.items as Signal[]] as const,
        ),
      ),
    );
    startedMs = performance.now() - startedMs;
  });

  it('gives the providers the documented demo wallet and bot key, delegated by that wallet', async () => {
    expect(seeded.length).toBe(PUBLISHING);
    for (const id of seeded) {
      const publishers = (await call(api, 'GET', `/providers/${id}/publishers`)).body.items;
      expect(publishers).toEqual([expect.objectContaining({ wallet: demoWallet(id).address, removedAt: null })]);
      const keys = (await call(api, 'GET', `/providers/${id}/publisher-keys`)).body.items;
      expect(keys).toEqual([
        expect.objectContaining({ key: demoBotKey(id).key, wallet: demoWallet(id).address, revokedAt: null }),
      ]);
    }
  });

  it('gives each six signals, newest first: open, expiring, partly closed, cancelled, updated, closed', async () => {
    for (const id of seeded) {
      const signals = publicView.get(id)!;
      expect(signals.map((s) => s.statements.map((statement) => statement.type))).toEqual([
        ['signal.open'],
        ['signal.open'],
        ['signal.open', 'signal.close'],
        ['signal.open', 'signal.cancel'],
        ['signal.open', 'signal.update'],
        ['signal.open', 'signal.update', 'signal.close', 'signal.close'],
      ]);
      expect(signals.map((s) => s.status)).toEqual([
        'open',
        expect.stringMatching(/^(open|expired)$/),
        'open',
        'cancelled',
        'open',
        'closed',
      ]);
      // The lists are newest first, and ids are opaque and distinct.
      const published = signals.map((s) => Date.parse(s.publishedAt));
      expect([...published].sort((a, b) => b - a)).toEqual(published);
      expect(new Set(signals.map((s) => s.id)).size).toBe(6);
    }
  });

  it('keeps some signals hidden behind a reveal delay, and shows them to a follower', async () => {
    const delays = new Set<number>();
    let hidden = 0;
    let mixed = 0;
    for (const id of seeded) {
      const signals = publicView.get(id)!;
      const shut = signals.filter((s) => Date.parse(s.revealAt) > Date.now());
      for (const s of signals) delays.add((Date.parse(s.revealAt) - Date.parse(s.publishedAt)) / 1000);
      // Hidden: no content and no statement text for the public, only the commitments.
      for (const s of shut) {
        expect(s.content).toBeNull();
        for (const statement of s.statements) {
          expect(statement).toMatchObject({ statement: null, signer: null, signature: null });
          expect(statement.commitment).toMatch(/^[0-9a-f]{64}$/);
        }
      }
      hidden += shut.length;
      if (shut.length > 0 && shut.length < signals.length) mixed += 1;
    }
    expect(hidden).toBeGreaterThan(0);
    expect(mixed).toBeGreaterThan(0);
    expect(delays.has(0)).toBe(true);
    expect([...delays].some((d) => d >= 3600)).toBe(true);

    // A follower of a provider with hidden signals sees their terms.
    const id = seeded.find((p) => publicView.get(p)!.some((s) => s.content === null))!;
    const { token } = await signIn(api, evmWallet());
    expect((await call(api, 'POST', `/providers/${id}/follow`, { token })).status).toBe(200);
    const followed = (await call(api, 'GET', `/providers/${id}/signals?limit=100`, { token })).body.items as Signal[];
    expect(followed.every((s) => s.content !== null && s.statements.every((st) => st.statement !== null))).toBe(true);
    const closedPart = followed[2]!;
    expect(closedPart.content!.openPct).toBe('66.7');
    expect(followed[5]!.content!.openPct).toBe('0');
  });

  it('signs every revealed statement with the demo keys, and each hashes to its logged commitment', async () => {
    let checked = 0;
    let due = 0;
    for (const id of seeded) {
      const wallet = demoWallet(id);
      const bot = demoBotKey(id);
      for (const signal of publicView.get(id)!) {
        if (Date.parse(signal.revealAt) <= readAt) due += signal.statements.length;
        for (const statement of signal.statements) {
          if (statement.statement === null) continue;
          expect(sha256(statement.statement)).toBe(statement.commitment);
          const body = JSON.parse(statement.statement);
          expect(body).toMatchObject({ v: 1, provider: id, type: statement.type });
          if (statement.signer === wallet.address) {
            await expect(
              verifyMessage({
                address: wallet.address,
                message: statement.statement,
                signature: statement.signature as `0x${string}`,
              }),
            ).resolves.toBe(true);
          } else {
            expect(statement.signer).toBe(bot.key);
            const ok = nacl.sign.detached.verify(
              new TextEncoder().encode(statement.statement),
              bs58.decode(statement.signature!),
              bs58.decode(bot.key.slice('ed25519:'.length)),
            );
            expect(ok).toBe(true);
          }
          checked += 1;
        }
      }
    }
    // Every statement past its reveal was public, whole, and checked; none before it.
    expect(checked).toBe(due);
    expect(due).toBeGreaterThan(PUBLISHING * 2);
  });

  it('has every statement in the served log, in a signed checkpoint Go verifies', async () => {
    const key = await fetchVerifierKey(api.url);
    const checkpoint = await fetchCheckpoint(api.url, key);
    const indexes = [...publicView.values()].flat().flatMap((s) => s.statements);
    // Twelve signal statements a provider, besides its publisher entry and its key delegation.
    expect(indexes.length).toBe(PUBLISHING * 12);
    expect(checkpoint.size).toBeGreaterThanOrEqual(PUBLISHING * 14);
    expect(Math.max(...indexes.map((s) => s.logIndex))).toBeLessThan(checkpoint.size);
    for (const statement of indexes.filter((_, i) => i % 7 === 0)) {
      const entry = JSON.parse(await servedEntry(api.url, key, statement.logIndex));
      expect(entry).toMatchObject({
        commitment: statement.commitment,
        type: statement.type,
        receivedAt: statement.receivedAt,
      });
    }
    const summary = await verifyLogWithGo(api.url, key, {
      inclusion: indexes.slice(0, 5).map((s) => ({ index: s.logIndex, size: checkpoint.size })),
    });
    expect(summary).toMatchObject({ size: checkpoint.size, entries: checkpoint.size });
    console.info(`demo-seed.test.ts (${backend}): reads ${startedMs.toFixed(0)} ms; log of ${checkpoint.size} entries`);
  });

  it('seeds nothing on a second start over the same database', async () => {
    if (backend !== 'postgres') return; // a second PGlite process cannot open the same data directory
    const before = (await fetchCheckpoint(api.url, await fetchVerifierKey(api.url))).size;
    let second: TestApi | undefined;
    try {
      second = await startApi(backend, {
        env: { SEED_PROVIDERS: String(PROVIDERS), SEED_SIGNAL_PROVIDERS: String(PUBLISHING) },
        databaseUrl: api.config.databaseUrl!,
        dataDir: api.config.dataDir,
      });
      const after = (await fetchCheckpoint(second.url, await fetchVerifierKey(second.url))).size;
      expect(after).toBe(before);
    } finally {
      await second?.stop();
    }
  });

  it('seeds no signal, and says why, under a per-signer limit below the seed’s own statements', async () => {
    if (backend !== 'postgres') return; // the same code on PGlite; one start of it is enough
    const log = logCapture();
    const low = await startApi(backend, {
      env: { SEED_PROVIDERS: '5', SEED_SIGNAL_PROVIDERS: '2', SIGNAL_RATE_LIMIT_PER_MINUTE: '5' },
      logger: log.logger,
    });
    try {
      expect((await fetchCheckpoint(low.url, await fetchVerifierKey(low.url))).size).toBe(0);
      expect(log.text()).toContain('demo signals not seeded: SIGNAL_RATE_LIMIT_PER_MINUTE=5');
    } finally {
      await low.stop();
    }
  });
});
