/**
 * The signed-in user's wallets: link one more (signed like a sign-in, with a `purpose=link`
 * nonce), list them, unlink one. Any linked wallet signs the same user in (auth.queries.ts).
 */
import {
  DomainError,
  LinkedWalletListSchema,
  LinkedWalletSchema,
  LinkWalletBodySchema,
  UnlinkedWalletSchema,
  WalletParamsSchema,
} from '@signal/core';
import * as examples from '@signal/core/examples';
import { parseWallet } from '@signal/core/wallet';
import { linkWallet, listWallets, unlinkWallet } from '@signal/db';
import { z } from 'zod';
import { rateLimitedProcedure } from '../rate-limit.js';
import { signedInRead } from '../route-meta.js';
import { checkSignedNonce, invalidNonce, NONCE_USED } from '../sign-in.js';
import { authedProcedure, requireUser, router, walletNotFound } from '../trpc.js';
import { writeTransaction } from '../write-transaction.js';

export const walletsRouter = router({
  // Rate-limited per client address like /auth/verify: each attempt checks a signature.
  link: rateLimitedProcedure('wallets.link')
    .use(requireUser)
    .meta({
      openapi: {
        method: 'POST',
        path: '/me/wallets',
        tags: ['me'],
        summary: 'Link another wallet to the signed-in user',
        description:
          'Links a wallet the user proves to hold: sign the message of a nonce from ' +
          "`GET /auth/nonce?wallet=W&purpose=link` (sent with this user's token; any format, EVM or Solana, every " +
          'signature kind /auth/verify takes). The same checks and codes as /auth/verify, in the same order; a ' +
          'sign-in nonce, or a link nonce of another user, is 401 `INVALID_NONCE`. 201 with the new wallet; 200 with ' +
          'the same body when it is already linked to this user; 409 `WALLET_ALREADY_LINKED` when it is linked to ' +
          'another user (the nonce stays unused). The wallet then signs this user in. With `Idempotency-Key` ' +
          '(per user), a retry within 24 h returns the first answer and changes nothing; the same key with another ' +
          'body → 409 `IDEMPOTENCY_CONFLICT`.',
        protect: true,
        successStatus: 201,
        example: { request: examples.linkWalletRequest, response: examples.linkedWallet },
      },
      errors: [
        'INVALID_WALLET',
        'INVALID_NONCE',
        'INVALID_SIGNATURE',
        'WALLET_ALREADY_LINKED',
        'IDEMPOTENCY_CONFLICT',
        'RATE_LIMITED',
        'WALLET_NOT_FOUND',
      ],
      alsoAnswers: [{ status: 200, description: 'Already linked to this user: the same body, nothing changed' }],
      idempotent: true,
    })
    .input(LinkWalletBodySchema)
    // The checks of verify first, outside the transaction: a signature may wait on a chain node,
    // and a failed one reads the used nonces (on PGlite's one connection, not from inside it).
    .use(async ({ ctx, input, next }) =>
      next({
        ctx: {
          signed: await checkSignedNonce(
            ctx.services,
            input,
            { purpose: 'link', userId: String(ctx.auth.userId) },
            ctx.services.now(),
          ),
        },
      }),
    )
    // One transaction with Idempotency-Key support (per user): a retry gets the first answer.
    .use(writeTransaction)
    .output(LinkedWalletSchema)
    .mutation(async ({ input, ctx }) => {
      const userId = ctx.auth.userId;
      const { wallet, record } = ctx.signed;
      const at = ctx.services.now();
      const outcome = await linkWallet(ctx.trx, {
        userId,
        wallet: wallet.wallet,
        chain: wallet.chain,
        nonce: input.nonce,
        expiresAt: new Date(record.expiresAt),
        now: at,
      });
      switch (outcome.status) {
        case 'nonce-used':
          throw invalidNonce(NONCE_USED);
        case 'user-not-found':
          throw walletNotFound();
        case 'linked-elsewhere':
          throw walletAlreadyLinked(wallet.wallet);
        case 'already-linked':
          // REST answers 201 (the route's successStatus) unless told otherwise.
          ctx.res.statusCode = 200;
          return outcome.wallet;
        case 'linked':
          return outcome.wallet;
      }
    }),

  list: authedProcedure
    .meta(
      signedInRead({
        path: '/me/wallets',
        tags: ['me'],
        summary: "The signed-in user's wallets",
        description:
          'Every wallet that signs this user in, oldest first. The primary one (`primary: true`, the oldest) is ' +
          "the one User's `wallet` and `chain` name.",
        example: { response: examples.walletList },
      }),
    )
    .input(z.void())
    .output(LinkedWalletListSchema)
    .query(async ({ ctx }) => ({ items: await listWallets(ctx.services.database.db, ctx.auth.userId) })),

  unlink: authedProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/me/wallets/{wallet}',
        tags: ['me'],
        summary: 'Unlink a wallet from the signed-in user',
        description:
          'The wallet stops signing this user in, and the sessions it signed in end (their tokens answer 401 ' +
          '`SESSION_REVOKED` from the next request on, on every server; the token making this request too, if that ' +
          'wallet signed it). Unlinking the primary wallet makes the oldest remaining one primary. The last wallet ' +
          'is 409 `LAST_WALLET`; a wallet not linked to this user is 404 `NOT_FOUND`. An unlinked wallet belongs to ' +
          'nobody: signing in with it creates a new user, and any user may link it.',
        protect: true,
        example: {
          request: { wallet: examples.linkedWallet.wallet },
          response: { wallet: examples.linkedWallet.wallet, unlinked: true },
        },
      },
      errors: ['INVALID_WALLET', 'NOT_FOUND', 'LAST_WALLET', 'WALLET_NOT_FOUND'],
    })
    .input(WalletParamsSchema)
    .output(UnlinkedWalletSchema)
    .mutation(async ({ input, ctx }) => {
      const { wallet } = parseWallet(input.wallet);
      const outcome = await unlinkWallet(ctx.services.database.db, {
        userId: ctx.auth.userId,
        wallet,
        now: ctx.services.now(),
      });
      if (outcome.status === 'not-linked') throw new DomainError('NOT_FOUND', `${wallet} is not linked to you`);
      if (outcome.status === 'last-wallet') throw lastWallet(wallet);
      return { wallet, unlinked: true as const };
    }),
});

export const walletAlreadyLinked = (wallet: string) =>
  new DomainError('WALLET_ALREADY_LINKED', `${wallet} is linked to another user`);

export const lastWallet = (wallet: string) =>
  new DomainError('LAST_WALLET', `${wallet} is your only wallet; link another before unlinking it`);
