/**
 * Webhook rows (issue 27), the built API delivering to a receiver in this process on loopback
 * (WEBHOOK_ALLOW_PRIVATE and WEBHOOK_ALLOW_HTTP on, as development does):
 *   webhooks         a burst of events committed at once, delivered to one endpoint: deliveries
 *                    a second from the commit to the last receipt (target ≥ 1,000/s)
 *   webhook-latency  events committed one transaction each at 200 a second (a follow's rate and
 *                    shape: one follow.created per transaction) for the run's seconds: p50/p99
 *                    of commit-to-receipt, from the insert's acknowledgement to the receiver
 *                    reading the POST (target p99 ≤ 1 s)
 * Every step of the pipeline is in the figure: the sequencer, the fan-out, the claim, the HTTP
 * attempt with its signature, the recording. The events are written with SQL straight into the
 * outbox (what a follow's trigger writes), so the rows measure delivery, not the follow route.
 * Both rows use their own scratch database: the catalogue's rows are not touched.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventType } from '@signal/core';
import { createScratchDatabase } from '@signal/test-support';
import pg from 'pg';
import { cpuBetween, databaseCpu } from './db-cpu.js';
import { type Row, row, type Verdict } from './report.js';
import { type RowRun, startServer } from './servers.js';

export const WEBHOOK_KEYS = ['webhooks', 'webhook-latency'] as const;
export const DELIVERIES_TARGET = 1_000;
export const LATENCY_P99_TARGET_MS = 1_000;
const LATENCY_RATE = 200;
/** The type of the bench's events: a value of core's EventType, passed as a parameter. */
const FOLLOWED: EventType = 'follow.created';

export interface WebhookRun extends RowRun {
  /** Events in the burst; seconds of the latency run. */
  burst: number;
  seconds: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number);

export async function webhookRows(run: WebhookRun): Promise<Map<string, Row>> {
  const rows = new Map<string, Row>();
  if (!WEBHOOK_KEYS.some(run.wanted)) return rows;
  const scratch = await createScratchDatabase();
  const pool = new pg.Pool({ connectionString: scratch.url, max: 8 });
  const receipts = new Map<number, number>();
  let onReceipt: (() => void) | undefined;
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { userId: number } };
      if (!receipts.has(body.data.userId)) receipts.set(body.data.userId, at);
      res.end('ok');
      onReceipt?.();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const base = run.spec(scratch.url);
  const api = await startServer({
    ...base,
    name: 'api (webhooks)',
    env: {
      ...base.env,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      ADMIN_KEY: 'bench-admin-key-0123456789abcdefghij',
    },
  });
  try {
    const created = await fetch(`${api.url}/webhooks`, {
      method: 'POST',
      headers: { authorization: 'Bearer bench-admin-key-0123456789abcdefghij', 'content-type': 'application/json' },
      body: JSON.stringify({
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
        types: [FOLLOWED],
      }),
    });
    if (created.status !== 201) throw new Error(`POST /webhooks answered ${created.status}`);
    const until = (count: number, timeoutMs: number) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${receipts.size}/${count} deliveries in time`)), timeoutMs);
        const check = () => {
          if (receipts.size < count) return;
          clearTimeout(timer);
          onReceipt = undefined;
          resolve();
        };
        onReceipt = check;
        check();
      });
    const insert = (from: number, count: number) =>
      pool.query(
        `insert into events (type, data)
         select $3::text, jsonb_build_object('userId', g, 'providerId', 1, 'followerCount', g)
         from generate_series($1::int, $2::int) g`,
        [from, from + count - 1, FOLLOWED],
      );

    if (run.wanted('webhooks')) {
      receipts.clear();
      // CPU per delivery: the API process's, and its PostgreSQL backends' (steadier than the
      // rate on a loaded machine: what one core could sustain is 1000 / apiCpuMs).
      const dbProbe = databaseCpu(scratch.url);
      const dbBefore = await dbProbe.sample();
      const cpuBefore = (await api.cpuMs()) ?? 0;
      const committed = performance.now();
      await insert(1, run.burst);
      await until(run.burst, 300_000);
      const seconds = (Math.max(...receipts.values()) - committed) / 1000;
      const cpuUs = ((((await api.cpuMs()) ?? 0) - cpuBefore) * 1000) / run.burst;
      const dbCpuUs = (cpuBetween(dbBefore, await dbProbe.sample()) * 1000) / run.burst;
      await dbProbe.close();
      const rate = run.burst / seconds;
      run.log(`webhooks: API ${cpuUs.toFixed(0)} µs and PostgreSQL ${dbCpuUs.toFixed(0)} µs of CPU per delivery`);
      rows.set(
        'webhooks',
        row(
          `webhooks: ${run.burst.toLocaleString('en-US')} events to one endpoint`,
          { rps: rate, p50: null, p99: null, cpuUs, dbCpuUs },
          null,
          `deliveries/s from the commit to the last receipt (${seconds.toFixed(1)} s); CPU per delivery: API ${Math.round(cpuUs)} µs (one core: ${Math.round(1e6 / cpuUs)}/s), PostgreSQL ${Math.round(dbCpuUs)} µs`,
        ),
      );
      run.log(`webhooks: ${run.burst} deliveries in ${seconds.toFixed(2)} s = ${Math.round(rate)}/s`);
    }

    if (run.wanted('webhook-latency')) {
      receipts.clear();
      const first = 1_000_000;
      const total = LATENCY_RATE * run.seconds;
      const commits = new Map<number, number>();
      const started = performance.now();
      for (let i = 0; i < total; i++) {
        // Paced by the clock, not by the inserts: 200 a second whatever each one takes.
        const due = started + (i * 1000) / LATENCY_RATE;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        void insert(first + i, 1).then(() => commits.set(first + i, performance.now()));
      }
      await until(total, 120_000);
      const latencies = [...receipts.entries()].map(([id, at]) => at - (commits.get(id) ?? at)).sort((a, b) => a - b);
      const p50 = percentile(latencies, 50);
      const p99 = percentile(latencies, 99);
      rows.set(
        'webhook-latency',
        row(
          `webhooks: commit to receipt at ${LATENCY_RATE} events/s`,
          { rps: LATENCY_RATE, p50, p99 },
          null,
          `${total.toLocaleString('en-US')} events, one transaction each; p50/p99 of commit → receipt`,
        ),
      );
      run.log(`webhook latency at ${LATENCY_RATE}/s: p50 ${p50.toFixed(0)} ms, p99 ${p99.toFixed(0)} ms`);
    }
  } finally {
    await api.stop();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await pool.end();
    await scratch.drop();
  }
  return rows;
}

export function judgeWebhooks(rows: Map<string, Row>): Verdict[] {
  const verdicts: Verdict[] = [];
  const burst = rows.get('webhooks');
  if (burst) {
    verdicts.push({
      target: `webhooks: ≥ ${DELIVERIES_TARGET.toLocaleString('en-US')} deliveries/s to a local receiver`,
      measured: `${Math.round(burst.service.rps).toLocaleString('en-US')}/s`,
      met: burst.service.rps >= DELIVERIES_TARGET,
    });
  }
  const latency = rows.get('webhook-latency');
  if (latency?.service.p99 != null) {
    verdicts.push({
      target: `webhooks: commit-to-receipt p99 ≤ ${LATENCY_P99_TARGET_MS} ms at ${LATENCY_RATE} events/s`,
      measured: `p99 ${Math.round(latency.service.p99)} ms (p50 ${Math.round(latency.service.p50 ?? 0)} ms)`,
      met: latency.service.p99 <= LATENCY_P99_TARGET_MS,
    });
  }
  return verdicts;
}
