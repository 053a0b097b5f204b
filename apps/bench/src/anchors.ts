/**
 * Physical anchors, measured in the same run as the rows: what PostgreSQL alone does with the
 * service's list and detail statements (pgbench, 50 clients, the same SQL as custom scripts,
 * sent unnamed like the service's), and what a bare node:http server does answering a fixed
 * body of the same size (see bare-http.ts and the `http-*` rows). The service's share of each
 * goes into the rows' notes.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PROVIDER_COLUMN_SQL } from '@signal/db';
import { cpuBetween, databaseCpu } from './db-cpu.js';
import type { Figures } from './report.js';

const run = promisify(execFile);
export const PGBENCH = process.env.PGBENCH ?? '/usr/lib/postgresql/15/bin/pgbench';

// The service's columns, as the baseline (src/baseline.ts) reads them: the service's page and
// detail read the same, the figures included.
const COLUMNS = PROVIDER_COLUMN_SQL;

/**
 * The service's statements for list page 1 (default sort) and for a detail by id: public
 * providers only. (Without `archived_at is null` the page cannot use the public sort index and
 * sorts the whole table: the anchor read 2–7 transactions/s from issue 25 until 28 Nov.)
 */
export const ANCHOR_SCRIPTS = {
  list: `select provider_count, (select sum(version) from catalogue_versions)::text as version from catalogue_counters;
select ${COLUMNS} from providers p inner join (select id from providers where archived_at is null order by follower_count desc, id desc limit 20 offset 0) k on k.id = p.id order by p.follower_count desc, p.id desc;
`,
  detail: (providers: number) => `\\set id random(1, ${providers})
select ${COLUMNS}, p.version::text as version from providers p where p.id = :id and p.archived_at is null;
`,
};

/**
 * pgbench with `clients` clients over `seconds` on the catalogue at `url`, running `script`:
 * transactions per second, their mean latency, and PostgreSQL's CPU per transaction (the CPU
 * of pgbench's backends from the moment all are connected to nine tenths of the run, over the
 * transactions of that span at the measured rate).
 */
export async function pgbench(url: string, script: string, seconds: number, clients = 50): Promise<Figures> {
  const dir = await mkdtemp(join(tmpdir(), 'signal-pgbench-'));
  const file = join(dir, 'script.sql');
  await writeFile(file, script);
  const target = new URL(url);
  const probe = databaseCpu(url);
  try {
    const bench = run(
      PGBENCH,
      [
        '-n',
        '-M',
        'extended',
        '-c',
        String(clients),
        '-j',
        '2',
        '-T',
        String(Math.max(1, Math.round(seconds))),
        '-f',
        file,
        '-h',
        target.hostname,
        '-p',
        target.port || '5432',
        '-U',
        decodeURIComponent(target.username || 'postgres'),
        target.pathname.slice(1),
      ],
      { env: { ...process.env, PGAPPNAME: 'pgbench' } },
    );
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const ms = Math.max(1, Math.round(seconds)) * 1000;
    const end = performance.now() + ms;
    // Only once every client is connected (on a busy machine that takes a while): a backend
    // missing from the first sample would leave its CPU out.
    let before = await probe.sample({ applicationName: 'pgbench' });
    while (before.size < clients && performance.now() < end - ms * 0.5) {
      await wait(20);
      before = await probe.sample({ applicationName: 'pgbench' });
    }
    const started = performance.now();
    await wait(Math.max(100, end - started - ms * 0.1));
    const after = await probe.sample({ applicationName: 'pgbench' });
    const span = (performance.now() - started) / 1000;
    const { stdout } = await bench;
    const tps = Number(/tps = ([0-9.]+)/.exec(stdout)?.[1] ?? Number.NaN);
    const latency = Number(/latency average = ([0-9.]+) ms/.exec(stdout)?.[1] ?? Number.NaN);
    const cpuMs = cpuBetween(before, after);
    return {
      rps: tps,
      p50: Number.isFinite(latency) ? latency : null,
      p99: null,
      cpuUs: null,
      dbCpuUs: tps > 0 && cpuMs > 0 ? (cpuMs * 1000) / (tps * span) : null,
    };
  } finally {
    await probe.close();
    await rm(dir, { recursive: true, force: true });
  }
}
