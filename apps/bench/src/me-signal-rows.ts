/**
 * `GET /me/signals` (issue 41, item 4): `me-signals`, page 1, and `me-signals-deep`, a cursor at
 * 80 % of the feed's depth, for a user following ME_PROVIDERS providers, at the plan's 50
 * connections. The database, `signal_bench_signals_<size>_<digest>`, is seeded once through the
 * open route (`POST /providers/{id}/signals`, 64 writers, the per-signer limit off) and kept and
 * reused like the log's; a seed cut short by its time budget resumes on the next run. Page 1's
 * baseline column is `GET /me` of the same user; the depth's, page 1. Target: p99 ≤ 50 ms.
 */
import { randomBytes } from 'node:crypto';
import * as db from '@signal/db';
import { ADMIN_URL, BENCH_STATEMENT_TIMEOUT, benchDatabase, settle, withClient } from './databases.js';
import { databaseCpu } from './db-cpu.js';
import { compare, type LoadPlan } from './load.js';
import { type Row, row, type Verdict } from './report.js';
import { get } from './scenarios.js';
import { startServer } from './servers.js';
import { signIn } from './sign-in.js';
import { openBody, post, type SignalRun, type Signer, signalSpec } from './signal-rows.js';
import { type BenchWallet, evmWallet, solanaWallet } from './wallets.js';

export const ME_SIGNAL_KEYS = ['me-signals', 'me-signals-deep'] as const;
export const ME_TARGET_P99_MS = 50;
const ME_PROVIDERS = 500;
/** Concurrent writers of the seed. */
const WRITERS = 64;

/** The `/me/signals` database's name: its size and the migrations' digest. */
const meDatabase = (size: number) => benchDatabase('signals_', size);

interface MeSeed {
  url: string;
  /** Signals it holds now (a seed cut short holds fewer than asked). */
  signals: number;
  follower: BenchWallet;
  /** Log entries in its tree. */
  logSize: number;
}

/**
 * The `/me/signals` database: ME_PROVIDERS providers with a Solana publisher each (fast to sign),
 * one user following them all, and `run.meSignals` signals spread over them, opened through the
 * route by 64 writers. The bench's own table `bench_seed` keeps the follower's key, the
 * publishers' keys and the count, so a later run signs in as the same user and goes on seeding.
 */
async function prepareMeDatabase(run: SignalRun): Promise<MeSeed> {
  const { name, url } = meDatabase(run.meSignals);
  const exists = await withClient(
    ADMIN_URL,
    async (client) => (await client.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1,
  );
  if (!exists) {
    await withClient(ADMIN_URL, (client) => client.query(`create database ${name}`));
    const database = db.createDatabase({ url, poolSize: 2 });
    try {
      await db.migrateToLatest(database.db);
    } finally {
      await database.close();
    }
    await withClient(url, (client) =>
      client.query(
        `create table bench_seed (follower bytea not null, signals integer not null, publishers jsonb not null)`,
      ),
    );
  }
  const api = await startServer({
    ...signalSpec(run, url, { SIGNAL_RATE_LIMIT_PER_MINUTE: '0' }),
    name: 'api (signals seed)',
  });
  try {
    type Kept = { providerId: number; secret: string }[];
    let seed = await withClient(
      url,
      async (client) =>
        (await client.query<{ follower: Buffer; signals: number; publishers: Kept }>('select * from bench_seed'))
          .rows[0],
    );
    if (!seed) {
      const follower = evmWallet();
      const kept: Kept = [];
      const { token } = await signIn(api.url, follower);
      for (let i = 0; i < ME_PROVIDERS; i++) {
        const { id } = (await post(api, '/providers', { name: `Bench Signals ${i + 1}` })) as { id: number };
        const secret = randomBytes(32).toString('hex');
        const wallet = solanaFromSeed(secret);
        await post(api, `/providers/${id}/publishers`, { wallet: wallet.address });
        const res = await fetch(`${api.url}/providers/${id}/follow`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
        });
        await res.arrayBuffer();
        if (res.status >= 300) throw new Error(`POST /providers/${id}/follow answered ${res.status}`);
        kept.push({ providerId: id, secret });
      }
      await withClient(url, (client) =>
        client.query('insert into bench_seed values ($1, 0, $2)', [follower.privateKey, JSON.stringify(kept)]),
      );
      seed = { follower: follower.privateKey, signals: 0, publishers: kept };
    }
    const signers: Signer[] = seed.publishers.map(({ providerId, secret }) => {
      const wallet = solanaFromSeed(secret);
      return { providerId, id: wallet.address, sign: (text) => wallet.sign(text) };
    });
    let signals = seed.signals;
    if (signals < run.meSignals) {
      const started = performance.now();
      const deadline = started + run.seedSeconds * 1000;
      const from = signals;
      // Each answer's time, closed loop: the open route's capacity with WRITERS in flight.
      const answers: number[] = [];
      const refused = new Map<number, number>();
      const writer = async () => {
        while (performance.now() < deadline) {
          const next = signals;
          if (next >= run.meSignals) return;
          signals++;
          // Round-robin over the providers, so every provider's history grows alike.
          const { path, body } = openBody(signers[next % signers.length] as Signer);
          const sentAt = performance.now();
          // A reset keep-alive socket (the server closing an idle one as it is reused) is a refusal too.
          const res = await fetch(`${api.url}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body,
          }).catch(() => null);
          const text = res ? await res.text().catch(() => '') : 'no answer';
          if (!res) {
            refused.set(0, (refused.get(0) ?? 0) + 1);
            signals--;
            continue;
          }
          // A refusal under load (503 when the pool is exhausted) costs the seed one signal, not the run.
          if (res.status !== 201) {
            refused.set(res.status, (refused.get(res.status) ?? 0) + 1);
            signals--;
            if (refused.size > 0 && [...refused.values()].reduce((a, b) => a + b) > 1_000)
              throw new Error(`seed: POST ${path} answered ${res.status}: ${text}`);
            continue;
          }
          answers.push(performance.now() - sentAt);
        }
      };
      await Promise.all(Array.from({ length: WRITERS }, writer));
      await withClient(url, (client) => client.query('update bench_seed set signals = $1', [signals]));
      const seconds = (performance.now() - started) / 1000;
      answers.sort((a, b) => a - b);
      const at = (q: number) => answers[Math.min(answers.length - 1, Math.floor(q * answers.length))]?.toFixed(0);
      run.log(
        `${name}: seeded ${signals - from} signals in ${seconds.toFixed(0)} s (${Math.round((signals - from) / seconds)}/s by ${WRITERS} writers, closed loop: answer with receipt p50 ${at(0.5)} ms, p99 ${at(0.99)} ms${refused.size ? `; refused: ${[...refused].map(([status, n]) => `${n}× ${status}`).join(', ')}` : ''}); it holds ${signals} of ${run.meSignals}`,
      );
    }
    const note = await (await fetch(`${api.url}/log/checkpoint`)).text();
    await withClient(ADMIN_URL, (client) =>
      client.query(`alter database ${name} set statement_timeout = '${BENCH_STATEMENT_TIMEOUT}'`),
    );
    return { url, signals, follower: evmWallet(seed.follower), logSize: Number(note.split('\n')[1]) };
  } finally {
    await api.stop();
  }
}

/** A Solana wallet from a 32-byte hex seed (kept in bench_seed), signing like solanaWallet's. */
function solanaFromSeed(secret: string): BenchWallet {
  return solanaWallet(Buffer.from(secret, 'hex'));
}

export async function meSignalRows(run: SignalRun): Promise<Map<string, Row>> {
  const rows = new Map<string, Row>();
  if (!ME_SIGNAL_KEYS.some(run.wanted)) return rows;
  const seed = await prepareMeDatabase(run);
  const api = await startServer({ ...signalSpec(run, seed.url), name: 'api (me/signals)' });
  try {
    const { token } = await signIn(api.url, seed.follower);
    const auth = [{ authorization: `Bearer ${token}` }];
    // The cursor at depth: walked from page 1 in pages of 100 to 80 % of the signals.
    const depth = Math.floor((seed.signals * 0.8) / 100) * 100;
    let cursor: string | null = null;
    for (let walked = 0; walked < depth; walked += 100) {
      const res = await fetch(`${api.url}/me/signals?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
        headers: auth[0],
      });
      if (res.status !== 200) throw new Error(`GET /me/signals answered ${res.status}: ${await res.text()}`);
      cursor = ((await res.json()) as { nextCursor: string | null }).nextCursor;
      if (!cursor) break;
    }
    const plan: LoadPlan = { ...run.plan, between: () => settle(seed.url) };
    // PostgreSQL's CPU per request too: the feed's cost is mostly its query.
    const probe = databaseCpu(seed.url);
    const target = (paths: string[]) => ({ ...get(api, paths, auth), dbCpu: () => probe.sample() });
    const size = `${seed.signals.toLocaleString('en-US')} signals of ${ME_PROVIDERS} followed providers, a log of ${seed.logSize.toLocaleString('en-US')} entries`;
    if (run.wanted('me-signals')) {
      const result = await compare(target(['/me/signals']), target(['/me']), plan);
      rows.set(
        'me-signals',
        row(
          'GET /me/signals page 1, following 500 providers',
          result.service,
          result.baseline,
          `${size}; one user, ${run.plan.connections} connections; baseline column: GET /me of the same user`,
        ),
      );
    }
    if (run.wanted('me-signals-deep') && cursor) {
      const result = await compare(target([`/me/signals?cursor=${cursor}`]), target(['/me/signals']), plan);
      rows.set(
        'me-signals-deep',
        row(
          `GET /me/signals by cursor at depth ${depth.toLocaleString('en-US')}`,
          result.service,
          result.baseline,
          `${size}; baseline column: page 1 of the same feed`,
        ),
      );
    }
    await probe.close();
  } finally {
    await api.stop();
  }
  return rows;
}

export function judgeMeSignals(rows: Map<string, Row>): Verdict[] {
  const verdicts: Verdict[] = [];
  for (const key of ['me-signals', 'me-signals-deep'] as const) {
    const r = rows.get(key);
    if (!r) continue;
    const p99 = r.service.p99 ?? Number.POSITIVE_INFINITY;
    verdicts.push({
      target: `${key}: p99 ≤ ${ME_TARGET_P99_MS} ms at 50 connections`,
      measured: `p99 ${p99} ms (p50 ${r.service.p50} ms), ${Math.round(r.service.rps)} req/s`,
      met: p99 <= ME_TARGET_P99_MS,
    });
  }
  return verdicts;
}
