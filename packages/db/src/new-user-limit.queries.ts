import type { Kysely } from 'kysely';
import { runCompiled } from './compiled-query.js';
import { isUniqueViolation } from './errors.js';
import { hitRateLimit } from './rate-limit.queries.js';
import type { Database } from './schema.js';

/** Buckets of the new-account limit in rate_limit_hits; their windows are hours, not minutes. */
export const NEW_USER_BUCKET_PREFIX = 'new-user:';

/** One budget of new accounts: its bucket (an address, a /64, a /56) and accounts per window. */
export interface NewUserBudget {
  bucket: string;
  limit: number;
}

export type NewUserAdmission<T> =
  | { admitted: true; result: T }
  | { admitted: false; budget: NewUserBudget; resetAt: Date };

/**
 * True when the wallet is linked to a user (its first wallet or one linked later: user_wallets),
 * so signing in with it creates no account: a returning wallet is never limited.
 */
async function isKnownWallet(db: Kysely<Database>, wallet: string): Promise<boolean> {
  const rows = await runCompiled(db, 'isKnownWallet', [wallet], (value) =>
    db.selectFrom('user_wallets').select('user_id').where('wallet', '=', value),
  );
  return rows.length > 0;
}

class OverBudget extends Error {
  constructor(
    readonly budget: NewUserBudget,
    readonly resetAt: Date,
  ) {
    super('new-user budget spent');
  }
}

/**
 * Runs `login` (the sign-in statement) for a wallet, counting it against every budget when the
 * wallet is new. The counts and the login are one transaction: each count is an upsert whose
 * row lock holds until the commit, so concurrent new accounts in one bucket, on any number of
 * servers, are counted one after another and the budget is never overshot; past a budget the
 * transaction rolls back and nothing is written (the nonce stays unused, and the refused
 * attempt is not counted). Budgets are taken in the order given, the same for every caller,
 * so two sign-ins that share buckets never wait on each other in a cycle.
 */
export async function admitNewUser<T>(
  db: Kysely<Database>,
  input: { wallet: string; budgets: NewUserBudget[]; now: Date; windowMs: number },
  login: (db: Kysely<Database>) => Promise<T>,
): Promise<NewUserAdmission<T>> {
  if (input.budgets.length === 0 || (await isKnownWallet(db, input.wallet))) {
    return { admitted: true, result: await login(db) };
  }
  try {
    return await db.transaction().execute(async (trx) => {
      for (const budget of input.budgets) {
        const hit = await hitRateLimit(trx, {
          bucket: `${NEW_USER_BUCKET_PREFIX}${budget.bucket}`,
          now: input.now,
          windowMs: input.windowMs,
        });
        if (hit.hits > budget.limit) throw new OverBudget(budget, hit.resetAt);
      }
      return { admitted: true as const, result: await login(trx) };
    });
  } catch (error) {
    if (error instanceof OverBudget) return { admitted: false, budget: error.budget, resetAt: error.resetAt };
    // The wallet was linked to a user while this transaction ran (its first sign-in raced a link
    // on another device). The sign-in statement's own retry cannot run in an aborted
    // transaction, so it runs again here: the wallet is known now, and creates no account.
    if (isUniqueViolation(error, 'user_wallets_pkey')) return { admitted: true, result: await login(db) };
    throw error;
  }
}
