/**
 * Soak: SOAK_SECONDS (default 60) of mixed traffic at SOAK_CONNECTIONS (default 50) against
 * the built server as a child process on a scratch PostgreSQL database — sign-ins of both
 * wallet families, lists, details, stats, /me, follows and unfollows — then checks:
 * no 5xx, resident memory at the end within 20 % of its level after warm-up, every
 * acknowledged follow and unfollow in the database, every followerCount equal to its rows,
 * and a clean SIGTERM exit. Prints the figures; exits 1 when a check fails.
 *
 *   pnpm --filter @signal/api soak                 # 60 s
 *   SOAK_SECONDS=10 pnpm --filter @signal/api soak # the CI run
 *
 * Traffic goes to 127.0.0.1 only; the run is bounded by SOAK_SECONDS.
 */
import { Agent, request as httpRequest } from 'node:http';
import { createDatabase } from '@signal/db';
import { createScratchDatabase } from '@signal/test-support';
import { buildIfStale } from '../test/global-setup.js';
import { evmWallet, solanaWallet, type TestWallet } from '../test/harness.js';
import { signingKeyPem, spawnApi } from '../test/process.js';
import { checkFollowInvariants, pairKey } from '../test/storm.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 60);
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS ?? 50);
const WARMUP_SECONDS = Number(process.env.SOAK_WARMUP_SECONDS ?? Math.max(2, Math.min(15, Math.round(SECONDS / 4))));
const PROVIDERS = Number(process.env.SOAK_PROVIDERS ?? 200);
const RSS_TOLERANCE = 0.2;
const GC_SECONDS = 5;
const PROBE = new URL('./soak-probe.mjs', import.meta.url).href;

interface Probe {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}

type Op = 'login' | 'list' | 'detail' | 'stats' | 'me' | 'following' | 'follow' | 'unfollow';
const MIX: [Op, number][] = [
  ['login', 6],
  ['list', 28],
  ['detail', 16],
  ['stats', 10],
  ['me', 6],
  ['following', 6],
  ['follow', 16],
  ['unfollow', 12],
];
const MIX_TOTAL = MIX.reduce((n, [, w]) => n + w, 0);

function pickOp(): Op {
  let r = Math.random() * MIX_TOTAL;
  for (const [op, weight] of MIX) {
    r -= weight;
    if (r < 0) return op;
  }
  return 'list';
}

const rand = (n: number) => Math.floor(Math.random() * n);
/** Each sign-in comes from its own address, as many users behind a load balancer would. */
const randomClient = () => `10.${rand(256)}.${rand(256)}.${1 + rand(254)}`;

interface Reply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers of several shapes, read field by field
  body: any;
}

const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });

function send(
  url: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; client?: string } = {},
): Promise<Reply> {
  const { port } = new URL(url);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.client) headers['x-forwarded-for'] = options.client;
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return new Promise((resolve) => {
    const req = httpRequest({ host: '127.0.0.1', port: Number(port), method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
      res.on('error', () => resolve({ status: 0, body: undefined }));
    });
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, body: undefined }));
    req.end(payload);
  });
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main() {
  buildIfStale();
  const scratch = await createScratchDatabase();
  const db = createDatabase({ url: scratch.url, poolSize: 2 });
  const api = await spawnApi({
    DATABASE_URL: scratch.url,
    JWT_PRIVATE_KEY: signingKeyPem(),
    SEED_PROVIDERS: String(PROVIDERS),
    TRUST_PROXY: 'true',
    AUTH_RATE_LIMIT_PER_MINUTE: '60',
    // Load from one host, many users: the per-user and per-address limits would throttle the soak itself.
    FOLLOW_RATE_LIMIT_PER_MINUTE: '0',
    READ_RATE_LIMIT_PER_MINUTE: '0',
    NEW_USER_RATE_LIMIT_PER_HOUR: '0',
    NEW_USER_RATE_LIMIT_PER_HOUR_PER_56: '0',
    NODE_OPTIONS: `--expose-gc --import=${PROBE} ${process.env.SOAK_NODE_OPTIONS ?? ''}`.trim(),
  });
  /** Memory of the server after a full collection (see soak-probe.mjs). */
  const probe = async (): Promise<Probe> => {
    const seen = api.output().split('soakProbe').length;
    api.child.kill('SIGUSR2');
    const until = Date.now() + 10_000;
    while (api.output().split('soakProbe').length === seen) {
      if (Date.now() > until) throw new Error('the server did not answer the memory probe');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const lines = api
      .output()
      .split('\n')
      .filter((line) => line.includes('soakProbe'));
    return JSON.parse(lines.at(-1)!).soakProbe;
  };
  const failures: string[] = [];
  try {
    const ids = (await send(api.url, 'GET', `/providers?limit=100&sortBy=id&order=asc`)).body.items.map(
      (p: { id: number }) => p.id,
    ) as number[];

    const login = async (wallet: TestWallet) => {
      const client = randomClient();
      const nonce = await send(api.url, 'GET', `/auth/nonce?wallet=${wallet.address}`, { client });
      if (nonce.status !== 200) return { nonce, verify: undefined };
      const verify = await send(api.url, 'POST', '/auth/verify', {
        client,
        body: { wallet: wallet.address, nonce: nonce.body.nonce, signature: await wallet.sign(nonce.body.message) },
      });
      return { nonce, verify };
    };

    // One user per connection. Follows and unfollows go to disjoint providers (the unfollow
    // ones followed up front), so an acknowledged change can only be undone by a bug.
    const workers = [];
    for (let w = 0; w < CONNECTIONS; w++) {
      const wallet = w % 2 === 0 ? evmWallet() : solanaWallet();
      const { verify } = await login(wallet);
      if (verify?.status !== 200) throw new Error(`setup sign-in failed: ${JSON.stringify(verify?.body)}`);
      const shuffled = [...ids].sort(() => Math.random() - 0.5).slice(0, 20);
      const worker = {
        wallet,
        token: verify.body.token as string,
        userId: verify.body.user.id as number,
        follow: shuffled.slice(0, 10),
        unfollow: shuffled.slice(10),
      };
      for (const id of worker.unfollow) await send(api.url, 'POST', `/providers/${id}/follow`, { token: worker.token });
      workers.push(worker);
    }

    const counts = new Map<Op, Map<number, number>>();
    const latencies: number[] = [];
    const followed = new Set<string>();
    const unfollowed = new Set<string>();
    let requests = 0;
    const record = (op: Op, status: number, ms: number) => {
      requests++;
      latencies.push(ms);
      const byStatus = counts.get(op) ?? new Map<number, number>();
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      counts.set(op, byStatus);
    };

    const started = Date.now();
    const deadline = started + SECONDS * 1000;
    // Memory after a full collection every GC_SECONDS, under load like everything else (the
    // collection runs between requests). Without it V8 lets garbage pile up between major
    // collections and RSS follows the collector's schedule (130–200 MB here in unforced runs,
    // up and down) rather than what the process keeps, which is what a leak would grow.
    const probes: (Probe & { at: number })[] = [];
    let probing = Promise.resolve();
    const sampler = setInterval(() => {
      probing = probe().then((p) => {
        probes.push({ ...p, at: (Date.now() - started) / 1000 });
      });
    }, GC_SECONDS * 1000);

    await Promise.all(
      workers.map(async (worker) => {
        while (Date.now() < deadline) {
          const op = pickOp();
          const t0 = performance.now();
          let status: number;
          switch (op) {
            case 'login': {
              // Half the sign-ins are the worker's own wallet again, half a brand-new user.
              const { nonce, verify } = await login(
                Math.random() < 0.5 ? worker.wallet : rand(2) ? evmWallet() : solanaWallet(),
              );
              status = verify?.status ?? nonce.status;
              if (verify?.status === 200 && verify.body.user.id === worker.userId) worker.token = verify.body.token;
              break;
            }
            case 'list': {
              const sortBy = ['followerCount', 'createdAt', 'name', 'id'][rand(4)];
              const order = rand(2) ? 'asc' : 'desc';
              const limit = 1 + rand(50);
              status = (
                await send(
                  api.url,
                  'GET',
                  `/providers?page=${1 + rand(5)}&limit=${limit}&sortBy=${sortBy}&order=${order}`,
                )
              ).status;
              break;
            }
            case 'detail':
              status = (await send(api.url, 'GET', `/providers/${ids[rand(ids.length)]}`)).status;
              break;
            case 'stats':
              status = (await send(api.url, 'GET', `/providers/${ids[rand(ids.length)]}/stats`)).status;
              break;
            case 'me':
              status = (await send(api.url, 'GET', '/me', { token: worker.token })).status;
              break;
            case 'following':
              status = (await send(api.url, 'GET', `/me/following?limit=${1 + rand(20)}`, { token: worker.token }))
                .status;
              break;
            case 'follow': {
              const id = worker.follow[rand(worker.follow.length)]!;
              status = (await send(api.url, 'POST', `/providers/${id}/follow`, { token: worker.token })).status;
              if (status === 200) followed.add(pairKey(worker.userId, id));
              break;
            }
            case 'unfollow': {
              const id = worker.unfollow[rand(worker.unfollow.length)]!;
              status = (await send(api.url, 'DELETE', `/providers/${id}/follow`, { token: worker.token })).status;
              if (status === 200) unfollowed.add(pairKey(worker.userId, id));
              break;
            }
          }
          record(op, status, performance.now() - t0);
        }
      }),
    );
    const elapsed = (Date.now() - started) / 1000;
    clearInterval(sampler);
    await probing;
    const end = { ...(await probe()), at: elapsed };
    const warm = probes.find((p) => p.at >= WARMUP_SECONDS) ?? end;

    // ---- checks ----
    let fiveXx = 0;
    let noAnswer = 0;
    const other = new Map<number, number>();
    for (const byStatus of counts.values()) {
      for (const [status, n] of byStatus) {
        if (status >= 500) fiveXx += n;
        else if (status === 0) noAnswer += n;
        else if (status !== 200) other.set(status, (other.get(status) ?? 0) + n);
      }
    }
    if (fiveXx > 0) failures.push(`${fiveXx} answers were 5xx`);
    if (noAnswer > 0) failures.push(`${noAnswer} requests got no answer`);
    for (const [status, n] of other) if (status !== 429) failures.push(`${n} answers were ${status}`);

    const invariants = await checkFollowInvariants(db.db, { followed, unfollowed }, { target: api, providerIds: ids });
    if (invariants.countMismatches.length > 0)
      failures.push(`follower counts off: ${JSON.stringify(invariants.countMismatches)}`);
    if (invariants.lostFollows.length > 0)
      failures.push(`${invariants.lostFollows.length} acknowledged follows missing`);
    if (invariants.resurrected.length > 0)
      failures.push(`${invariants.resurrected.length} acknowledged unfollows undone`);
    for (const { id, shown, rows } of invariants.apiMismatches) {
      failures.push(`provider ${id}: the API shows followerCount ${shown}, ${rows} rows`);
    }

    const growth = (end.rss - warm.rss) / warm.rss;
    const heapGrowth = (end.heapUsed - warm.heapUsed) / warm.heapUsed;
    if (growth > RSS_TOLERANCE) {
      failures.push(`RSS grew ${(growth * 100).toFixed(1)} % after warm-up (limit ${RSS_TOLERANCE * 100} %)`);
    }

    const exit = await api.terminate();
    if (exit.code !== 0) failures.push(`SIGTERM exit ${JSON.stringify(exit)}`);

    // ---- figures ----
    const sorted = latencies.sort((x, y) => x - y);
    console.log(
      `\nsoak: ${elapsed.toFixed(1)} s at ${CONNECTIONS} connections, ${PROVIDERS} providers, real PostgreSQL`,
    );
    console.log(`requests:      ${requests} (${Math.round(requests / elapsed)}/s)`);
    for (const [op] of MIX) {
      const byStatus = counts.get(op) ?? new Map();
      const total = [...byStatus.values()].reduce((n, v) => n + v, 0);
      const detail = [...byStatus.entries()].map(([s, n]) => `${s}×${n}`).join(' ');
      console.log(`  ${op.padEnd(10)} ${String(total).padStart(7)}  ${detail}`);
    }
    console.log(`5xx:           ${fiveXx}`);
    console.log(`other non-200: ${other.size === 0 ? 0 : JSON.stringify(Object.fromEntries(other))}`);
    console.log(
      `latency:       p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms`,
    );
    console.log(
      `memory:        RSS ${mb(warm.rss)} after ${WARMUP_SECONDS} s warm-up, ${mb(end.rss)} at end ` +
        `(${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)} %), after a full GC; heap used ${mb(warm.heapUsed)} → ` +
        `${mb(end.heapUsed)} (${heapGrowth >= 0 ? '+' : ''}${(heapGrowth * 100).toFixed(1)} %); ` +
        `RSS peaked at ${mb(Math.max(...probes.map((p) => p.rss), end.rss))}`,
    );
    console.log(
      `follows:       ${followed.size} follows and ${unfollowed.size} unfollows acknowledged, all in the database; ` +
        `${invariants.followRows} follow rows, every followerCount equal to its rows`,
    );
    const series = [...probes, end].map((p) => `${Math.round(p.at)} s ${mb(p.rss)}`);
    console.log(`RSS after GC:  ${series.join(', ')}`);
    console.log(`shutdown:      SIGTERM → exit ${exit.code}`);
  } finally {
    await api.crash();
    await db.close();
    await scratch.drop();
    agent.destroy();
  }
  if (failures.length > 0) {
    console.error(`\nsoak FAILED:\n- ${failures.join('\n- ')}`);
    process.exit(1);
  }
  console.log('\nsoak passed');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
