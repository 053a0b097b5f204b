/**
 * Webhook delivery across real server processes on one PostgreSQL database (CONTRACT.md,
 * "Webhooks": at least once, never lost; one event to one endpoint from one server at a time):
 * - kill -9 of the server in the middle of its attempts: every event still arrives, from the
 *   other server once the dead one's leases run out, and each delivery ends succeeded;
 * - SIGTERM while an attempt is in flight: the attempt finishes and is recorded before the
 *   process exits 0, nothing is sent twice;
 * - two servers delivering 1,000 events: each arrives exactly once (no duplicate success).
 */
import { randomBytes } from 'node:crypto';
import { createDatabase, type DatabaseHandle } from '@signal/db';
import { createPooledScratchDatabase, type PooledScratchDatabase } from '@signal/test-support';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../harness.js';
import { type ApiProcess, signingKeyPem, spawnApi } from '../process.js';
import { hanging, type Receiver, startReceiver, status } from '../webhook-receiver.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;

describe('webhook delivery across server processes (PostgreSQL)', () => {
  let scratch: PooledScratchDatabase;
  let direct: DatabaseHandle;
  let receiver: Receiver;
  let env: Record<string, string>;
  const processes: ApiProcess[] = [];
  const spawn = async (options: { viaPooler?: boolean } = {}) => {
    const server = await spawnApi(options.viaPooler ? { ...env, DATABASE_URL: scratch.pooledUrl } : env);
    processes.push(server);
    return server;
  };

  beforeAll(async () => {
    scratch = await createPooledScratchDatabase('both servers connect');
    direct = createDatabase({ url: scratch.url, poolSize: 2 });
    receiver = await startReceiver();
    env = {
      DATABASE_URL: scratch.url,
      JWT_PRIVATE_KEY: signingKeyPem(),
      ADMIN_KEY,
      METRICS: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms,200ms,200ms',
    };
  });
  afterEach(async () => {
    for (const server of processes.splice(0)) await server.crash();
    // Each test's endpoint only: the next test counts its own deliveries.
    await sql`delete from webhook_endpoints`.execute(direct.db);
  });
  afterAll(async () => {
    await receiver?.close();
    await direct?.close();
    await scratch?.drop();
  });

  const createEndpoint = async (server: ApiProcess, path: string) => {
    const created = await call(server, 'POST', '/webhooks', {
      token: ADMIN_KEY,
      body: { url: `${receiver.url}${path}`, types: ['provider.created'] },
    });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };
  const createProviders = async (servers: ApiProcess[], count: number) => {
    let next = 0;
    // Ten writers, alternating servers.
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < count) {
          const i = next++;
          const reply = await call(servers[i % servers.length]!, 'POST', '/providers', {
            token: ADMIN_KEY,
            body: { name: `provider ${i}` },
          });
          expect(reply.status).toBe(201);
        }
      }),
    );
  };
  const deliveries = async (endpointId: string) =>
    (
      await sql<{ status: string; attempts: number }>`
        select status, attempts from webhook_deliveries where endpoint_id = ${endpointId}
      `.execute(direct.db)
    ).rows;
  const distinctIds = (path: string) => new Set(receiver.at(path).map((request) => request.id));
  /**
   * A server with an endpoint at `path` that the receiver does not answer yet, and `providers`
   * new providers announced to it: back once the first attempt is in flight.
   */
  const attemptsHeld = async (path: string, providers: number) => {
    const hung = hanging();
    receiver.answer(path, hung.answer);
    const a = await spawn();
    const endpointId = await createEndpoint(a, path);
    await createProviders([a], providers);
    await receiver.until((all) => all.some((r) => r.path === path));
    return { hung, a, endpointId };
  };

  it('kill -9 mid-attempt: every event still arrives (from the other server), none lost', async () => {
    // The first server holds attempts in flight (the receiver does not answer them) ...
    const { hung, a, endpointId } = await attemptsHeld('/killed', 20);
    await a.crash();
    hung.release(200);
    // ... and dies. From now on the receiver answers; a second server takes over.
    receiver.answer('/killed', status(200));
    const b = await spawn();
    await receiver.until(() => distinctIds('/killed').size === 20, 120_000);
    const rows = await (async () => {
      for (;;) {
        const current = await deliveries(endpointId);
        if (current.length === 20 && current.every((row) => row.status === 'succeeded')) return current;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    expect(rows).toHaveLength(20);
    expect(b.output()).not.toContain('"level":50');
  }, 180_000);

  it('SIGTERM with an attempt in flight: it finishes and is recorded before the exit', async () => {
    const { hung, a, endpointId } = await attemptsHeld('/draining', 1);
    const exited = a.terminate();
    // Stopping (readiness says so), the attempt still open: now the receiver answers it.
    for (;;) {
      const ready = await fetch(`${a.url}/ready`).then(
        (res) => res.status,
        () => 0,
      );
      if (ready !== 200) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    hung.release(200);
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(await deliveries(endpointId)).toEqual([{ status: 'succeeded', attempts: 1 }]);
    expect(receiver.at('/draining')).toHaveLength(1);
  }, 60_000);

  it('two servers (one through PgBouncer), 1,000 events: each delivered exactly once', async () => {
    const [a, b] = await Promise.all([spawn(), spawn({ viaPooler: true })]);
    const endpointId = await createEndpoint(a!, '/pair');
    await createProviders([a!, b!], 1_000);
    await receiver.until(() => distinctIds('/pair').size === 1_000, 120_000);
    // Every delivery recorded succeeded after one attempt, and nothing was sent twice.
    for (;;) {
      const rows = await deliveries(endpointId);
      if (rows.length === 1_000 && rows.every((row) => row.status === 'succeeded')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(receiver.at('/pair')).toHaveLength(1_000);
    expect((await deliveries(endpointId)).every((row) => row.attempts === 1)).toBe(true);
    const delivered = async (server: ApiProcess) => {
      const text = (await call(server, 'GET', '/metrics')).body as string;
      return Number(/^signal_webhook_deliveries_total\{outcome="succeeded"\} (\S+)$/m.exec(text)?.[1]);
    };
    const [byA, byB] = [await delivered(a!), await delivered(b!)];
    expect(byA + byB).toBe(1_000);
    // The pooler really carried the second server's transactions.
    if (scratch.pooler)
      expect((await scratch.pooler.transactions()).get(new URL(scratch.url).pathname.slice(1)) ?? 0).toBeGreaterThan(0);
    console.log(`two servers, 1,000 webhook deliveries: ${byA} from one, ${byB} from the other, none twice`);
  }, 240_000);
});
