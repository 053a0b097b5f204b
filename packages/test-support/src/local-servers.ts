/**
 * Throwaway database servers beside the machine's PostgreSQL, for tests and the benchmark:
 * a PgBouncer in transaction mode in front of it (here), and a small primary cluster with a
 * streaming replica of its own (replica-clusters.ts, on the helpers here). Everything lives in scratch directories and on free loopback ports; the
 * machine's own cluster is only ever a client's upstream, never reconfigured.
 *
 * When run as root, the servers run as the `postgres` user (PostgreSQL refuses root, and the
 * scratch files are handed to that user).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './free-port.js';

export const run = promisify(execFile);

export class MissingToolError extends Error {
  override readonly name = 'MissingToolError';
}

export const isRoot = () => process.getuid?.() === 0;

/** Runs a server tool, as `postgres` when we are root. */
export async function runAsPostgres(command: string, args: string[], timeoutMs = 60_000): Promise<string> {
  const [file, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  try {
    const { stdout } = await run(file, argv, { timeout: timeoutMs });
    return stdout;
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`${command} ${args.join(' ')} failed: ${stderr || stdout || (error as Error).message}`);
  }
}

export async function postgresOwner(): Promise<{ uid: number; gid: number } | undefined> {
  if (!isRoot()) return undefined;
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  return { uid, gid };
}

/** Waits until `url` answers `select 1`, or throws after `timeoutMs`. */
export async function waitForDatabase(url: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
    try {
      await client.connect();
      await client.query('select 1');
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs} ms: ${error}`);
    } finally {
      await client.end().catch(() => {});
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `url` with its host and port (and user, when `via` names one) taken from `via`. */
export function reroute(url: string, via: string): string {
  const target = new URL(url);
  const pooler = new URL(via);
  target.hostname = pooler.hostname;
  target.port = pooler.port;
  if (pooler.username) target.username = pooler.username;
  return target.toString();
}

export interface PgBouncer {
  /** A URL of the pooler for the `postgres` database; reroute() others through it. */
  url: string;
  port: number;
  /** Transactions the pooler has carried per database since it started (SHOW STATS). */
  transactions(): Promise<Map<string, number>>;
  /** Its log, for failure messages. */
  log(): Promise<string>;
  /** Its process id (the bench reads its CPU time from /proc). */
  pid(): Promise<number>;
  stop(): Promise<void>;
}

const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'];

/**
 * Starts PgBouncer as production runs it behind a managed pooler: `pool_mode = transaction`,
 * `ignore_startup_parameters` at its default (none), every database of `upstream`'s server
 * reachable under its own name (`* =` wildcard), trust auth for the `postgres` user.
 */
export async function startPgBouncer(options: { upstream: string; poolSize?: number }): Promise<PgBouncer> {
  const binary = PGBOUNCER.find((path) => existsSync(path));
  if (!binary) throw new MissingToolError('pgbouncer is not installed (Debian: apt-get install pgbouncer)');
  const upstream = new URL(options.upstream);
  const user = decodeURIComponent(upstream.username || 'postgres');
  const dir = await mkdtemp(join(tmpdir(), 'signal-pgbouncer-'));
  const port = await freePort();
  const ini = join(dir, 'pgbouncer.ini');
  await writeFile(join(dir, 'userlist.txt'), `"${user}" ""\n`);
  await writeFile(
    ini,
    [
      '[databases]',
      `* = host=${upstream.hostname} port=${upstream.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 1000',
      `default_pool_size = ${options.poolSize ?? 20}`,
      `admin_users = ${user}`,
      // SHOW STATS totals are refreshed once per period.
      'stats_period = 1',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  const owner = await postgresOwner();
  if (owner) {
    for (const path of [dir, ini, join(dir, 'userlist.txt')]) await chown(path, owner.uid, owner.gid);
  }
  const log = () => readFile(join(dir, 'pgbouncer.log'), 'utf8').catch(() => '');
  const stop = async () => {
    const pid = Number((await readFile(join(dir, 'pgbouncer.pid'), 'utf8').catch(() => '')).trim());
    if (pid > 0) {
      try {
        process.kill(pid, 'SIGTERM');
        for (let i = 0; i < 100; i++) {
          process.kill(pid, 0);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } catch {
        // gone
      }
    }
    await rm(dir, { recursive: true, force: true });
  };
  const url = `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/postgres`;
  try {
    await runAsPostgres(binary, ['-d', ini]);
    await waitForDatabase(url);
  } catch (error) {
    const text = await log();
    await stop();
    throw new Error(`pgbouncer did not start: ${(error as Error).message}\n${text}`);
  }
  const transactions = async () => {
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    // The admin console speaks the simple query protocol only: a query without parameters.
    const admin = new pg.Client({
      connectionString: `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}/pgbouncer`,
    });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ database: string; total_xact_count: string }>('SHOW STATS');
      return new Map(rows.map((row) => [row.database, Number(row.total_xact_count)]));
    } finally {
      await admin.end();
    }
  };
  const pid = async () => Number((await readFile(join(dir, 'pgbouncer.pid'), 'utf8')).trim());
  return { url, port, transactions, log, pid, stop };
}
