/**
 * The signal traffic of `mix-signals` (mix-signal-rows.ts): signal reads put in the mix's request
 * stream in place of some of its requests, and signals published at a steady rate beside a run.
 */
import type autocannon from 'autocannon';
import { random } from './cached-rows.js';
import { pause } from './live-rows.js';
import type { LoadTarget } from './load.js';
import type { ServerProcess } from './servers.js';
import { openBody, type Signer } from './signal-rows.js';

/** Requests of each kind a target of this row set up, since its last run began. */
export type Kinds = { shared: number; signals: number };

/** The mix, with `share` of its requests replaced by signal reads (`reads`). */
export function withSignalReads(
  mix: LoadTarget,
  reads: (next: () => number) => Partial<autocannon.Request>,
  kinds: Kinds,
  share: number,
) {
  return {
    ...mix,
    async requests(seconds: number, stop: () => void) {
      const [request] = (await mix.requests(seconds, stop)) as [autocannon.Request];
      const next = random(41);
      kinds.shared = 0;
      kinds.signals = 0;
      const setup = request.setupRequest as (request: autocannon.Request, context: object) => autocannon.Request;
      return [
        {
          ...request,
          setupRequest: (base: autocannon.Request, context: object) => {
            if (next() < share) {
              kinds.signals += 1;
              return { ...base, method: 'GET', headers: {}, ...reads(next) } as autocannon.Request;
            }
            kinds.shared += 1;
            return setup(base, context);
          },
        },
      ];
    },
  } satisfies LoadTarget;
}

/** Publishes `rate` signals a second while `run` runs; each accepted one's send time by log index. */
export async function publishing<T>(
  api: ServerProcess,
  signers: Signer[],
  origin: string,
  rate: number,
  sent: Map<string, number>,
  run: () => Promise<T>,
) {
  let stopped = false;
  const pending: Promise<void>[] = [];
  const loop = (async () => {
    const started = performance.now();
    for (let i = 0; !stopped; i++) {
      await pause(Math.max(0, started + (i * 1000) / rate - performance.now()));
      const { path, body } = openBody(signers[i % signers.length] as Signer, origin);
      const at = performance.now();
      pending.push(
        fetch(`${api.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
          .then(async (res) => {
            const answer = (await res.json()) as { receipt?: { logIndex: number } };
            if (res.status === 201 && answer.receipt) sent.set(String(answer.receipt.logIndex), at);
          })
          .catch(() => {}),
      );
    }
  })();
  try {
    return await run();
  } finally {
    stopped = true;
    await loop;
    await Promise.all(pending);
  }
}
