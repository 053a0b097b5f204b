/**
 * `mix-signals` (issue 41, item 4): the capacity model's mix (`mixTarget`, the `mix` row's request
 * stream) with signal traffic added, on the service as production runs it (answer cache on),
 * against the baseline's mix (Fastify + pg, no signals), both on one copy of the catalogue
 * (databases.ts's `copyCatalogue`, dropped after), side by side in alternating rounds. The signal
 * traffic: SIGNAL_READ_SHARE of the requests read signals (⅔ `GET /providers/{id}/signals` of
 * SIGNAL_PROVIDERS providers, 30 % with a token; ⅓ `GET /me/signals` of users following them),
 * PUBLISH_RATE statements a second published (open loop, each answered with its receipt), and
 * `streams` `signals.live` streams on all those providers open for the whole row. The signals'
 * own cost, measured on the same server in the same rounds, is taken out: the publishing with no
 * requests (CPU per second) and the signal reads alone (CPU per read). Target: API + PostgreSQL
 * CPU per request of the shared part ≤ MIX_SIGNALS_TARGET× the baseline's mix.
 */
import type { NonceCodec } from '@signal/core/nonce';
import type autocannon from 'autocannon';
import { type MixBench, mixTarget, random } from './cached-rows.js';
import { type CatalogueCopy, randomProviderIds, settle } from './databases.js';
import { type BackendCpu, databaseCpu } from './db-cpu.js';
import { deliveries, openStreams, pause, type Stream } from './live-rows.js';
import { drive, type LoadTarget, median, type Sample } from './load.js';
import { type Kinds, publishing, withSignalReads } from './mix-signal-traffic.js';
import { type Row, row, type Verdict } from './report.js';
import { BASELINE_MAIN, type ServerSpec, startServer } from './servers.js';
import { type SignedIn, signIn } from './sign-in.js';
import { openBody, post, publishers, signalSpec } from './signal-rows.js';
import type { BenchWallet } from './wallets.js';

export const MIX_SIGNAL_KEYS = ['mix-signals'] as const;
export const MIX_SIGNALS_TARGET = 0.8;
const SIGNAL_READ_SHARE = 0.1;
const SIGNAL_PROVIDERS = 10;
const PUBLISH_RATE = 10;

export interface MixSignalRun {
  /** The service's spec (answer cache on) on a database. */
  spec: (databaseUrl: string) => ServerSpec;
  /** The copy of the catalogue (copyCatalogue), or undefined when the row is not wanted. */
  copy: CatalogueCopy | undefined;
  privateKeyPem: string;
  nonces: NonceCodec;
  evm: BenchWallet[];
  connections: number;
  plan: { warmupSeconds: number; seconds: number; rounds: number };
  streams: number;
  log: (line: string) => void;
}

type Cpu = { api: number; db: number };

export async function mixSignalRows(run: MixSignalRun): Promise<Map<string, Row>> {
  const rows = new Map<string, Row>();
  if (!run.copy) return rows;
  const { url } = run.copy;
  const off = { SIGNAL_RATE_LIMIT_PER_MINUTE: '0', STREAMS_PER_CREDENTIAL: '100000', STREAMS_MAX: '0' };
  const { LOG_ORIGIN: _, ...env } = signalSpec(run, url, { ...off, STREAMS_PER_ADDRESS: '0' }).env;
  const api = await startServer({
    ...run.spec(url),
    env,
    name: 'api (mix-signals)',
  });
  // The copy's log was started by the catalogue's servers, under their origin (LOG_ORIGIN unset):
  // a server of another origin would not sequence it (its note key names the origin).
  const origin = (await (await fetch(`${api.url}/log/checkpoint`)).text()).split('\n')[0] as string;
  const baseline = await startServer({
    name: 'baseline (mix-signals)',
    script: BASELINE_MAIN,
    env: { DATABASE_URL: url, JWT_PRIVATE_KEY: run.privateKeyPem },
  });
  const probe = databaseCpu(url);
  let streams: Stream[] = [];
  try {
    const signers = await publishers(api, SIGNAL_PROVIDERS, 'Bench Mix Signals', true, origin);
    const providerIds = [...new Set(signers.map((s) => s.providerId))];
    const users: SignedIn[] = [];
    for (const wallet of run.evm.slice(0, run.connections)) users.push(await signIn(api.url, wallet));
    for (const user of users)
      for (const id of providerIds) {
        const res = await fetch(`${api.url}/providers/${id}/follow`, {
          method: 'POST',
          headers: { authorization: `Bearer ${user.token}` },
        });
        await res.arrayBuffer();
      }
    // A history to read: 20 signals per provider (10 per signer) before the rounds.
    await Promise.all(
      signers.map(async (signer) => {
        for (let i = 0; i < 10; i++) {
          const { path, body } = openBody(signer, origin);
          await post(api, path, JSON.parse(body), { 'content-type': 'application/json' });
        }
      }),
    );
    const b: MixBench = {
      ids: await randomProviderIds(url, 5_000),
      users,
      nonces: run.nonces,
      evm: run.evm,
      connections: run.connections,
    };
    const { key } = (await post(api, '/admin/keys', { name: 'live', scopes: ['signals:read'] })) as { key: string };
    streams = await openStreams([api], key, providerIds, run.streams);
    const open = streams.filter((s) => s.connected).length;
    const reads = (next: () => number): Partial<autocannon.Request> => {
      const user = users[Math.floor(next() * users.length)];
      const auth = { authorization: `Bearer ${user?.token}` };
      if (next() < 1 / 3) return { path: '/me/signals', headers: auth };
      const path = `/providers/${providerIds[Math.floor(next() * providerIds.length)]}/signals`;
      return { path, headers: next() < 0.3 ? auth : {} };
    };
    const sent = new Map<string, number>();
    const kinds: Kinds = { shared: 0, signals: 0 };
    // PostgreSQL's CPU of a run, backends that connect during it counted from 0: the pools close
    // connections idle for 10 s, and each side waits longer than that for the other three.
    const withDb = (target: LoadTarget): LoadTarget => {
      let before: BackendCpu | undefined;
      const dbCpu = async () => {
        const sample = await probe.sample();
        const first = before;
        before = first ? undefined : sample;
        if (first) for (const pid of sample.keys()) if (!first.has(pid)) first.set(pid, 0);
        return sample;
      };
      return { ...target, dbCpu };
    };
    const mixed = withDb({
      ...withSignalReads(mixTarget(api, b), reads, kinds, SIGNAL_READ_SHARE),
      around: (go) => publishing(api, signers, origin, PUBLISH_RATE, sent, go),
    });
    const base = withDb(mixTarget(baseline, b));
    const readsOnly = withDb({
      url: api.url,
      cpuMs: api.cpuMs,
      requests: () => {
        const next = random(43);
        return [{ method: 'GET', setupRequest: (r) => ({ ...r, ...reads(next) }) as autocannon.Request }];
      },
    });
    const between = () => settle(url);
    /** API and PostgreSQL CPU of `seconds` of publishing alone, ms. */
    const background = async (seconds: number): Promise<Cpu> => {
      const [apiBefore, dbBefore] = [await api.cpuMs(), await probe.sample()];
      await publishing(api, signers, origin, PUBLISH_RATE, sent, () => pause(seconds * 1000));
      const [apiAfter, dbAfter] = [await api.cpuMs(), await probe.sample()];
      let db = 0;
      for (const [pid, ms] of dbAfter) db += ms - (dbBefore.get(pid) ?? 0);
      return { api: (apiAfter ?? 0) - (apiBefore ?? 0), db };
    };
    const samples = { mixed: [] as (Sample & Kinds)[], base: [] as Sample[], reads: [] as Sample[], idle: [] as Cpu[] };
    const once = async (which: keyof typeof samples, seconds: number, keep: boolean) => {
      if (which === 'idle') {
        const cpu = await background(seconds);
        if (keep) samples.idle.push(cpu);
      } else {
        const target = { mixed, base, reads: readsOnly }[which];
        const sample = await drive(target, seconds, run.connections);
        if (keep) (samples[which] as Sample[]).push(which === 'mixed' ? { ...sample, ...kinds } : sample);
      }
      await between();
    };
    const order = ['mixed', 'base', 'reads', 'idle'] as const;
    if (run.plan.warmupSeconds > 0) for (const which of order) await once(which, run.plan.warmupSeconds, false);
    for (let round = 0; round < run.plan.rounds; round++)
      for (const which of round % 2 === 0 ? order : [...order].reverse()) await once(which, run.plan.seconds, true);
    const got = await deliveries(streams, sent);
    const m = split(samples, run.plan.seconds);
    const mixedRps = samples.mixed.reduce((n, s) => n + s.rps, 0) / samples.mixed.length;
    const baseRps = samples.base.reduce((n, s) => n + s.rps, 0) / samples.base.length;
    const line = `shared part ${Math.round(m.shared.api)} + ${Math.round(m.shared.db)} µs per request (API + PostgreSQL) vs the baseline's mix ${Math.round(m.base.api)} + ${Math.round(m.base.db)} µs; the signals' own: a read ${Math.round(m.read.api)} + ${Math.round(m.read.db)} µs, a publish (its acceptance with the receipt, and its deliveries to ${open.toLocaleString('en-US')} streams; the process's own pollers' CPU included) ${Math.round(m.publish.api)} + ${Math.round(m.publish.db)} µs, ${Math.round(m.signalShare * 100)} % of the mixed run's CPU; delivery publish → every stream p50 ${got.q(0.5).toFixed(0)} ms, p99 ${got.q(0.99).toFixed(0)} ms, ${got.missing} missing`;
    run.log(`mix-signals: ${Math.round(mixedRps)} vs ${Math.round(baseRps)} req/s; ${line}`);
    ratios.set('mix-signals', { shared: m.shared.api + m.shared.db, base: m.base.api + m.base.db });
    rows.set(
      'mix-signals',
      row(
        "the capacity model's mix with signal traffic (shared part's CPU)",
        { ...figures(samples.mixed), rps: mixedRps, cpuUs: m.shared.api, dbCpuUs: m.shared.db },
        { ...figures(samples.base), rps: baseRps, cpuUs: m.base.api, dbCpuUs: m.base.db },
        `service: answer cache on, ${SIGNAL_READ_SHARE * 100} % of its requests signal reads (GET /providers/{id}/signals of ${SIGNAL_PROVIDERS} providers, a third GET /me/signals), ${PUBLISH_RATE} signals/s published, ${open.toLocaleString('en-US')} live streams on those providers; req/s: all its requests; CPU columns: the shared part only, the signals' own cost (measured alone in the same rounds) taken out; ${line}`,
      ),
    );
  } finally {
    for (const stream of streams) stream.socket.destroy();
    await probe.close();
    await api.stop();
    await baseline.stop();
    await run.copy.drop();
  }
  return rows;
}

/**
 * The mixed runs' CPU split: what the publishing alone costs per second and a signal read alone
 * costs per request, taken out of each mixed run, leaves the shared part per mix request.
 */
function split(samples: { mixed: (Sample & Kinds)[]; base: Sample[]; reads: Sample[]; idle: Cpu[] }, seconds: number) {
  const total = (s: Sample, pick: 'cpuUs' | 'dbCpuUs') => (s[pick] ?? 0) * s.served;
  const sum = <T>(xs: T[], f: (x: T) => number) => xs.reduce((n, x) => n + f(x), 0);
  const perSecond = {
    api: (sum(samples.idle, (c) => c.api) * 1000) / (samples.idle.length * seconds),
    db: (sum(samples.idle, (c) => c.db) * 1000) / (samples.idle.length * seconds),
  };
  const readsServed = sum(samples.reads, (s) => s.served);
  const read = {
    api: sum(samples.reads, (s) => total(s, 'cpuUs')) / readsServed,
    db: sum(samples.reads, (s) => total(s, 'dbCpuUs')) / readsServed,
  };
  let sharedApi = 0;
  let sharedDb = 0;
  let sharedServed = 0;
  let own = 0;
  let all = 0;
  for (const s of samples.mixed) {
    const signalsServed = (s.served * s.signals) / Math.max(1, s.shared + s.signals);
    const ownApi = perSecond.api * seconds + signalsServed * read.api;
    const ownDb = perSecond.db * seconds + signalsServed * read.db;
    sharedApi += total(s, 'cpuUs') - ownApi;
    sharedDb += total(s, 'dbCpuUs') - ownDb;
    sharedServed += s.served - signalsServed;
    own += ownApi + ownDb;
    all += total(s, 'cpuUs') + total(s, 'dbCpuUs');
  }
  const baseServed = sum(samples.base, (s) => s.served);
  return {
    shared: { api: sharedApi / sharedServed, db: sharedDb / sharedServed },
    base: {
      api: sum(samples.base, (s) => total(s, 'cpuUs')) / baseServed,
      db: sum(samples.base, (s) => total(s, 'dbCpuUs')) / baseServed,
    },
    read,
    publish: { api: perSecond.api / PUBLISH_RATE, db: perSecond.db / PUBLISH_RATE },
    signalShare: own / Math.max(1, all),
  };
}

const figures = (of: Sample[]) => ({ p50: median(of.map((s) => s.p50)), p99: median(of.map((s) => s.p99)) });

const ratios = new Map<string, { shared: number; base: number }>();

export function judgeMixSignals(): Verdict[] {
  const r = ratios.get('mix-signals');
  if (!r) return [];
  return [
    {
      target: `mix-signals: API + PostgreSQL CPU per request of the shared part ≤ ${MIX_SIGNALS_TARGET}× the baseline's mix`,
      measured: `${Math.round(r.shared)} vs ${Math.round(r.base)} µs (${(r.shared / r.base).toFixed(2)}×)`,
      met: r.shared <= MIX_SIGNALS_TARGET * r.base,
    },
  ];
}
