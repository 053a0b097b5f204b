/**
 * A small primary PostgreSQL cluster with a streaming replica of its own, made with the
 * machine's server tools (pg_createcluster, pg_basebackup) in scratch directories on free
 * loopback ports, for the replica tests and the benchmark's replica rows.
 */
import { existsSync, readdirSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { isRoot, MissingToolError, run, runAsPostgres, waitForDatabase } from './local-servers.js';

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
