/**
 * Sign-in signatures of EVM contract accounts, checked on chain through viem: EIP-1271
 * (`isValidSignature` of a deployed account) and EIP-6492 (a wrapped signature of an account
 * not yet deployed, whose factory call is simulated). viem's `verifyMessage` runs both through
 * the deployless universal validator in one `eth_call`.
 *
 * viem answers `false` for a node that failed as much as for a signature that is wrong, so the
 * transport below records every failure that is not the node's own answer: a caller must tell
 * "not this wallet's signature" (401) from "the node could not say" (503, nonce kept).
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
}

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
  return {
    async verifyMessage(address, message, signature) {
      if (!HEX_BYTES.test(signature)) return false;
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
        const valid = await Promise.race([
          client.verifyMessage({
            address: address as Hex,
            message,
            signature: (signature.startsWith('0x') ? signature : `0x${signature}`) as Hex,
          }),
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
    },
  };
}
