import {
  buildAuthMessage,
  DomainError,
  generateNonce,
  NONCE_PATTERN,
  NonceQuerySchema,
  NonceResponseSchema,
  TokenResponseSchema,
  VerifyBodySchema,
} from '@signal/core';
import { ChainUnavailableError, type EvmChainVerifier } from '@signal/core/evm-chain';
import { verifyWalletSignature } from '@signal/core/verify';
import { type ParsedWallet, parseWallet } from '@signal/core/wallet';
import { consumeNonceAndLogin, findNonce, issueNonceWithinCap } from '@signal/db';
import * as examples from '../openapi.examples.js';
import { rateLimited, rateLimitedProcedure, secondsUntil } from '../rate-limit.js';
import { router } from '../trpc.js';

const invalidNonce = (message: string) => new DomainError('INVALID_NONCE', message);

/**
 * Live (unused, unexpired) nonces one wallet may hold. A client needs one per sign-in; the cap
 * keeps a flood of nonce requests for one wallet from growing the table, and answers
 * RATE_LIMITED until the oldest of them expires.
 */
export const MAX_UNUSED_NONCES_PER_WALLET = 10;

/**
 * The local check first (EOA keys, Solana keys and envelopes), so ordinary wallets never wait
 * for a node; an EVM signature that does not recover to the wallet may still be a contract
 * account's (EIP-1271, or EIP-6492 before deployment), checked on chain when a node is set.
 */
async function verifySignature(
  evmChain: EvmChainVerifier | undefined,
  wallet: ParsedWallet,
  message: string,
  signature: string,
): Promise<void> {
  if (verifyWalletSignature(wallet, message, signature)) return;
  if (wallet.chain === 'evm' && evmChain) {
    try {
      if (await evmChain.verifyMessage(wallet.wallet, message, signature)) return;
    } catch (error) {
      if (error instanceof ChainUnavailableError) {
        throw new DomainError(
          'SERVICE_UNAVAILABLE',
          'The chain node is unavailable; retry shortly (the nonce is still valid)',
          {
            cause: error,
          },
        );
      }
      throw error;
    }
  }
  throw new DomainError('INVALID_SIGNATURE', `signature is not a valid ${wallet.chain} signature by this wallet`);
}

export const authRouter = router({
  nonce: rateLimitedProcedure('auth.nonce')
    .meta({
      openapi: {
        method: 'GET',
        path: '/auth/nonce',
        tags: ['auth'],
        summary: 'Get a sign-in nonce for a wallet',
        description:
          'Issues a single-use nonce bound to the wallet (canonical form) and the exact message to sign. ' +
          'Each call issues a new nonce; earlier unused ones stay valid until they expire. ' +
          `A wallet holds at most ${MAX_UNUSED_NONCES_PER_WALLET} unused nonces (429 RATE_LIMITED beyond); ` +
          'AUTH_RATE_LIMIT_PER_MINUTE limits requests per client address (429 RATE_LIMITED with Retry-After).',
        example: { request: { wallet: examples.nonceResponse.wallet }, response: examples.nonceResponse },
      },
      errors: ['INVALID_WALLET', 'RATE_LIMITED'],
    })
    .input(NonceQuerySchema)
    .output(NonceResponseSchema)
    .query(async ({ input, ctx }) => {
      const { wallet, chain } = parseWallet(input.wallet);
      const { database, config, now } = ctx.services;
      const issuedAt = now();
      const expiresAt = new Date(issuedAt.getTime() + config.nonceTtlSeconds * 1000);
      const nonce = generateNonce();
      const outcome = await issueNonceWithinCap(database.db, {
        nonce,
        wallet,
        issuedAt,
        expiresAt,
        maxUnused: MAX_UNUSED_NONCES_PER_WALLET,
      });
      if (!outcome.issued) {
        throw rateLimited(
          `This wallet already holds ${outcome.live} unused nonces (at most ${MAX_UNUSED_NONCES_PER_WALLET})`,
          secondsUntil(outcome.oldestExpiresAt, issuedAt),
        );
      }
      return { nonce, message: buildAuthMessage(nonce), wallet, chain, expiresAt: expiresAt.toISOString() };
    }),

  verify: rateLimitedProcedure('auth.verify')
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/verify',
        tags: ['auth'],
        summary: 'Exchange a signed nonce for an access token',
        description:
          'Checks the nonce, then the signature of "Sign this message to authenticate: <nonce>". ' +
          'On success the nonce is used up, the user is created on its first login, and a 30-day JWT is returned. ' +
          'EVM: a 65-byte `personal_sign` signature in hex (or 64-byte EIP-2098 compact); with EVM_RPC_URL set, a ' +
          "contract account's EIP-1271 or EIP-6492 signature is checked on chain (503 `SERVICE_UNAVAILABLE`, " +
          'nonce still usable, when the node fails or is slower than EVM_RPC_TIMEOUT_MS). Solana: a 64-byte ed25519 ' +
          'signature in base58 of the UTF-8 message, or of the off-chain message envelope around it as a Ledger ' +
          'signs it. Checks answer in this order: body shape (400 `VALIDATION_ERROR`), wallet ' +
          '(400 `INVALID_WALLET`), nonce (401 `INVALID_NONCE`: unknown, expired, used, or issued for another ' +
          'wallet), signature (401 `INVALID_SIGNATURE`; the nonce stays usable). Send the token as ' +
          '`Authorization: Bearer <token>` (on this page: the Authorize button).',
        example: { request: examples.verifyRequest, response: examples.tokenResponse },
      },
      errors: ['INVALID_WALLET', 'INVALID_NONCE', 'INVALID_SIGNATURE', 'RATE_LIMITED'],
    })
    .input(VerifyBodySchema)
    .output(TokenResponseSchema)
    .mutation(async ({ input, ctx }) => {
      // Contract order: body shape (zod, above) → wallet → nonce → signature.
      const wallet = parseWallet(input.wallet);
      const { database, tokens, now } = ctx.services;
      const at = now();
      if (!NONCE_PATTERN.test(input.nonce)) throw invalidNonce('nonce is unknown');
      const record = await findNonce(database.db, input.nonce);
      if (!record) throw invalidNonce('nonce is unknown');
      if (record.wallet !== wallet.wallet) throw invalidNonce('nonce was issued for another wallet');
      if (record.usedAt) throw invalidNonce('nonce has already been used');
      if (record.expiresAt <= at) throw invalidNonce('nonce has expired');

      // Verify before consuming: a failed attempt (or a chain node that cannot answer) must
      // leave the nonce usable.
      await verifySignature(ctx.services.evmChain, wallet, buildAuthMessage(input.nonce), input.signature);
      const login = await consumeNonceAndLogin(database.db, {
        nonce: input.nonce,
        wallet: wallet.wallet,
        chain: wallet.chain,
        now: at,
      });
      // Another verify of the same nonce won the race between our read and the consume.
      if (!login) throw invalidNonce('nonce has already been used');
      const issued = await tokens.issue({ userId: login.user.id, wallet: wallet.wallet, chain: wallet.chain });
      return {
        token: issued.token,
        tokenType: 'Bearer' as const,
        expiresAt: issued.expiresAt.toISOString(),
        user: login.user,
        isNewUser: login.isNewUser,
      };
    }),
});
