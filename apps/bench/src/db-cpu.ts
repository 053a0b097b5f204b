/**
 * PostgreSQL's CPU per request: the CPU time of the server processes (backends) connected to a
 * catalogue database, read from /proc like the servers' own. PostgreSQL runs one process per
 * connection, so summing the backends of the database under test leaves out the rest of a
 * shared cluster (other databases, other work), and the two sides of a row never run at once.
 */
import pg from 'pg';
import { processCpuMs } from './servers.js';

/** CPU used so far by each backend of the database, ms, by process id. */
export type BackendCpu = Map<number, number>;

export interface DatabaseCpu {
  /** Every client backend of the database now (but the probe's own), with its CPU so far. */
  sample(filter?: { applicationName?: string }): Promise<BackendCpu>;
  close(): Promise<void>;
}

export function databaseCpu(url: string): DatabaseCpu {
  const client = new pg.Client({ connectionString: url, application_name: 'signal-bench-probe' });
  const connected = client.connect();
  return {
    async sample(filter = {}) {
      await connected;
      const { rows } = await client.query<{ pid: number }>(
        `select pid from pg_stat_activity
         where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()
           and ($1::text is null or application_name = $1)`,
        [filter.applicationName ?? null],
      );
      const cpu: BackendCpu = new Map();
      for (const { pid } of rows) {
        const ms = await processCpuMs(pid);
        if (ms !== null) cpu.set(pid, ms);
      }
      return cpu;
    },
    close: () => client.end(),
  };
}

/** CPU the backends present in both samples spent between them, ms. */
export function cpuBetween(before: BackendCpu, after: BackendCpu): number {
  let total = 0;
  for (const [pid, ms] of after) {
    const start = before.get(pid);
    if (start !== undefined) total += ms - start;
  }
  return total;
}
