import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CursorCodec } from '@signal/core/cursor';
import type { EvmChainVerifier } from '@signal/core/evm-chain';
import type { NonceCodec } from '@signal/core/nonce';
import type { TokenService } from '@signal/core/token';
import type { DatabaseHandle, ReadReplica, VersionSink } from '@signal/db';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { FeedWatcher } from '../ops/feed-watcher.js';
import type { Metrics } from '../ops/metrics.js';

/** What every procedure can reach: built once per server. */
export interface Services {
  config: Config;
  database: DatabaseHandle;
  tokens: TokenService;
  /** Issues and opens sign-in nonces under the secret of the signing key. */
  nonces: NonceCodec;
  /** Seals and opens page cursors (key derived from the signing key). */
  cursors: CursorCodec;
  /** The clock; injected by tests to reach expiry without waiting. */
  now: () => Date;
  log: Logger;
  /** Set when METRICS or METRICS_PORT turns metrics on. */
  metrics?: Metrics;
  /** Checks contract-account (EIP-1271/6492) signatures on chain; unset without EVM_RPC_URL. */
  evmChain: EvmChainVerifier | undefined;
  /** Set by DATABASE_READ_URL: public catalogue reads go there (see read-replica.ts). */
  replica?: ReadReplica;
  /** Wakes what waits for new events (events.stream, the bus relay): events/feed-watcher.ts. */
  feedWatcher: FeedWatcher;
}

/** Per request. Its logger, carrying the request id, is requestLog(req, services.log). */
export interface Context {
  services: Services;
  req: IncomingMessage;
  res: ServerResponse;
  /**
   * Set by the REST host for a request whose answer may be cached (see http/caching.ts): a
   * procedure puts the version of the data it answered from here, and the host makes the ETag.
   */
  cache?: VersionSink;
}

export function contextFactory(services: Services) {
  return ({ req, res, cache }: { req: IncomingMessage; res: ServerResponse; cache?: VersionSink }): Context => ({
    services,
    req,
    res,
    cache,
  });
}

interface RequestWithId extends IncomingMessage {
  /** Set by the HTTP host: the client's X-Request-Id, or a new one. */
  id?: string;
  log?: Logger;
}

/** Gives the request its id, the one requestLog puts on every line it logs for it. */
export function setRequestId(req: IncomingMessage, id: string): void {
  (req as RequestWithId).id = id;
}

/**
 * The request's logger, carrying its id: made on first use, since at the production level
 * (warn) most requests never log.
 */
export function requestLog(req: IncomingMessage, base: Logger): Logger {
  const request = req as RequestWithId;
  if (request.log) return request.log;
  if (request.id === undefined) return base;
  request.log = base.child({ reqId: request.id });
  return request.log;
}
