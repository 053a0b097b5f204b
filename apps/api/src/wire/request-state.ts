/**
 * What the host learns about a request while serving it, in one typed place instead of fields
 * put on node's IncomingMessage: its id (X-Request-Id), its logger and its route label for the
 * metrics. Kept on the request under one private symbol, so it goes with the request; in wire/
 * because every layer reads it (the host sets it, ops/metrics.ts reads the route, logging reads
 * the id). Not in a WeakMap: an entry per request there is an ephemeron that every scavenge and
 * mark must trace, and a hashed lookup at each read (apps/bench/BENCH.md, issue 23's before/after).
 */
import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';

export interface RequestState {
  /** The client's X-Request-Id when well formed, else a new one. */
  id?: string;
  /** The request's logger, carrying its id: made on first use (see requestLog). */
  log?: Logger;
  /** The route label for the metrics: a template, never the raw path. */
  route?: string;
  /** When the metrics began timing it (performance.now()), when they are on. */
  started?: number;
}

const STATE = Symbol('requestState');
type WithState = IncomingMessage & { [STATE]?: RequestState };

export function requestState(req: IncomingMessage): RequestState {
  const holder = req as WithState;
  let state = holder[STATE];
  if (state === undefined) {
    // Every field from the start, so that every request's state has one shape.
    state = { id: undefined, log: undefined, route: undefined, started: undefined };
    holder[STATE] = state;
  }
  return state;
}

/**
 * The request's logger, carrying its id: made on first use, since at the production level
 * (warn) most requests never log.
 */
export function requestLog(req: IncomingMessage, base: Logger): Logger {
  const state = (req as WithState)[STATE];
  if (state === undefined || state.id === undefined) return base;
  state.log ??= base.child({ reqId: state.id });
  return state.log;
}
