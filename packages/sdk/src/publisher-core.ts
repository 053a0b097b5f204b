/**
 * The publisher behind `client.publisher(…)` and `@signal/sdk/publisher`'s `createPublisher`
 * (CONTRACT.md, Version 4, "Publishers and their keys", "Signed statements", "Signals"): opens,
 * updates, closes and cancels signals, and delegates and revokes bot keys, each as a statement
 * built by statements.ts (RFC 8785 canonical JSON, an opaque random id, a 128-bit salt, the
 * log's origin read from the server once, `issuedAt` from the clock) and signed by a wallet (a
 * viem account or wallet client, a Solana keypair or wallet) or a delegated Ed25519 key.
 *
 * Retries are safe: a statement is signed once and the same bytes are sent again on a network
 * failure, a timeout or a 503, and the API answers a byte-identical body with the first answer
 * (200) and appends nothing. A bot that must survive its own crash signs first
 * (`prepare.open(…)`), keeps the signed statement, and sends it (`send`) as often as it needs.
 *
 * It reaches the API only through the calls it is given (`PublisherIO`), so the chunk that
 * `client.publisher` loads on demand shares no code with the core client and a reader's browser
 * bundle stays one chunk.
 */
import type { Signer } from './signer.types.js';
import { type StatementSigner, walletStatementSigner } from './statement-signers.js';
import {
  type BuiltStatement,
  cancelStatement,
  closeStatement,
  type Dec,
  delegateKeyStatement,
  type InstantInput,
  openStatement,
  revokeKeyStatement,
  type SignalChanges,
  type SignalStatementOptions,
  type SignalTerms,
  type StatementBody,
  signStatement,
  updateStatement,
} from './statements.js';
import type { PublisherKey, PublisherKeyRevoked, SignalStatementAnswer } from './wire.types.js';

/** A statement's `type`: the four of a signal, and the two of a delegated key. */
export type StatementType =
  | 'signal.open'
  | 'signal.update'
  | 'signal.close'
  | 'signal.cancel'
  | 'key.delegate'
  | 'key.revoke';

/** What each statement's route answers. */
export interface StatementAnswers {
  'signal.open': SignalStatementAnswer;
  'signal.update': SignalStatementAnswer;
  'signal.close': SignalStatementAnswer;
  'signal.cancel': SignalStatementAnswer;
  'key.delegate': PublisherKey;
  'key.revoke': PublisherKeyRevoked;
}

/**
 * A signed statement and where it goes: plain JSON, so a bot can store it (before it sends it)
 * and send exactly the same bytes again after a crash or a timeout with `publisher.send(signed)`.
 */
export interface SignedStatement<T extends StatementType = StatementType> {
  type: T;
  providerId: number;
  /** The signal: for an open, the new signal's id (its statement's `id`); else the signal it changes. Absent on key statements. */
  signalId?: string;
  /** The key a `key.delegate` or `key.revoke` statement names. */
  key?: string;
  /** The body the route takes, `{ statement, signer, signature }`: never re-signed. */
  body: StatementBody;
}

/** Who signs: a wallet's sign-in signer (`evmSigner(account)`, `solanaSigner(keypair)`) or a statement signer (`ed25519StatementSigner(secretKey)`). */
export type PublisherSigner = Signer | StatementSigner;

export interface PublisherOptions {
  /**
   * How many times a statement is sent again after a failure that leaves its fate unknown: no
   * answer (network, timeout) or `SERVICE_UNAVAILABLE` (503). Default 4, with pauses of 0.5, 1, 2
   * and 4 s (or the answer's `Retry-After` when longer). The same bytes each time.
   */
  retries?: number;
  /** How long one attempt may take before it counts as no answer, in ms; default 30,000. */
  timeoutMs?: number;
  /** The clock a statement's `issuedAt` is read from; default `() => new Date()`. */
  now?: () => Date;
  /** The log's origin (`LOG_ORIGIN`), when known; default read once from `GET /log/checkpoint`. */
  log?: string;
}

/** @internal How the publisher reaches the API: a tRPC mutation by name, and the log's checkpoint. */
export interface PublisherIO {
  /** Where the API is (the key of the origin cache). */
  baseUrl: string;
  /** Runs the mutation `router.procedure` with `input` (aborted by `signal`); fails with a SignalApiError. */
  mutate(procedure: string, input: unknown, signal: AbortSignal): Promise<unknown>;
  /** `GET /log/checkpoint`'s text. */
  checkpoint(): Promise<string>;
}

/** The statements a publisher signs, without sending them: `publisher.send(signed)` does. */
export interface PublisherPreparations {
  open(terms: SignalTerms, options?: SignalStatementOptions): Promise<SignedStatement<'signal.open'>>;
  update(
    signalId: string,
    changes: SignalChanges,
    options?: SignalStatementOptions,
  ): Promise<SignedStatement<'signal.update'>>;
  close(signalId: string, closePct: Dec, options?: SignalStatementOptions): Promise<SignedStatement<'signal.close'>>;
  cancel(signalId: string, options?: SignalStatementOptions): Promise<SignedStatement<'signal.cancel'>>;
  delegateKey(
    key: string | { key: string },
    options: { expiresAt: InstantInput },
  ): Promise<SignedStatement<'key.delegate'>>;
  revokeKey(key: string | { key: string }): Promise<SignedStatement<'key.revoke'>>;
}

/**
 * A provider's publisher: every method signs one statement with the publisher's signer and sends
 * it, and resolves once the API has it in a signed checkpoint (the answer's `receipt`). Failures
 * are `SignalApiError`s: `FORBIDDEN` (403) when the signer may not sign for the provider now (a
 * revoked or expired key, a removed wallet), `INVALID_SIGNATURE`, `SIGNAL_NOT_FOUND`,
 * `SIGNAL_CLOSED`, `IDEMPOTENCY_CONFLICT` (an id used before), `VALIDATION_ERROR` (with `issues`
 * naming the field, e.g. `["statement","closePct"]`), `RATE_LIMITED` (not retried: wait
 * `retryAfter` and send the prepared statement again, or sign afresh if `issuedAt` is past the
 * skew).
 */
export interface Publisher {
  readonly providerId: number;
  /** `POST /providers/{id}/signals` (`signal.open`): the new signal is `answer.signal`, its id `answer.signal.id`. */
  open(terms: SignalTerms, options?: SignalStatementOptions): Promise<SignalStatementAnswer>;
  /** `signal.update`: each field named replaces the current one (`stop: null`, `targets: []` clear). */
  update(signalId: string, changes: SignalChanges, options?: SignalStatementOptions): Promise<SignalStatementAnswer>;
  /** `signal.close` of `closePct` of the original size (a decimal string, at most what is still open). */
  close(signalId: string, closePct: Dec, options?: SignalStatementOptions): Promise<SignalStatementAnswer>;
  /** `signal.cancel`. */
  cancel(signalId: string, options?: SignalStatementOptions): Promise<SignalStatementAnswer>;
  /**
   * `POST /providers/{id}/publisher-keys` (`key.delegate`, signed by a publisher wallet): the
   * key (`ed25519:<base58>`, or what `generateEd25519Key()` returns) may sign for the provider
   * until `expiresAt` (at most 365 days on).
   */
  delegateKey(key: string | { key: string }, options: { expiresAt: InstantInput }): Promise<PublisherKey>;
  /** `POST /providers/{id}/publisher-keys/{key}/revoke` (`key.revoke`, signed by a publisher wallet or the key itself); idempotent. */
  revokeKey(key: string | { key: string }): Promise<PublisherKeyRevoked>;
  /** The same statements, signed and not sent. */
  prepare: PublisherPreparations;
  /** Sends a signed statement (again): a byte-identical body gets the first answer and appends nothing. */
  send<T extends StatementType>(signed: SignedStatement<T>): Promise<StatementAnswers[T]>;
  /** The log's origin the statements name (read once from `GET /log/checkpoint`, then kept). */
  origin(): Promise<string>;
}

/** tRPC procedure of each statement type. */
const PROCEDURES: Record<StatementType, string> = {
  'signal.open': 'signals.open',
  'signal.update': 'signals.update',
  'signal.close': 'signals.update',
  'signal.cancel': 'signals.update',
  'key.delegate': 'publisherKeys.delegate',
  'key.revoke': 'publisherKeys.revoke',
};

/** Log origins by API, read once per process (a failed read is forgotten). */
const origins = new Map<string, Promise<string>>();

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The fields of a SignalApiError read here (duck-typed: the class lives in the core chunk). */
interface ApiFailure {
  code?: unknown;
  status?: number;
  retryAfter?: number;
  issues?: { path: (string | number)[] }[];
}

/** No answer from the API (refused connection, timeout, a proxy's 5xx page) or a 503: the statement's fate is unknown. */
const fateUnknown = ({ code, status = 0 }: ApiFailure) =>
  code === 'SERVICE_UNAVAILABLE' || (code === 'NETWORK_ERROR' && (status === 0 || status >= 500));

function asStatementSigner(signer: PublisherSigner): StatementSigner {
  return 'signerId' in signer ? signer : walletStatementSigner(signer);
}

const keyName = (key: string | { key: string }) => (typeof key === 'string' ? key : key.key);

/** @internal */
export function makePublisher(
  io: PublisherIO,
  providerId: number,
  publisherSigner: PublisherSigner,
  options: PublisherOptions = {},
): Publisher {
  const { baseUrl } = io;
  const { retries = 4, timeoutMs = 30_000, now = () => new Date() } = options;
  const signer = asStatementSigner(publisherSigner);

  const withRetries = async <T>(attempt: () => Promise<T>): Promise<T> => {
    for (let failures = 0; ; failures++) {
      try {
        return await attempt();
      } catch (error) {
        const failure = (error ?? {}) as ApiFailure;
        if (failures >= retries || !fateUnknown(failure)) throw error;
        await pause(Math.max(500 * 2 ** failures, (failure.retryAfter ?? 0) * 1000));
      }
    }
  };

  const origin = (): Promise<string> => {
    if (options.log !== undefined) return Promise.resolve(options.log);
    let known = origins.get(baseUrl);
    if (!known) {
      // The checkpoint's first line is the log's origin (C2SP tlog-checkpoint).
      known = withRetries(io.checkpoint).then((note) => note.split('\n', 1)[0] as string);
      origins.set(baseUrl, known);
      known.catch(() => origins.delete(baseUrl));
    }
    return known;
  };

  const scope = async () => ({ log: await origin(), provider: providerId, issuedAt: now() });

  const signed = async <T extends StatementType>(
    type: T,
    built: BuiltStatement,
    where: { signalId?: string; key?: string },
  ): Promise<SignedStatement<T>> => ({ type, providerId, ...where, body: await signStatement(built, signer) });

  const send = async <T extends StatementType>(statement: SignedStatement<T>): Promise<StatementAnswers[T]> => {
    const input = {
      id: statement.providerId,
      ...(statement.type.startsWith('signal.') && statement.type !== 'signal.open' && { signalId: statement.signalId }),
      ...(statement.type === 'key.revoke' && { key: statement.key }),
      ...statement.body,
    };
    try {
      return (await withRetries(() =>
        io.mutate(PROCEDURES[statement.type], input, AbortSignal.timeout(timeoutMs)),
      )) as StatementAnswers[T];
    } catch (error) {
      // The log's origin changed under this URL: read it again for the next statement.
      if ((error as ApiFailure | undefined)?.issues?.some((issue) => issue.path[1] === 'log')) {
        origins.delete(baseUrl);
      }
      throw error;
    }
  };

  const prepare: PublisherPreparations = {
    open: async (terms, statementOptions) => {
      const built = openStatement(await scope(), terms, statementOptions);
      return signed('signal.open', built, { signalId: built.id as string });
    },
    update: async (signalId, changes, statementOptions) =>
      signed('signal.update', updateStatement(await scope(), signalId, changes, statementOptions), { signalId }),
    close: async (signalId, closePct, statementOptions) =>
      signed('signal.close', closeStatement(await scope(), signalId, closePct, statementOptions), { signalId }),
    cancel: async (signalId, statementOptions) =>
      signed('signal.cancel', cancelStatement(await scope(), signalId, statementOptions), { signalId }),
    delegateKey: async (key, { expiresAt }) =>
      signed('key.delegate', delegateKeyStatement(await scope(), keyName(key), expiresAt), { key: keyName(key) }),
    revokeKey: async (key) =>
      signed('key.revoke', revokeKeyStatement(await scope(), keyName(key)), { key: keyName(key) }),
  };

  return {
    providerId,
    open: async (terms, statementOptions) => send(await prepare.open(terms, statementOptions)),
    update: async (signalId, changes, statementOptions) =>
      send(await prepare.update(signalId, changes, statementOptions)),
    close: async (signalId, closePct, statementOptions) =>
      send(await prepare.close(signalId, closePct, statementOptions)),
    cancel: async (signalId, statementOptions) => send(await prepare.cancel(signalId, statementOptions)),
    delegateKey: async (key, delegation) => send(await prepare.delegateKey(key, delegation)),
    revokeKey: async (key) => send(await prepare.revokeKey(key)),
    prepare,
    send,
    origin,
  };
}
