/**
 * The per-request cost of metrics measured directly, in one process: what `observe` and the
 * `finish` it listens for cost on real node:http request and response objects, against the
 * same loop without them (7 alternating rounds of 300,000, medians). Takes an API build's dist
 * folder, so two builds compare side by side (LAB-NOTES.md, "Metrics cost"):
 *
 *   node dist/metrics-observe.js ../api/dist
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

interface MetricsModule {
  createMetrics(database: unknown): Promise<{
    observe(req: IncomingMessage, res: ServerResponse): void;
    scrape(): Promise<{ body: string }>;
  }>;
}
interface StateModule {
  requestState(req: IncomingMessage): { id?: string; route?: string };
}

const dist = resolve(process.env.INIT_CWD ?? process.cwd(), process.argv[2] ?? '../api/dist');
const { createMetrics } = (await import(pathToFileURL(`${dist}/ops/metrics.js`).href)) as MetricsModule;
const { requestState } = (await import(pathToFileURL(`${dist}/wire/request-state.js`).href)) as StateModule;
const metrics = await createMetrics({
  backend: 'postgres',
  poolStats: () => ({ max: 10, total: 1, idle: 1, waiting: 0 }),
});
const socket = new Socket();
const N = 300_000;

function run(withMetrics: boolean): number {
  const started = process.hrtime.bigint();
  for (let i = 0; i < N; i++) {
    const req = new IncomingMessage(socket);
    req.method = 'GET';
    const res = new ServerResponse(req);
    // As the host does: the request state first, the route when a route matched.
    requestState(req).id = 'x';
    if (withMetrics) metrics.observe(req, res);
    requestState(req).route = '/providers/{id}';
    res.statusCode = 200;
    res.emit('finish');
  }
  return Number(process.hrtime.bigint() - started) / N / 1000;
}

const on: number[] = [];
const off: number[] = [];
for (let round = 0; round < 7; round++) {
  off.push(run(false));
  on.push(run(true));
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] as number;
console.log(
  `${dist}: with metrics ${median(on).toFixed(3)} µs, without ${median(off).toFixed(3)} µs, ` +
    `difference ${(median(on) - median(off)).toFixed(3)} µs per request`,
);
// The observations must have landed: the histogram's count for the route.
const count = /http_request_duration_seconds_count\{[^}]*route="\/providers\/\{id\}"[^}]*\} (\d+)/.exec(
  (await metrics.scrape()).body,
);
console.log(`observed: ${count?.[1] ?? 'none'}`);
