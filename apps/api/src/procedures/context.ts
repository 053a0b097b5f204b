import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CursorCodec } from '@signal/core/cursor';
import type { EvmChainVerifier } from '@signal/core/evm-chain';
import type { NonceCodec } from '@signal/core/nonce';
import type { TokenService } from '@signal/core/token';
import type { DatabaseHandle, ReadReplica, VersionSink } from '@signal/db';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { FeedWatcher } from './feed-watcher.js';
import type { LogSequencer } from './log-sequencer.js';

/** The counters procedures feed (ops/metrics.ts implements them, with the rest of /metrics). */
export interface ProcedureMetrics {
  /** One POST /auth/verify (REST or tRPC) answered: `success` or the contract's error code. */
  signIn(outcome: string): void;
  /** One contract-wallet check on the chain node ended so. */
  chainCheck(outcome: string): void;
}

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
  /**
   * Set when METRICS or METRICS_PORT turns metrics on: what procedures count. Declared here, as
   * the part of ops/metrics.ts's Metrics they use, since procedures/ never imports ops/.
   */
  metrics?: ProcedureMetrics;
  /** Checks contract-account (EIP-1271/6492) signatures on chain; unset without EVM_RPC_URL. */
  evmChain: EvmChainVerifier | undefined;
  /** Set by DATABASE_READ_URL: public catalogue reads go there (see read-replica.ts). */
  replica?: ReadReplica;
  /** Wakes what waits for new events (events.stream, the bus relay): procedures/feed-watcher.ts. */
  feedWatcher: FeedWatcher;
  /** The public log's sequencer, its served checkpoint, and waiting for an entry's (log-sequencer.ts). */
  logSequencer: LogSequencer;
}

/** Per request. Its logger, carrying the request id, is requestLog(req, services.log) (wire/request-state.ts). */
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
