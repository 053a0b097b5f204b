/**
 * Fair shares of a worker's delivery slots (docs/events.md, "How delivery works"; issue 42):
 * before, four receivers that accept a connection and never answer took all 64 slots (16 each)
 * for 15 s at a time, and a healthy endpoint's events waited 14.9 s each.
 *
 * Each endpoint is in one of three pools, judged by this process from its own attempts:
 * - *prompt*: its last attempt got an answer (any status) within PROMPT_MS, and none of its
 *   attempts in flight has run longer than that: up to WEBHOOK_ENDPOINT_CONCURRENCY slots;
 * - *new*: no attempt of it has finished here yet: one slot (a probe), and all new endpoints
 *   together at most a quarter of WEBHOOK_CONCURRENCY;
 * - *slow*: the rest (timeouts, dropped connections, slow answers, an attempt still running after
 *   PROMPT_MS): WEBHOOK_SLOW_ENDPOINT_CONCURRENCY slots, all slow ones together at most another
 *   quarter.
 * So however many receivers hang, half the slots stay with the ones that answer, and a new
 * endpoint's first attempt never waits behind hung ones (they are slow, not new, once their
 * probe has run PROMPT_MS). New and slow endpoints are claimed first, out of their own quarters,
 * so busy prompt endpoints cannot keep them from their turn either. Nothing is stored.
 */

/** An attempt answered within this is prompt; one still running after it makes its endpoint slow. */
export const PROMPT_MS = 5_000;
/** Above this many remembered endpoints the memory of who was prompt starts again (bounded memory). */
const REMEMBERED_ENDPOINTS = 100_000;

export interface SharePolicy {
  /** WEBHOOK_CONCURRENCY. */
  concurrency: number;
  /** WEBHOOK_ENDPOINT_CONCURRENCY: a prompt endpoint's slots. */
  endpointConcurrency: number;
  /** WEBHOOK_SLOW_ENDPOINT_CONCURRENCY: a slow endpoint's slots. */
  slowEndpointConcurrency: number;
}

/** One claim to make: rooms per named endpoint, `otherRoom` for every endpoint not named, `limit` in all. */
export interface ClaimPlan {
  rooms: Map<string, number>;
  otherRoom: number;
  limit: number;
}

type Pool = 'prompt' | 'new' | 'slow';

export function createEndpointShares(policy: SharePolicy, now: () => number = () => performance.now()) {
  /** Attempts in flight per endpoint: claim id → when it started. */
  const running = new Map<string, Map<string, number>>();
  /** Endpoints with a finished attempt here: true when the last one was prompt. */
  const judged = new Map<string, boolean>();
  const poolBudget = Math.max(1, Math.floor(policy.concurrency / 4));

  const inFlight = (endpointId: string) => running.get(endpointId)?.size ?? 0;
  const poolOf = (endpointId: string, at: number): Pool => {
    for (const started of running.get(endpointId)?.values() ?? []) if (at - started > PROMPT_MS) return 'slow';
    const last = judged.get(endpointId);
    return last === undefined ? 'new' : last ? 'prompt' : 'slow';
  };
  /** Every endpoint this process knows, by pool. */
  const pools = (at: number) => {
    const byPool: Record<Pool, string[]> = { prompt: [], new: [], slow: [] };
    for (const endpointId of new Set([...running.keys(), ...judged.keys()]))
      byPool[poolOf(endpointId, at)].push(endpointId);
    return byPool;
  };
  const held = (endpoints: string[]) => endpoints.reduce((sum, endpointId) => sum + inFlight(endpointId), 0);
  /** Rooms for `open` endpoints (each its `room` minus what it runs) and 0 for every other known one. */
  const roomsFor = (open: string[], room: number, closed: string[][]) => {
    const rooms = new Map<string, number>();
    for (const endpointId of closed.flat()) rooms.set(endpointId, 0);
    for (const endpointId of open) rooms.set(endpointId, Math.max(0, room - inFlight(endpointId)));
    return rooms;
  };

  return {
    started(endpointId: string, claimId: string) {
      const attempts = running.get(endpointId) ?? new Map<string, number>();
      running.set(endpointId, attempts);
      attempts.set(claimId, now());
    },
    /** An attempt ended; `answered`: the receiver answered (any status). Undefined: a stop cut it short. */
    finished(endpointId: string, claimId: string, answered: boolean | undefined) {
      const attempts = running.get(endpointId);
      const started = attempts?.get(claimId);
      attempts?.delete(claimId);
      if (attempts?.size === 0) running.delete(endpointId);
      if (answered === undefined || started === undefined) return;
      if (judged.size >= REMEMBERED_ENDPOINTS) judged.clear();
      judged.set(endpointId, answered && now() - started <= PROMPT_MS);
    },
    /**
     * The claims to make now, in order, each with the slots left after the ones before (`free`
     * given as it is when the first is made): new endpoints (their probes), slow ones, prompt ones.
     */
    plans(free: number): ((left: number) => ClaimPlan)[] {
      const at = now();
      const { prompt, new: fresh, slow } = pools(at);
      return [
        // Endpoints never seen are the ones not named: one probe each.
        (left) => ({
          rooms: roomsFor(fresh, 1, [prompt, slow]),
          otherRoom: 1,
          limit: Math.max(0, Math.min(left, poolBudget - held(fresh))),
        }),
        (left) => ({
          rooms: roomsFor(slow, policy.slowEndpointConcurrency, []),
          otherRoom: 0,
          limit: slow.length === 0 ? 0 : Math.max(0, Math.min(left, poolBudget - held(slow))),
        }),
        (left) => ({
          rooms: roomsFor(prompt, policy.endpointConcurrency, []),
          otherRoom: 0,
          limit: prompt.length === 0 ? 0 : Math.max(0, Math.min(left, free)),
        }),
      ];
    },
  };
}
