/**
 * A streaming read replica for public catalogue reads, with the primary as the fallback. A read
 * goes to the replica while it answers and is not too far behind; a replica that cannot be
 * reached (refused, connect timeout, a stalled query, a standby conflict) costs one failed try,
 * bounded by short timeouts, after which the read runs on the primary and the replica is left
 * alone until a background probe finds it answering again. The same probe measures the replay
 * lag.
 */
import { type Kysely, sql } from 'kysely';
import { createDatabase, type PoolStats } from './connect.js';
import { isDatabaseUnavailable } from './errors.js';
import type { Database } from './schema.js';

/** Connect and per-query bounds on the replica: a failed try plus the primary's answer stays under 1 s. */
const REPLICA_CONNECT_TIMEOUT_MS = 400;
const REPLICA_QUERY_TIMEOUT_MS = 500;
/** How often the probe measures the lag and, while the replica is out, tries it again. */
const REPLICA_PROBE_INTERVAL_MS = 2_000;

export type ReplicaEvent =
  | { kind: 'lag'; lagSeconds: number }
  | { kind: 'down'; error: unknown }
  | { kind: 'up'; lagSeconds: number }
  | { kind: 'behind'; lagSeconds: number; maxLagSeconds: number };

export interface ReadReplicaOptions {
  url: string;
  primary: Kysely<Database>;
  poolSize?: number;
  preparedStatements?: boolean;
  /** Above this replay lag, reads go to the primary until the replica catches up. */
  maxLagSeconds: number;
  /** Told of every probe's lag and of every change of state, for logs and metrics. */
  onEvent?: (event: ReplicaEvent) => void;
  probeIntervalMs?: number;
}

export interface ReadReplica {
  /** Runs `read` on the replica when it is usable, else (or when it fails to answer) on the primary. */
  read<T>(read: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  /** True while reads go to the replica. */
  serving(): boolean;
  /** The replay lag at the last probe, in seconds; null before the first answer or while it is out. */
  lagSeconds(): number | null;
  poolStats(): PoolStats;
  /** Measures the lag now (the probe's work), e.g. at start. */
  probe(): Promise<void>;
  /**
   * Waits until the replica has replayed everything the primary had written when it was called
   * (a write just committed), so that reads on it show that write. True when it has; false when
   * it did not within `timeoutMs` (reads then go to the primary until the next probe) or is out.
   */
  awaitReplay(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

const REPLICA_BEHIND_CODES = new Set(['40001', '3D000', '42P01', '42703', '42883']);

/** A replica failure a read must not see: the primary answers it instead. */
function isReplicaFailure(error: unknown): boolean {
  if (isDatabaseUnavailable(error)) return true;
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  // 40001: canceled by a conflict with recovery on a hot standby. 3D000, 42P01, 42703, 42883:
  // a replica that has not yet replayed the database or the latest migration. And pg's
  // client-side query timeout.
  if (typeof code === 'string' && REPLICA_BEHIND_CODES.has(code)) return true;
  return typeof message === 'string' && message === 'Query read timeout';
}

/**
 * Replay lag: zero when everything received is replayed (an idle primary sends nothing, and
 * the last replay timestamp would then age without any lag); else the age of the last
 * transaction replayed. Null on a server that is not in recovery (a primary named as replica).
 */
const LAG_SQL = sql<{ lag: number | null }>`
  select case
    when not pg_is_in_recovery() then null
    when pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() then 0
    else greatest(0, extract(epoch from now() - pg_last_xact_replay_timestamp()))::float8
  end as lag`;

export function createReadReplica(options: ReadReplicaOptions): ReadReplica {
  const handle = createDatabase({
    url: options.url,
    poolSize: options.poolSize ?? 10,
    connectTimeoutMs: REPLICA_CONNECT_TIMEOUT_MS,
    queryTimeoutMs: REPLICA_QUERY_TIMEOUT_MS,
    preparedStatements: options.preparedStatements ?? false,
  });
  const emit = options.onEvent ?? (() => {});
  let reachable = true;
  let lag: number | null = null;
  let behind = false;
  const serving = () => reachable && !behind;

  const markDown = (error: unknown) => {
    if (!reachable) return;
    reachable = false;
    lag = null;
    emit({ kind: 'down', error });
  };

  const probe = async () => {
    try {
      const { rows } = await LAG_SQL.execute(handle.db);
      const measured = rows[0]?.lag ?? 0;
      const wasServing = serving();
      lag = measured;
      reachable = true;
      const tooFar = measured > options.maxLagSeconds;
      if (tooFar && !behind) emit({ kind: 'behind', lagSeconds: measured, maxLagSeconds: options.maxLagSeconds });
      behind = tooFar;
      if (!wasServing && serving()) emit({ kind: 'up', lagSeconds: measured });
      emit({ kind: 'lag', lagSeconds: measured });
    } catch (error) {
      markDown(error);
    }
  };

  const timer = setInterval(() => void probe(), options.probeIntervalMs ?? REPLICA_PROBE_INTERVAL_MS);
  timer.unref();

  return {
    async read(read) {
      if (!serving()) return read(options.primary);
      try {
        return await read(handle.db);
      } catch (error) {
        if (!isReplicaFailure(error)) throw error;
        markDown(error);
        return read(options.primary);
      }
    },
    serving,
    async awaitReplay(timeoutMs) {
      if (!serving()) return false;
      const deadline = Date.now() + timeoutMs;
      const { rows } = await sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(options.primary);
      const lsn = rows[0]?.lsn;
      for (;;) {
        try {
          const replayed = await sql<{ done: boolean }>`
            select coalesce(pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn, true) as done`.execute(handle.db);
          if (replayed.rows[0]?.done) return true;
        } catch (error) {
          if (!isReplicaFailure(error)) throw error;
          markDown(error);
          return false;
        }
        if (Date.now() > deadline) {
          if (!behind)
            emit({ kind: 'behind', lagSeconds: lag ?? timeoutMs / 1000, maxLagSeconds: options.maxLagSeconds });
          behind = true;
          return false;
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    lagSeconds: () => lag,
    poolStats: handle.poolStats,
    probe,
    async close() {
      clearInterval(timer);
      await handle.close();
    },
  };
}
