/**
 * Throwaway database servers beside the machine's PostgreSQL, for tests and the benchmark:
 * a PgBouncer in transaction mode in front of it, and a small primary cluster with a streaming
 * replica of its own. Everything lives in scratch directories and on free loopback ports; the
 * machine's own cluster is only ever a client's upstream, never reconfigured.
 *
 * When run as root, the servers run as the `postgres` user (PostgreSQL refuses root, and the
 * scratch files are handed to that user).
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './free-port.js';

const run = promisify(execFile);

export class MissingToolError extends Error {
  override readonly name = 'MissingToolError';
}

const isRoot = () => process.getuid?.() === 0;

/** Runs a server tool, as `postgres` when we are root. */
async function runAsPostgres(command: string, args: string[], timeoutMs = 60_000): Promise<string> {
  const [file, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  try {
    const { stdout } = await run(file, argv, { timeout: timeoutMs });
    return stdout;
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`${command} ${args.join(' ')} failed: ${stderr || stdout || (error as Error).message}`);
  }
}

async function postgresOwner(): Promise<{ uid: number; gid: number } | undefined> {
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

export interface ReplicatedClusters {
  /** URLs of the `postgres` database on each; create databases on the primary. */
  primaryUrl: string;
  replicaUrl: string;
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  /** Stops and removes both clusters (configuration and data). Safe to call twice. */
  drop(): Promise<void>;
}

const CLUSTER_PREFIX = 'signal_tmp_';

/** Why startReplicatedClusters cannot run here, or undefined when it can. */
export function replicaToolsMissing(): string | undefined {
  try {
    postgresVersion();
  } catch (error) {
    return (error as Error).message;
  }
  if (!isRoot() && process.env.USER !== 'postgres')
    return 'creating PostgreSQL clusters needs root or the postgres user';
  return undefined;
}

function postgresVersion(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const version = versions.find((v) => existsSync(join(root, v, 'bin', 'pg_basebackup')));
  if (!version || !existsSync('/usr/bin/pg_createcluster')) {
    throw new MissingToolError('PostgreSQL server tools with pg_createcluster are not installed (Debian: postgresql)');
  }
  return version;
}

async function clusterCommand(args: string[], timeoutMs = 60_000): Promise<string> {
  try {
    const { stdout } = await run(args[0] as string, args.slice(1), { timeout: timeoutMs });
    return stdout;
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`${args.join(' ')} failed: ${stderr || stdout || (error as Error).message}`);
  }
}

/** Removes clusters an earlier run left behind when it was killed (its process is gone). */
async function dropAbandonedClusters(version: string): Promise<void> {
  const listing = await clusterCommand(['pg_lsclusters', '--no-header']).catch(() => '');
  for (const line of listing.split('\n')) {
    const [ver, name] = line.trim().split(/\s+/);
    const match = name && new RegExp(`^${CLUSTER_PREFIX}(\\d+)_`).exec(name);
    if (ver !== version || !match) continue;
    const pid = Number(match[1]);
    let alive = true;
    try {
      process.kill(pid, 0);
    } catch {
      alive = false;
    }
    if (alive) continue;
    await clusterCommand(['pg_dropcluster', '--stop', version, name as string]).catch(() => {});
    await rm(`/etc/postgresql/${version}/${name}`, { recursive: true, force: true });
  }
}

/**
 * A small primary cluster of the caller's own, with a streaming replica of it: `pg_createcluster`
 * on two free ports, the primary configured for replication (wal_level = replica, a trust
 * replication line for 127.0.0.1 in its pg_hba), the replica's data directory replaced by
 * `pg_basebackup -R` from it, both started with `pg_ctlcluster --skip-systemctl-redirect`.
 * Durability is off on both (fsync, synchronous_commit): throwaway clusters. Needs root or the
 * postgres user. The machine's own clusters are neither read nor changed.
 */
export async function startReplicatedClusters(label = 'test'): Promise<ReplicatedClusters> {
  const version = postgresVersion();
  if (!isRoot() && process.env.USER !== 'postgres') {
    throw new MissingToolError('creating PostgreSQL clusters needs root or the postgres user');
  }
  await dropAbandonedClusters(version);
  const base = `${CLUSTER_PREFIX}${process.pid}_${label}_${Math.random().toString(36).slice(2, 8)}`;
  const primary = { name: `${base}_p`, port: await freePort() };
  const replica = { name: `${base}_r`, port: await freePort() };
  const created: string[] = [];
  const ctl = (name: string, action: 'start' | 'stop') =>
    clusterCommand([
      'pg_ctlcluster',
      '--skip-systemctl-redirect',
      version,
      name,
      action,
      ...(action === 'stop' ? ['-m', 'fast'] : []),
    ]);
  const drop = async () => {
    for (const name of created.splice(0).reverse()) {
      await clusterCommand(['pg_dropcluster', '--stop', version, name]).catch(() => {});
      // pg_dropcluster leaves a configuration directory holding a file it did not write.
      await rm(`/etc/postgresql/${version}/${name}`, { recursive: true, force: true });
    }
  };
  const configure = async (name: string) => {
    const etc = `/etc/postgresql/${version}/${name}`;
    await writeFile(
      join(etc, 'conf.d', 'signal-scratch.conf'),
      [
        "listen_addresses = '127.0.0.1'",
        'wal_level = replica',
        'max_wal_senders = 4',
        'max_connections = 60',
        'shared_buffers = 32MB',
        'fsync = off',
        'synchronous_commit = off',
        'full_page_writes = off',
        '',
      ].join('\n'),
    );
    await writeFile(
      join(etc, 'pg_hba.conf'),
      [
        'local all all trust',
        'host all all 127.0.0.1/32 trust',
        'local replication all trust',
        'host replication all 127.0.0.1/32 trust',
        '',
      ].join('\n'),
    );
  };
  try {
    for (const cluster of [primary, replica]) {
      await clusterCommand(['pg_createcluster', version, cluster.name, '-p', String(cluster.port)]);
      created.push(cluster.name);
      await configure(cluster.name);
    }
    await ctl(primary.name, 'start');
    const primaryUrl = `postgres://postgres@127.0.0.1:${primary.port}/postgres`;
    await waitForDatabase(primaryUrl);
    // The replica's data directory becomes a base backup of the primary (-R: standby.signal and
    // primary_conninfo). Emptied, not removed: the directory keeps its owner and mode, and its
    // parent need not be writable by postgres.
    const dataDir = `/var/lib/postgresql/${version}/${replica.name}`;
    for (const entry of readdirSync(dataDir)) await rm(join(dataDir, entry), { recursive: true, force: true });
    const basebackup = `/usr/lib/postgresql/${version}/bin/pg_basebackup`;
    const from = ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres'];
    await runAsPostgres(basebackup, [...from, '-D', dataDir, '-R', '-X', 'stream', '-c', 'fast']);
    await ctl(replica.name, 'start');
    const replicaUrl = `postgres://postgres@127.0.0.1:${replica.port}/postgres`;
    await waitForDatabase(replicaUrl);
    return {
      primaryUrl,
      replicaUrl,
      stopReplica: async () => {
        await ctl(replica.name, 'stop');
      },
      startReplica: async () => {
        await ctl(replica.name, 'start');
        await waitForDatabase(replicaUrl);
      },
      drop,
    };
  } catch (error) {
    await drop();
    throw error;
  }
}
