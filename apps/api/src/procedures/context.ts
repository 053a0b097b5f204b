import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CursorCodec } from '@signal/core/cursor';
import type { EvmChainVerifier } from '@signal/core/evm-chain';
import type { NonceCodec } from '@signal/core/nonce';
import type { TokenService } from '@signal/core/token';
import type { DatabaseHandle, LogAcceptance, PositionedEvent, ReadReplica, VersionSink } from '@signal/db';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';

/** The counters procedures feed (ops/metrics.ts implements them, with the rest of /metrics). */
export interface ProcedureMetrics {
  /** One POST /auth/verify (REST or tRPC) answered: `success` or the contract's error code. */
  signIn(outcome: string): void;
  /** One contract-wallet check on the chain node ended so. */
  chainCheck(outcome: string): void;
}

/**
 * What a stream gets from the feed pump (ops/feed-pump.ts): a page of events after a position, a
 * `behind` mark when the position is older than the pages the pump holds (the stream reads on by
 * itself from there, up to `behind`), or [] when the wait ended with nothing new.
 */
export type TailPage = PositionedEvent[] | { behind: string };

/** The feed as the process's pump keeps it: what `events.stream` waits on (declared here, as procedures/ never imports ops/). */
export interface FeedTail {
  /** The head as the pump last read it; undefined before its first read. */
  head(): string | undefined;
  /**
   * The events after `position` as soon as there are any; [] after `maxWaitMs` or when `signal`
   * aborts; 'stopped' once the pump has stopped (the server is stopping).
   */
  eventsAfter(
    position: string,
    options: { signal?: AbortSignal | undefined; maxWaitMs: number },
  ): Promise<TailPage | 'stopped'>;
}

/** Open subscriptions per credential, per client address and in all, in this process (stream-slots.ts). */
export interface StreamSlots {
  /**
   * A slot for `credential` from `address` and its release (idempotent); the bound it would pass
   * instead (STREAMS_PER_CREDENTIAL, STREAMS_PER_ADDRESS, STREAMS_MAX) when the slot is not free.
   */
  take(credential: string, address: string): (() => void) | 'credential' | 'address' | 'total';
  /** Slots held now, over every credential. */
  open(): number;
}

/** Who a `signals.live` stream is for: a user (the providers it follows) or a `signals:read` key. */
export type LiveReader = { kind: 'user'; userId: number; sessionId: string } | { kind: 'key'; keyId: string };

/** A `signals.live` stream as its admission settled it (procedures/signal-live.ts). */
export interface LiveSubscription {
  reader: LiveReader;
  /** `providerIds`: only these (a user's among those it follows); undefined = every one it may see. */
  providerIds: readonly number[] | undefined;
  /** A user's followed providers when admitted (the hub keeps them current from the feed). */
  follows: readonly number[] | undefined;
  /** The stream carries the entries after this log index (-1: from the first). */
  after: number;
  /** A key's: rechecked every while; throws the error that ends the stream (key revoked, scope gone). */
  recheck?: () => Promise<void>;
}

/** The process's live hub (ops/live-hub.ts), declared here as procedures/ never imports ops/. */
export interface LiveHub {
  /** Writes the stream to `res` until it ends (the client leaves, a bound, the server's stop). */
  serve(res: ServerResponse, subscription: LiveSubscription): Promise<void>;
}

/** Gathers service keys' lastUsedAt for a batched write (ops/service-key-usage.ts). */
export interface KeyUsage {
  used(keyId: string, at: Date): void;
}

/** A checkpoint as served: its signed note and the tree size it signs. */
export interface ServedCheckpoint {
  size: number;
  note: string;
}

/** An entry in the tree: its index and a signed checkpoint that holds it (size > logIndex). */
export interface LogInclusion {
  logIndex: number;
  checkpoint: ServedCheckpoint;
}

/** The log's sequencer and watcher (ops/log-sequencer.ts), declared here as procedures/ never imports ops/. */
export interface LogSequencer {
  /** The verifier key of the checkpoints (`GET /log/key`). */
  readonly verifierKey: string;
  readonly origin: string;
  /** The newest checkpoint this server has seen; undefined until the first pass reached the database. */
  checkpoint(): ServedCheckpoint | undefined;
  /** A pass as soon as possible: call it once a transaction that appended has committed. */
  kick(): void;
  /** Calls `listener` with the new size each time the served checkpoint grows (the live hub). */
  onAdvance(listener: (size: number) => void): void;
  /**
   * Resolves once the entry accepted as `acceptance` is in a signed checkpoint; undefined after
   * `maxWaitMs`, when `signal` aborts or when the sequencer stops. Call it after the appending
   * transaction committed (it kicks the sequencer itself).
   */
  waitFor(
    acceptance: LogAcceptance,
    options: { maxWaitMs: number; signal?: AbortSignal | undefined },
  ): Promise<LogInclusion | undefined>;
  /** The first pass (signs the empty tree's checkpoint on a new log), then the polling. */
  start(): Promise<void>;
  /** Ends the polling after the pass under way; waiters get undefined. */
  stop(): Promise<void>;
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
  /** The feed's tail, kept by the process's feed pump (ops/feed-pump.ts): what events.stream reads. */
  feed: FeedTail;
  /** Open subscriptions per credential, per address and in all (STREAMS_*): stream-slots.ts. */
  streams: StreamSlots;
  /** Where `signals.live` streams are served from (ops/live-hub.ts). */
  live: LiveHub;
  /** Where a live key's use is noted (lastUsedAt, written in batches). */
  keyUsage: KeyUsage;
  /** The public log's sequencer, its served checkpoint, and waiting for an entry's (ops/log-sequencer.ts). */
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
