/**
 * Load generation (autocannon, in the bench's own process, apart from both servers) and the
 * side-by-side protocol: warm both up, then alternate service and baseline round by round
 * (ABBA order), so drift and noise land on both alike; each figure is the median of rounds.
 */
import autocannon from 'autocannon';
import { type BackendCpu, cpuBetween } from './db-cpu.js';

export interface Sample {
  /** Successful (2xx) responses per second. */
  rps: number;
  /** Latency of successful responses, ms. */
  p50: number;
  p99: number;
  /** Non-2xx responses plus connection errors: a correct run has none. */
  failed: number;
  /** Successful responses of the run (of all rounds and warm-ups, in a summary). */
  served: number;
  /** CPU time the server spent per successful response, µs (null when unknown). */
  cpuUs: number | null;
  /** CPU time PostgreSQL's backends spent per successful response, µs (null when unknown). */
  dbCpuUs?: number | null;
  /**
   * CPU time of this process (autocannon, the load generator) per successful response, µs: on a
   * machine whose cores the server and the load share, what the load costs is not the server's.
   */
  clientCpuUs?: number | null;
}

export interface LoadTarget {
  url: string;
  /**
   * The requests of one run lasting `seconds`; built before every run, so that sign-ins get
   * fresh single-use nonces. `stop` ends the run early (a pool of nonces ran dry).
   */
  requests(seconds: number, stop: () => void): autocannon.Request[] | Promise<autocannon.Request[]>;
  /** Told each run's outcome (a sign-in target sizes its next pool of nonces from it). */
  observe?(sample: Sample): void | Promise<void>;
  /** Runs each of its runs inside this, e.g. while a writer changes data (cached-rows.ts). */
  around?<T>(run: () => Promise<T>): Promise<T>;
  /** CPU time used so far by the server process answering, ms. */
  cpuMs?(): Promise<number | null>;
  /** CPU used so far by each PostgreSQL backend of the catalogue, ms by process id. */
  dbCpu?(): Promise<BackendCpu>;
  /** The status that counts as served: 200 (default), or 304 for revalidations. */
  expectStatus?: 200 | 304;
}

export interface LoadPlan {
  connections: number;
  warmupSeconds: number;
  seconds: number;
  rounds: number;
  /** Runs between two runs, e.g. waiting for the database to finish queued statements. */
  between(): Promise<void>;
}

export async function drive(target: LoadTarget, seconds: number, connections: number): Promise<Sample> {
  let instance: autocannon.Instance | undefined;
  const stop = () => setImmediate(() => instance?.stop());
  const requests = await target.requests(seconds, stop);
  const cpuBefore = (await target.cpuMs?.()) ?? null;
  const dbBefore = await target.dbCpu?.();
  const load = () =>
    new Promise<autocannon.Result>((resolve, reject) => {
      instance = autocannon({ url: target.url, connections, duration: seconds, requests }, (error, res) =>
        error ? reject(error) : resolve(res),
      );
    });
  const clientBefore = process.cpuUsage();
  const result = await (target.around ? target.around(load) : load());
  const client = process.cpuUsage(clientBefore);
  const cpuAfter = (await target.cpuMs?.()) ?? null;
  const dbAfter = await target.dbCpu?.();
  const notModified = target.expectStatus === 304;
  const served = notModified ? result['3xx'] : result['2xx'];
  const sample = {
    rps: served / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: result.non2xx - (notModified ? result['3xx'] : 0) + result.errors,
    served,
    cpuUs: cpuBefore !== null && cpuAfter !== null && served > 0 ? ((cpuAfter - cpuBefore) * 1000) / served : null,
    dbCpuUs: dbBefore && dbAfter && served > 0 ? (cpuBetween(dbBefore, dbAfter) * 1000) / served : null,
    clientCpuUs: served > 0 ? (client.user + client.system) / served : null,
  };
  await target.observe?.(sample);
  return sample;
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

function summarise(samples: Sample[], warmup: Sample | undefined): Sample {
  const sum = (pick: (s: Sample) => number) => samples.reduce((total, s) => total + pick(s), 0);
  const timed = samples.filter((s) => s.cpuUs !== null);
  const cpuUs = timed.reduce((total, s) => total + (s.cpuUs as number) * s.served, 0);
  const timedServed = timed.reduce((total, s) => total + s.served, 0);
  const dbTimed = samples.filter((s) => s.dbCpuUs != null);
  const dbCpuUs = dbTimed.reduce((total, s) => total + (s.dbCpuUs as number) * s.served, 0);
  const dbServed = dbTimed.reduce((total, s) => total + s.served, 0);
  const clientTimed = samples.filter((s) => s.clientCpuUs != null);
  const clientCpuUs = clientTimed.reduce((total, s) => total + (s.clientCpuUs as number) * s.served, 0);
  const clientServed = clientTimed.reduce((total, s) => total + s.served, 0);
  return {
    rps: median(samples.map((s) => s.rps)),
    p50: median(samples.map((s) => s.p50)),
    p99: median(samples.map((s) => s.p99)),
    failed: sum((s) => s.failed),
    served: sum((s) => s.served) + (warmup?.served ?? 0),
    cpuUs: timedServed > 0 ? cpuUs / timedServed : null,
    dbCpuUs: dbServed > 0 ? dbCpuUs / dbServed : null,
    clientCpuUs: clientServed > 0 ? clientCpuUs / clientServed : null,
  };
}

export interface Comparison {
  service: Sample;
  baseline: Sample | null;
  /** Highest resident memory of the watched process seen during the service's runs, MiB. */
  peakRssMb: number | null;
}

/** Samples `read` every 250 ms while `run` runs; returns the run's result and the peak. */
async function watchPeak<T>(read: () => Promise<number | null>, run: () => Promise<T>): Promise<[T, number | null]> {
  let peak: number | null = null;
  const sample = async () => {
    const value = await read();
    if (value !== null && (peak === null || value > peak)) peak = value;
  };
  const timer = setInterval(() => void sample(), 250);
  try {
    const result = await run();
    await sample();
    return [result, peak];
  } finally {
    clearInterval(timer);
  }
}

export async function compare(
  service: LoadTarget,
  baseline: LoadTarget | null,
  plan: LoadPlan,
  watchRss?: () => Promise<number | null>,
): Promise<Comparison> {
  const sides = baseline ? [service, baseline] : [service];
  const warmups = new Map<LoadTarget, Sample>();
  // `--warmup 0` (CI's smoke run): no warm-up at all, the first round runs cold.
  for (const side of plan.warmupSeconds > 0 ? sides : []) {
    warmups.set(side, await drive(side, plan.warmupSeconds, plan.connections));
    await plan.between();
  }
  const samples = new Map<LoadTarget, Sample[]>(sides.map((side) => [side, []]));
  let peakRssMb: number | null = null;
  for (let round = 0; round < plan.rounds; round++) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      const run = () => drive(side, plan.seconds, plan.connections);
      let sample: Sample;
      if (side === service && watchRss) {
        let peak: number | null;
        [sample, peak] = await watchPeak(watchRss, run);
        if (peak !== null) peakRssMb = Math.max(peakRssMb ?? 0, peak);
      } else {
        sample = await run();
      }
      samples.get(side)?.push(sample);
      await plan.between();
    }
  }
  return {
    service: summarise(samples.get(service) ?? [], warmups.get(service)),
    baseline: baseline ? summarise(samples.get(baseline) ?? [], warmups.get(baseline)) : null,
    peakRssMb,
  };
}

/**
 * A synchronous check called over a set of inputs for `seconds` (the clock read every 64 calls):
 * how many calls, in how many milliseconds. A call answering false stops the run with `failure`.
 */
export function callFor<T>(
  inputs: T[],
  call: (input: T) => boolean,
  seconds: number,
  failure = 'a valid signature failed to verify',
): { calls: number; ms: number } {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let calls = 0;
  let now = started;
  while (now < deadline) {
    for (let i = 0; i < 64; i++) {
      if (!call(inputs[calls % inputs.length] as T)) throw new Error(failure);
      calls++;
    }
    now = performance.now();
  }
  return { calls, ms: now - started };
}

/** Calls per second of a synchronous function over a set of inputs, for `seconds`. */
export function opsPerSecond<T>(inputs: T[], call: (input: T) => boolean, seconds: number): number {
  const { calls, ms } = callFor(inputs, call, seconds);
  return calls / (ms / 1000);
}

/** Alternates `a` and `b` (ABBA) for `rounds` and returns the median ops/s of each. */
export function compareOps<T>(
  inputs: T[],
  a: (input: T) => boolean,
  b: (input: T) => boolean,
  seconds: number,
  rounds: number,
): [number, number] {
  const ra: number[] = [];
  const rb: number[] = [];
  opsPerSecond(inputs, a, seconds / 4);
  opsPerSecond(inputs, b, seconds / 4);
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      ra.push(opsPerSecond(inputs, a, seconds));
      rb.push(opsPerSecond(inputs, b, seconds));
    } else {
      rb.push(opsPerSecond(inputs, b, seconds));
      ra.push(opsPerSecond(inputs, a, seconds));
    }
  }
  return [median(ra), median(rb)];
}
