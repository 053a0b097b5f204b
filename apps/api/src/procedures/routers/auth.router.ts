import { randomUUID } from 'node:crypto';
import {
  LogoutBodySchema,
  LogoutResultSchema,
  NonceQuerySchema,
  NonceResponseSchema,
  TokenResponseSchema,
  VerifyBodySchema,
} from '@signal/core';
import * as examples from '@signal/core/examples';
import type { NonceRecord } from '@signal/core/nonce';
import { parseWallet } from '@signal/core/wallet';
import { admitNewUser, recordNonceUseAndLogin, revokeSessions } from '@signal/db';
import { requestAddress } from '../../wire/client-address.js';
import { NEW_USER_WINDOW_MS, newUserBudgets, newUserRefused, rateLimitedProcedure } from '../rate-limit.js';
import { publicRead } from '../route-meta.js';
import { checkSignedNonce, invalidNonce, NONCE_USED, signInFields, signInMessage } from '../sign-in.js';
import { authedProcedure, authenticate, router } from '../trpc.js';

/** How much of a User-Agent a session keeps: enough to name the browser and system. */
const USER_AGENT_MAX = 256;

export const authRouter = router({
  nonce: rateLimitedProcedure('auth.nonce')
    .meta({
      openapi: publicRead({
        path: '/auth/nonce',
        tags: ['auth'],
        summary: 'Get a sign-in nonce for a wallet',
        description:
          'Issues a single-use nonce bound to the wallet (canonical form) and the exact message to sign: ' +
          "`format=plain` (default) the contract's plain text, `siwe` (EVM) an EIP-4361 message, `siws` (Solana) a " +
          "Sign-In With Solana message, both naming the site (SIGN_IN_DOMAIN: the request's Host when it is listed, " +
          "else the first; unset: the request's Host, and only on a server listening on loopback) and " +
          '`chainId` (siwe; default EVM_CHAIN_ID). A format for the other family or a bad chainId is a 400. ' +
          'Each call issues a new nonce; earlier unused ones stay valid until they expire. ' +
          '`purpose=link` (with the Bearer token of a signed-in user, else 401 `UNAUTHORIZED` or the token’s own 401; ' +
          'a service key → 403 `FORBIDDEN`) issues a nonce for ' +
          'POST /me/wallets, bound to the wallet and that user; it signs no one in (and a sign-in nonce links ' +
          'nothing). Issuing stores nothing (the nonce carries its expiry and a MAC), so however many nonces others ' +
          'request for a wallet, its owner still gets one. The only limit is AUTH_RATE_LIMIT_PER_MINUTE per client ' +
          'address (429 RATE_LIMITED with Retry-After).',
        example: { request: examples.nonceRequest, response: examples.nonceResponse },
      }),
      // purpose=link authenticates as a user's route does (trpc.ts's authenticate).
      errors: [
        'INVALID_WALLET',
        'RATE_LIMITED',
        'UNAUTHORIZED',
        'TOKEN_EXPIRED',
        'SESSION_REVOKED',
        'FORBIDDEN',
        'WALLET_NOT_FOUND',
      ],
    })
    .input(NonceQuerySchema)
    .output(NonceResponseSchema)
    .query(async ({ input, ctx }) => {
      // A link nonce is bound to the signed-in user: only that user's POST /me/wallets opens it.
      const linkTo = input.purpose === 'link' ? String((await authenticate(ctx)).userId) : undefined;
      const { wallet, chain } = parseWallet(input.wallet);
      const { nonces, config, now } = ctx.services;
      const issuedAt = now().getTime();
      const expiresAt = issuedAt + config.nonceTtlSeconds * 1000;
      const record = {
        wallet,
        expiresAt,
        ...signInFields(config, ctx.req, chain, input.format, input.chainId, issuedAt),
        ...(linkTo === undefined ? {} : { purpose: 'link' as const, userId: linkTo }),
      };
      const nonce = nonces.issue(record);
      return {
        nonce,
        message: signInMessage(config, nonce, record as NonceRecord),
        wallet,
        chain,
        format: input.format,
        expiresAt: new Date(expiresAt).toISOString(),
      };
    }),

  verify: rateLimitedProcedure('auth.verify')
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/verify',
        tags: ['auth'],
        summary: 'Exchange a signed nonce for an access token',
        description:
          'Checks the nonce, then the signature of the message issued with it (plain, SIWE or SIWS). ' +
          'On success the nonce is used up, the user is created on its first login, and a 30-day JWT is returned. ' +
          'EVM: a 65-byte `personal_sign` signature in hex (or 64-byte EIP-2098 compact); with EVM_RPC_URL set, a ' +
          "contract account's EIP-1271 or EIP-6492 signature is checked on chain (503 `SERVICE_UNAVAILABLE`, " +
          'nonce still usable, when the node fails or is slower than EVM_RPC_TIMEOUT_MS). Solana: a 64-byte ed25519 ' +
          'signature in base58 of the UTF-8 message, or of the off-chain message envelope around it as a Ledger ' +
          'signs it. Checks answer in this order: body shape (400 `VALIDATION_ERROR`), wallet ' +
          '(400 `INVALID_WALLET`), nonce (401 `INVALID_NONCE`: unknown, expired, used, issued for another ' +
          'wallet, or a link nonce), signature (401 `INVALID_SIGNATURE`; the nonce stays usable). Send the token as ' +
          '`Authorization: Bearer <token>` (on this page: the Authorize button).',
        protect: false,
        example: { request: examples.verifyRequest, response: examples.tokenResponse },
      },
      errors: ['INVALID_WALLET', 'INVALID_NONCE', 'INVALID_SIGNATURE', 'RATE_LIMITED'],
    })
    .input(VerifyBodySchema)
    .output(TokenResponseSchema)
    .mutation(async ({ input, ctx }) => {
      // Contract order: body shape (zod, above) → wallet → nonce → signature.
      const { database, tokens, now } = ctx.services;
      const at = now();
      const { wallet, record } = await checkSignedNonce(ctx.services, input, {}, at);
      // The session is started with the login, so the token's sid exists before the token does.
      const sessionId = randomUUID();
      const userAgent = ctx.req.headers['user-agent'];
      // A new wallet counts against its client's new-account budgets, in the transaction that
      // creates it; past one, a 429 and nothing written (the nonce stays unused).
      const admission = await admitNewUser(
        database.db,
        { wallet: wallet.wallet, budgets: newUserBudgets(ctx), now: at, windowMs: NEW_USER_WINDOW_MS },
        (db) =>
          recordNonceUseAndLogin(db, {
            nonce: input.nonce,
            wallet: wallet.wallet,
            chain: wallet.chain,
            expiresAt: new Date(record.expiresAt),
            now: at,
            session: {
              id: sessionId,
              expiresAt: tokens.expiresAt(at),
              userAgent: userAgent ? userAgent.slice(0, USER_AGENT_MAX) : null,
              ip: requestAddress(ctx),
            },
          }),
      );
      if (!admission.admitted) throw newUserRefused(admission, at);
      const login = admission.result;
      if (!login) throw invalidNonce(NONCE_USED);
      const issued = await tokens.issue({
        userId: login.user.id,
        wallet: wallet.wallet,
        chain: wallet.chain,
        sessionId,
        issuedAt: at,
      });
      return {
        token: issued.token,
        tokenType: 'Bearer' as const,
        expiresAt: issued.expiresAt.toISOString(),
        user: login.user,
        isNewUser: login.isNewUser,
        sessionId,
      };
    }),

  logout: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/auth/logout',
        tags: ['auth'],
        summary: 'Sign out: end this session, the others, or all',
        description:
          "Ends sessions of the signed-in user: `scope` `current` (default; no body needed) this token's session, " +
          '`others` every other live session ("sign out everywhere else"), `all` every one. Their tokens answer ' +
          '401 `SESSION_REVOKED` from the next request on, on every server sharing the database. Answers how many ' +
          'live sessions it ended.',
        protect: true,
        example: { request: { scope: 'others' }, response: { revoked: 2 } },
      },
      errors: ['WALLET_NOT_FOUND'],
    })
    .input(LogoutBodySchema)
    .output(LogoutResultSchema)
    .mutation(async ({ input, ctx }) => ({
      revoked: await revokeSessions(ctx.services.database.db, {
        scope: input.scope,
        sessionId: ctx.auth.sessionId,
        userId: ctx.auth.userId,
        now: ctx.services.now(),
      }),
    })),
});
