/**
 * What the host learns about a request while serving it, in one typed place instead of fields
 * put on node's IncomingMessage: its id (X-Request-Id), its logger and its route label for the
 * metrics. Kept in a WeakMap, so it goes with the request; in wire/ because every layer reads it
 * (the host sets it, ops/metrics.ts reads the route, logging reads the id).
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

const states = new WeakMap<IncomingMessage, RequestState>();

export function requestState(req: IncomingMessage): RequestState {
  let state = states.get(req);
  if (state === undefined) {
    state = {};
    states.set(req, state);
  }
  return state;
}

/**
 * The request's logger, carrying its id: made on first use, since at the production level
 * (warn) most requests never log.
 */
export function requestLog(req: IncomingMessage, base: Logger): Logger {
  const state = states.get(req);
  if (state === undefined || state.id === undefined) return base;
  state.log ??= base.child({ reqId: state.id });
  return state.log;
}
