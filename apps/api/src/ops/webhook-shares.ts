/**
 * Fair shares of a worker's delivery slots (docs/events.md, "Fair across endpoints"; issue 42):
 * before, four receivers that accept a connection and never answer took all 64 slots (16 each)
 * for 15 s at a time, and a healthy endpoint's events waited 14.9 s each.
 *
 * - An endpoint is *prompt* once its last attempt got an answer (any status) within PROMPT_MS,
 *   and while none of its attempts in flight has run longer than that. Prompt endpoints get up
 *   to WEBHOOK_ENDPOINT_CONCURRENCY slots each.
 * - Every other endpoint (new to this process, or slow: a timeout, a dropped connection, an
 *   attempt still running after PROMPT_MS) gets at most WEBHOOK_SLOW_ENDPOINT_CONCURRENCY slots,
 *   and all of them together at most a quarter of WEBHOOK_CONCURRENCY: however many receivers
 *   hang, three quarters of the slots stay with the ones that answer. A new endpoint that
 *   answers becomes prompt after its first attempt.
 * - Per process and in memory: each server judges from its own attempts, nothing is stored.
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
  /** WEBHOOK_SLOW_ENDPOINT_CONCURRENCY: a new or slow endpoint's slots. */
  slowEndpointConcurrency: number;
}

/** One claim to make: rooms per named endpoint, `otherRoom` for the rest, `limit` in all. */
export interface ClaimPlan {
  rooms: Map<string, number>;
  otherRoom: number;
  limit: number;
}

export function createEndpointShares(policy: SharePolicy, now: () => number = () => performance.now()) {
  /** Attempts in flight per endpoint: claim id → when it started. */
  const running = new Map<string, Map<string, number>>();
  const prompt = new Set<string>();
  const slowBudget = Math.max(1, Math.floor(policy.concurrency / 4));

  const isSlow = (endpointId: string, at: number) => {
    if (!prompt.has(endpointId)) return true;
    for (const started of running.get(endpointId)?.values() ?? []) if (at - started > PROMPT_MS) return true;
    return false;
  };
  const inFlight = (endpointId: string) => running.get(endpointId)?.size ?? 0;

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
      if (answered && now() - started <= PROMPT_MS) {
        if (prompt.size >= REMEMBERED_ENDPOINTS) prompt.clear();
        prompt.add(endpointId);
      } else {
        prompt.delete(endpointId);
      }
    },
    /** The claim for new and slow endpoints: first, out of their quarter of the slots. */
    slowClaim(free: number): ClaimPlan {
      const at = now();
      const rooms = new Map<string, number>();
      let slowInFlight = 0;
      for (const endpointId of new Set([...running.keys(), ...prompt])) {
        if (isSlow(endpointId, at)) {
          slowInFlight += inFlight(endpointId);
          rooms.set(endpointId, policy.slowEndpointConcurrency - inFlight(endpointId));
        } else {
          rooms.set(endpointId, 0);
        }
      }
      const limit = Math.max(0, Math.min(free, slowBudget - slowInFlight));
      return { rooms, otherRoom: policy.slowEndpointConcurrency, limit };
    },
    /** The claim for prompt endpoints, out of what is left. */
    promptClaim(free: number): ClaimPlan {
      const at = now();
      const rooms = new Map<string, number>();
      for (const endpointId of prompt) {
        if (!isSlow(endpointId, at)) rooms.set(endpointId, policy.endpointConcurrency - inFlight(endpointId));
      }
      return { rooms, otherRoom: 0, limit: rooms.size === 0 ? 0 : Math.max(0, free) };
    },
  };
}
