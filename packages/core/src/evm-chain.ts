/**
 * Sign-in signatures of EVM contract accounts, checked on chain through viem: EIP-1271
 * (`isValidSignature` of a deployed account) and EIP-6492 (a wrapped signature of an account
 * not yet deployed, whose factory call is simulated). viem's `verifyMessage` runs both through
 * the deployless universal validator in one `eth_call`.
 *
 * viem answers `false` for a node that failed as much as for a signature that is wrong, so the
 * transport below records every failure that is not the node's own answer: a caller must tell
 * "not this wallet's signature" (401) from "the node could not say" (503, nonce kept).
 *
 * The node is usually metered, and every EVM signature that does not recover locally reaches
 * it, so the checks are bounded (issue 24: 8 addresses × 40 bad sign-ins were 320 node calls):
 * - a global cap on checks in flight and on node calls a minute; past it, ChainBusyError (503
 *   with Retry-After) for the contract wallet, while key wallets never come here;
 * - identical checks in flight share one call, and a failed (wallet, message, signature) is
 *   remembered for a minute;
 * - a plain 64- or 65-byte signature (what a key signs) from an address the node says has no
 *   code cannot be a contract's: one `eth_getCode`, remembered per address for ten minutes,
 *   instead of a simulation (an EIP-6492 wrapper, the signature of an account not yet deployed,
 *   always goes to the chain);
 * - the simulation carries an explicit `gas` cap, so a factory that burns gas stops there.
 */
import {
  BaseError,
  createPublicClient,
  type EIP1193RequestFn,
  type Hex,
  http,
  RpcRequestError,
  type Transport,
} from 'viem';

export class ChainUnavailableError extends Error {
  override readonly name = 'ChainUnavailableError';
}

/** The bound on chain checks is reached: retry after this many seconds. */
export class ChainBusyError extends ChainUnavailableError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/**
 * How a check ended: `valid`, `invalid` or `failed` after an `eth_call`; `no-code` after an
 * `eth_getCode` alone; without a node call: `no-code-known` (an address remembered without
 * code), `invalid-known` (the same failed check remembered), `shared` (joined an identical
 * check in flight), `busy` (over the bound).
 */
export type ChainCheckOutcome =
  | 'valid'
  | 'invalid'
  | 'failed'
  | 'no-code'
  | 'no-code-known'
  | 'invalid-known'
  | 'shared'
  | 'busy';

export interface EvmChainVerifier {
  /**
   * True when `address` (a canonical 0x address) accepts `signature` of the EIP-191 hash of
   * `message` on chain; false when it does not. Throws `ChainUnavailableError` when the node
   * fails or does not answer within the time box.
   */
  verifyMessage(address: string, message: string, signature: string): Promise<boolean>;
}

export interface EvmChainVerifierOptions {
  rpcUrl: string;
  timeoutMs: number;
  /** Checks waiting on the node at once, across all sign-ins (default 8). */
  maxConcurrent?: number;
  /** Node calls a minute (default 120). */
  maxCallsPerMinute?: number;
  /** The `gas` of the simulation (default 3,000,000: an account's deployment and its check). */
  gasCap?: bigint;
  /** Hears how each check ended (metrics). */
  onOutcome?: (outcome: ChainCheckOutcome) => void;
  /** The clock (tests). */
  now?: () => number;
}

/** A failed check is remembered this long: retrying the same bytes costs no call. */
const INVALID_MEMORY_MS = 60_000;
/** An address the node says has no code is remembered this long. */
const NO_CODE_MEMORY_MS = 600_000;
/** Entries each memory holds at most; the oldest go first. */
const MEMORY_ENTRIES = 10_000;
const MINUTE_MS = 60_000;

/** A map of keys that expire, holding at most MEMORY_ENTRIES (oldest dropped first). */
class Memory {
  private readonly until = new Map<string, number>();
  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}
  has(key: string): boolean {
    const until = this.until.get(key);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.until.delete(key);
    return false;
  }
  add(key: string): void {
    this.until.delete(key);
    if (this.until.size >= MEMORY_ENTRIES) this.until.delete(this.until.keys().next().value as string);
    this.until.set(key, this.now() + this.ttlMs);
  }
}

/** A plain signature (r, s, v or EIP-2098's compact r, vs): what a key signs, not a wrapper. */
const PLAIN_SIGNATURE = /^(0x)?(?:[0-9a-fA-F]{128}|[0-9a-fA-F]{130})$/;

const HEX_BYTES = /^(0x)?(?:[0-9a-fA-F]{2})+$/;

/** A JSON-RPC error that is the node's verdict (the simulated call reverted), not a failure. */
function isRevert(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  const rpc = error.walk((e) => e instanceof RpcRequestError);
  if (!(rpc instanceof RpcRequestError)) return false;
  return rpc.code === 3 || /revert/i.test(rpc.details ?? rpc.shortMessage);
}

export function createEvmChainVerifier(options: EvmChainVerifierOptions): EvmChainVerifier {
  const base = http(options.rpcUrl, { timeout: options.timeoutMs, retryCount: 0 });
  const now = options.now ?? Date.now;
  const maxConcurrent = options.maxConcurrent ?? 8;
  const maxCallsPerMinute = options.maxCallsPerMinute ?? 120;
  const gas = options.gasCap ?? 3_000_000n;
  const report = options.onOutcome ?? (() => {});
  const invalid = new Memory(INVALID_MEMORY_MS, now);
  const noCode = new Memory(NO_CODE_MEMORY_MS, now);
  const inFlight = new Map<string, Promise<boolean>>();
  let running = 0;
  let windowStart = 0;
  let callsThisMinute = 0;

  /** Counts one node call against the minute's budget, or refuses it. */
  function takeCall(): void {
    const at = now();
    const start = Math.floor(at / MINUTE_MS) * MINUTE_MS;
    if (start !== windowStart) {
      windowStart = start;
      callsThisMinute = 0;
    }
    if (callsThisMinute >= maxCallsPerMinute) {
      throw new ChainBusyError(
        `more than ${maxCallsPerMinute} chain calls this minute`,
        Math.max(1, Math.ceil((start + MINUTE_MS - at) / 1000)),
      );
    }
    callsThisMinute++;
  }

  /** One check on the node, within the time box; the caller holds a slot. */
  async function check(address: string, message: string, signature: string): Promise<boolean> {
    let failure: unknown;
    // One transport per check, so a failure is attributed to this check alone.
    const recording: Transport = (params) => {
      const transport = base(params);
      const request: EIP1193RequestFn = async (args, requestOptions) => {
        try {
          return await transport.request(args, requestOptions);
        } catch (error) {
          if (!isRevert(error)) failure ??= error;
          throw error;
        }
      };
      return { ...transport, request };
    };
    const client = createPublicClient({ transport: recording });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ChainUnavailableError(`the chain node did not answer within ${options.timeoutMs} ms`)),
        options.timeoutMs,
      );
    });
    try {
      if (PLAIN_SIGNATURE.test(signature)) {
        takeCall();
        const code = await Promise.race([client.getCode({ address: address as Hex }), deadline]);
        if (code === undefined || code === '0x') {
          noCode.add(address);
          report('no-code');
          return false;
        }
      }
      takeCall();
      // viem passes what its parameters do not name on to the `eth_call` (verifyMessage →
      // verifyHash → call), `gas` included, though its types leave it out.
      const parameters = {
        address: address as Hex,
        message,
        signature: (signature.startsWith('0x') ? signature : `0x${signature}`) as Hex,
        gas,
      };
      const valid = await Promise.race([
        client.verifyMessage(parameters as Parameters<typeof client.verifyMessage>[0]),
        deadline,
      ]);
      if (valid) return true;
      if (failure !== undefined) throw new ChainUnavailableError('the chain node failed', { cause: failure });
      return false;
    } catch (error) {
      if (error instanceof ChainUnavailableError) throw error;
      if (failure !== undefined) throw new ChainUnavailableError('the chain node failed', { cause: failure });
      // Anything else viem throws on its own is a malformed signature, not an outage.
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  async function bounded(key: string, address: string, message: string, signature: string): Promise<boolean> {
    if (running >= maxConcurrent) {
      throw new ChainBusyError(`more than ${maxConcurrent} chain checks at once`, 1);
    }
    running++;
    try {
      const valid = await check(address, message, signature);
      if (!valid) invalid.add(key);
      return valid;
    } finally {
      running--;
    }
  }

  return {
    async verifyMessage(address, message, signature) {
      if (!HEX_BYTES.test(signature)) return false;
      if (PLAIN_SIGNATURE.test(signature) && noCode.has(address)) {
        report('no-code-known');
        return false;
      }
      const key = `${address}\n${signature}\n${message}`;
      if (invalid.has(key)) {
        report('invalid-known');
        return false;
      }
      const joined = inFlight.get(key);
      if (joined) {
        report('shared');
        return joined;
      }
      const pending = bounded(key, address, message, signature);
      inFlight.set(key, pending);
      try {
        const valid = await pending;
        // A no-code answer was reported where it was found.
        if (valid || !noCode.has(address) || !PLAIN_SIGNATURE.test(signature)) report(valid ? 'valid' : 'invalid');
        return valid;
      } catch (error) {
        report(error instanceof ChainBusyError ? 'busy' : 'failed');
        throw error;
      } finally {
        inFlight.delete(key);
      }
    },
  };
}
