/**
 * Load with bookkeeping, for fault tests and the soak: follow storms whose every acknowledged
 * answer is recorded, sign-in storms, and the invariants checked afterwards against the
 * database. Traffic goes to the loopback servers under test only, and every loop is bounded.
 */
import type { Database } from '@signal/db';
import { type Kysely, sql } from 'kysely';
import { call, evmWallet, signIn, solanaWallet, type TestWallet } from './harness.js';

export interface Target {
  url: string;
}

export interface Session {
  token: string;
  userId: number;
}

/**
 * One user's part of a follow storm. Follows and unfollows go to disjoint providers (`follow`
 * ones start unfollowed, `unfollow` ones start followed), so nothing can undo an acknowledged
 * change and "acknowledged ⇒ in the database" holds exactly, whatever failed around it.
 */
export interface StormPlan extends Session {
  follow: number[];
  unfollow: number[];
}

export interface StormResult {
  requests: number;
  ok: number;
  /** user:provider pairs whose follow was answered 200 at least once. */
  followed: Set<string>;
  /** user:provider pairs whose unfollow was answered 200 at least once. */
  unfollowed: Set<string>;
  /** Answers other than 200, by status (0: no HTTP answer, e.g. the server was killed). */
  failures: Map<number, number>;
  /** Codes of the non-200 answers. */
  codes: Map<string, number>;
  /** Slowest answer of any kind, in ms. */
  slowestMs: number;
}

export const pairKey = (userId: number, providerId: number) => `${userId}:${providerId}`;

const bump = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1);

/**
 * Every plan runs as one worker sending its follows and unfollows one after another (cycling,
 * so repeats test idempotence) until `stop()` says so or `maxRequests` per worker are sent.
 * `target(i)` picks the server of the i-th request, so a storm can span several servers.
 */
export async function followStorm(
  plans: StormPlan[],
  options: { target: (i: number) => Target; stop: () => boolean; maxRequests?: number; timeoutMs?: number },
): Promise<StormResult> {
  const result: StormResult = {
    requests: 0,
    ok: 0,
    followed: new Set(),
    unfollowed: new Set(),
    failures: new Map(),
    codes: new Map(),
    slowestMs: 0,
  };
  const maxRequests = options.maxRequests ?? 10_000;
  let sent = 0;
  await Promise.all(
    plans.map(async (plan) => {
      const ops = interleave<['POST' | 'DELETE', number]>(
        plan.follow.map((id) => ['POST', id]),
        plan.unfollow.map((id) => ['DELETE', id]),
      );
      for (let i = 0; i < maxRequests && ops.length > 0 && !options.stop(); i++) {
        const [method, providerId] = ops[i % ops.length]!;
        const started = performance.now();
        const status = await send(options.target(sent++), method, `/providers/${providerId}/follow`, {
          token: plan.token,
          timeoutMs: options.timeoutMs ?? 15_000,
        });
        result.slowestMs = Math.max(result.slowestMs, performance.now() - started);
        result.requests++;
        if (status.status === 200) {
          result.ok++;
          (method === 'POST' ? result.followed : result.unfollowed).add(pairKey(plan.userId, providerId));
        } else {
          bump(result.failures, status.status);
          if (status.code) bump(result.codes, status.code);
        }
      }
    }),
  );
  return result;
}

function interleave<T>(a: T[], b: T[]): T[] {
  const out: T[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (i < a.length) out.push(a[i]!);
    if (i < b.length) out.push(b[i]!);
  }
  return out;
}

/** One request that never throws: status 0 when there was no HTTP answer. */
export async function send(
  target: Target,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; timeoutMs?: number; headers?: Record<string, string> } = {},
): Promise<{ status: number; code?: string; body?: any }> {
  try {
    const reply = await call(target, method, path, {
      ...(options.token ? { token: options.token } : {}),
      ...(options.body === undefined ? {} : { body: options.body }),
      headers: options.headers ?? {},
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
    });
    return { status: reply.status, code: reply.body?.code, body: reply.body };
  } catch {
    return { status: 0 };
  }
}

/**
 * Plans for `users` sessions over `providerIds`: each user follows the first half of a
 * rotation of the providers and starts out following the second half (done here, before the
 * storm), which the storm then unfollows.
 */
export async function preparePlans(target: Target, sessions: Session[], providerIds: number[]): Promise<StormPlan[]> {
  const plans: StormPlan[] = [];
  for (const [u, session] of sessions.entries()) {
    const rotated = [...providerIds.slice(u % providerIds.length), ...providerIds.slice(0, u % providerIds.length)];
    const half = Math.ceil(rotated.length / 2);
    const plan = { ...session, follow: rotated.slice(0, half), unfollow: rotated.slice(half) };
    for (const id of plan.unfollow) {
      const reply = await call(target, 'POST', `/providers/${id}/follow`, { token: session.token });
      if (reply.status !== 200) throw new Error(`setup follow failed: ${reply.status}`);
    }
    plans.push(plan);
  }
  return plans;
}

/** Signs `count` fresh wallets in (both families), in parallel batches. */
export async function signInMany(target: Target, count: number): Promise<Session[]> {
  const sessions: Session[] = [];
  for (let i = 0; i < count; i += 10) {
    const batch = Array.from({ length: Math.min(10, count - i) }, (_, j) =>
      signIn(target, (i + j) % 2 === 0 ? evmWallet() : solanaWallet()),
    );
    for (const session of await Promise.all(batch)) sessions.push({ token: session.token, userId: session.user.id });
  }
  return sessions;
}

export interface FollowInvariants {
  /** Providers whose follower_count differs from their follow rows. */
  countMismatches: { id: number; followerCount: number; rows: number }[];
  /** Acknowledged follows with no row. */
  lostFollows: string[];
  /** Acknowledged unfollows whose row is still there. */
  resurrected: string[];
  /** Providers whose followerCount, as the API shows it, differs from their rows. */
  apiMismatches: { id: number; shown: number; rows: number }[];
  followRows: number;
}

/** What the database holds against what the storm was told. */
export async function checkFollowInvariants(
  db: Kysely<Database>,
  storm?: Pick<StormResult, 'followed' | 'unfollowed'>,
  /** Also ask this server for these providers, and compare its followerCount with the rows. */
  view?: { target: Target; providerIds: number[] },
): Promise<FollowInvariants> {
  const mismatches = await sql<{ id: number; follower_count: number; rows: number }>`
    select p.id, p.follower_count, coalesce(f.n, 0)::int as rows
    from providers p left join (select provider_id, count(*) as n from follows group by provider_id) f
      on f.provider_id = p.id
    where p.follower_count <> coalesce(f.n, 0)
  `.execute(db);
  const rows = await db.selectFrom('follows').select(['user_id', 'provider_id']).execute();
  const present = new Set(rows.map((row) => pairKey(row.user_id, row.provider_id)));
  const apiMismatches = [];
  for (const id of view?.providerIds ?? []) {
    const expected = rows.filter((row) => row.provider_id === id).length;
    const shown = (await call(view!.target, 'GET', `/providers/${id}`)).body?.followerCount;
    if (shown !== expected) apiMismatches.push({ id, shown, rows: expected });
  }
  return {
    countMismatches: mismatches.rows.map((row) => ({ id: row.id, followerCount: row.follower_count, rows: row.rows })),
    lostFollows: [...(storm?.followed ?? [])].filter((pair) => !present.has(pair)),
    resurrected: [...(storm?.unfollowed ?? [])].filter((pair) => present.has(pair)),
    apiMismatches,
    followRows: rows.length,
  };
}

export interface LoginStormResult {
  attempts: number;
  tokens: { token: string; nonce: string; wallet: string; userId: number }[];
  /** Nonces answered 200 more than once (must stay empty). */
  doubleSpent: string[];
  failures: Map<number, number>;
}

/**
 * Sign-ins until `stop()`: each worker takes a wallet (a few wallets are shared, so users
 * log in again and race), gets a nonce and sends its verify `copies` times at once: at most
 * one of the copies may get a token.
 */
export async function loginStorm(options: {
  target: (i: number) => Target;
  workers: number;
  stop: () => boolean;
  maxPerWorker?: number;
  copies?: number;
  wallets?: TestWallet[];
}): Promise<LoginStormResult> {
  const result: LoginStormResult = { attempts: 0, tokens: [], doubleSpent: [], failures: new Map() };
  const shared = options.wallets ?? [evmWallet(), solanaWallet(), evmWallet(), solanaWallet()];
  let sent = 0;
  await Promise.all(
    Array.from({ length: options.workers }, async (_, w) => {
      for (let i = 0; i < (options.maxPerWorker ?? 1_000) && !options.stop(); i++) {
        const wallet =
          i % 3 === 0 ? shared[(w + i) % shared.length]! : (w + i) % 2 === 0 ? evmWallet() : solanaWallet();
        result.attempts++;
        const nonce = await send(options.target(sent++), 'GET', `/auth/nonce?wallet=${wallet.address}`);
        if (nonce.status !== 200) {
          bump(result.failures, nonce.status);
          continue;
        }
        const body = {
          wallet: wallet.address,
          nonce: nonce.body.nonce,
          signature: await wallet.sign(nonce.body.message),
        };
        const replies = await Promise.all(
          Array.from({ length: options.copies ?? 2 }, () =>
            send(options.target(sent++), 'POST', '/auth/verify', { body }),
          ),
        );
        const won = replies.filter((reply) => reply.status === 200);
        for (const reply of replies) if (reply.status !== 200) bump(result.failures, reply.status);
        if (won.length > 1) result.doubleSpent.push(nonce.body.nonce);
        for (const reply of won) {
          result.tokens.push({
            token: reply.body.token,
            nonce: nonce.body.nonce,
            wallet: reply.body.user.wallet,
            userId: reply.body.user.id,
          });
        }
      }
    }),
  );
  return result;
}

/** Login invariants in the database: one user per wallet, every won nonce used, jti unique. */
export async function checkLoginInvariants(db: Kysely<Database>, storm: LoginStormResult) {
  const duplicates = await sql<{ wallet: string }>`
    select wallet from users group by wallet having count(*) > 1
  `.execute(db);
  const won = storm.tokens.map((t) => t.nonce);
  const used =
    won.length === 0
      ? []
      : await db.selectFrom('used_nonces').select(['nonce', 'used_at']).where('nonce', 'in', won).execute();
  const unusedButWon = won.filter((nonce) => !used.some((row) => row.nonce === nonce && row.used_at !== null));
  const jtis = storm.tokens.map((t) => JSON.parse(Buffer.from(t.token.split('.')[1]!, 'base64url').toString()).jti);
  const users = await db.selectFrom('users').select(['id', 'wallet']).execute();
  const userOf = new Map(users.map((u) => [u.wallet, u.id]));
  return {
    duplicateWallets: duplicates.rows.map((row) => row.wallet),
    unusedButWon,
    duplicateJtis: jtis.length - new Set(jtis).size,
    /** Tokens whose user is not the wallet's one user. */
    wrongUser: storm.tokens.filter((t) => userOf.get(t.wallet) !== t.userId).length,
  };
}
