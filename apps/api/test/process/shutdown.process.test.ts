/**
 * Graceful shutdown of the built server (a child process): SIGTERM under load lets requests
 * already received finish with 200, refuses new connections, and exits with code 0; a request
 * whose client has gone is still carried to its end before the database pool closes.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { createDatabase } from '@signal/db';
import { scratchDatabaseForTests } from '@signal/test-support/vitest';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { call, evmWallet, signIn } from '../harness.js';
import { type ApiProcess, spawnApi } from '../process.js';

/** One GET on a fresh connection: the HTTP status, or the socket error's code. */
function getOnce(url: string, path: string): Promise<number | string> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const req = httpRequest({ host: '127.0.0.1', port: Number(port), path, agent: false, timeout: 15_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve('ERESPONSE'));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

function connectOnce(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}

describe('SIGTERM', () => {
  const scratch = scratchDatabaseForTests();
  let api: ApiProcess | undefined;

  afterAll(async () => {
    await api?.crash();
  });

  it('finishes what it received with 200, refuses new connections, exits 0', async () => {
    api = await spawnApi({ DATABASE_URL: scratch.url, SEED_PROVIDERS: '5' });
    const server = api;

    // A sign-in whose body is still arriving when the signal comes: in flight, by any measure.
    const wallet = evmWallet();
    const nonce = await call(server, 'GET', `/auth/nonce?wallet=${wallet.address}`);
    const body = JSON.stringify({
      wallet: wallet.address,
      nonce: nonce.body.nonce,
      signature: await wallet.sign(nonce.body.message),
    });
    const half = Math.floor(body.length / 2);
    const slow = connect(server.port, '127.0.0.1');
    let answer = '';
    slow.on('data', (chunk) => {
      answer += chunk.toString();
    });
    const slowDone = new Promise<void>((resolve) => slow.on('close', () => resolve()));
    slow.write(
      `POST /auth/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, half)}`,
    );

    // Load on fresh connections until the process is gone.
    let running = true;
    const outcomes: (number | string)[] = [];
    const load = Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        while (running) {
          const outcome = await getOnce(server.url, i % 2 ? '/providers?limit=5' : '/providers/1');
          outcomes.push(outcome);
          // Refusals come back at once: pace them, the exit is what is being waited for.
          if (typeof outcome === 'string') await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 400));
    const beforeSignal = outcomes.length;

    server.child.kill('SIGTERM');
    // Closed for new connections while the slow request is still open: within moments of the
    // signal (polled, since a loaded machine may take more than a few hundred ms to deliver it).
    let reached = 'connected';
    for (let waited = 0; waited < 5_000 && reached !== 'ECONNREFUSED'; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      reached = await connectOnce(server.port);
    }
    expect(reached).toBe('ECONNREFUSED');

    slow.write(body.slice(half));
    await slowDone;
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toMatch(/"token":"[\w-]+\.[\w-]+\.[\w-]+"/);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);

    const exit = await Promise.race([
      server.exited,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no exit within 15 s')), 15_000)),
    ]);
    running = false;
    await load;
    expect(exit).toEqual({ code: 0, signal: null });

    // Every HTTP answer was a 200; what did not get one was refused or closed before it was read.
    const statuses = outcomes.filter((o): o is number => typeof o === 'number');
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const refusals = outcomes.filter((o) => typeof o === 'string');
    expect(
      new Set(refusals).size === 0 || [...new Set(refusals)].every((r) => ['ECONNREFUSED', 'ECONNRESET'].includes(r)),
    ).toBe(true);
    expect(outcomes.slice(0, beforeSignal).every((o) => o === 200)).toBe(true);
    expect(refusals.length).toBeGreaterThan(0);
    console.log(
      `SIGTERM under load: ${statuses.length} answered 200 (${statuses.length - beforeSignal} after the signal), ` +
        `${refusals.length} refused (${[...new Set(refusals)].join(', ')}), in-flight sign-in 200, exit 0`,
    );

    // The sign-in that finished during shutdown is in the database, its nonce used.
    const db = createDatabase({ url: scratch.url, poolSize: 1 });
    try {
      const used = await db.db
        .selectFrom('used_nonces')
        .select('used_at')
        .where('nonce', '=', nonce.body.nonce)
        .execute();
      expect(used[0]?.used_at).toBeInstanceOf(Date);
      const users = await db.db.selectFrom('users').select('id').where('wallet', '=', wallet.address).execute();
      expect(users).toHaveLength(1);
    } finally {
      await db.close();
    }
  });

  it('finishes its queries before the pool closes: nothing fails, exit 0 after it', async () => {
    api = await spawnApi({ DATABASE_URL: scratch.url });
    const server = api;
    const { token } = await signIn(server, evmWallet());

    // GET /me reads the session, then the user. The session table is locked, so the request
    // waits on its first query while its client leaves and the signal comes.
    const observer = createDatabase({ url: scratch.url, poolSize: 1 });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = observer.db.transaction().execute(async (trx) => {
      await sql`lock table sessions in access exclusive mode`.execute(trx);
      locked();
      await released;
    });
    try {
      await lockTaken;
      const client = connect(server.port, '127.0.0.1');
      await new Promise<void>((resolve) => client.on('connect', () => resolve()));
      client.write(`GET /me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      client.destroy();
      await new Promise((resolve) => setTimeout(resolve, 100));

      server.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 500));
      // No connection is left, but the request is: the process waits for it.
      expect(server.child.exitCode).toBeNull();
      release();
      await holder;

      const exit = await Promise.race([
        server.exited,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no exit within 15 s')), 15_000)),
      ]);
      expect(exit).toEqual({ code: 0, signal: null });
      // Its second query (the user) ran on an open pool: no failure was logged.
      expect(server.output()).not.toMatch(/request failed|Cannot use a pool/);
    } finally {
      release();
      await holder.catch(() => {});
      await observer.close();
    }
  });
});
