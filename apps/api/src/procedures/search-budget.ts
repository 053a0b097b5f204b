/**
 * The database-time budget of name searches the trigram index cannot narrow (CONTRACT.md,
 * Version 4, "Changes to earlier versions"; issue 42): `GET /providers?q=#` reads the whole index
 * or table (≈0.5 s of PostgreSQL at 200k providers), and the read limit alone let one address
 * send 100 a second. So, per client address and per server process:
 *
 * - each such search that reaches the database (a cached answer or a 304 does not) is timed, and
 *   its milliseconds are taken from the address's balance;
 * - the balance refills at SEARCH_DB_MS_PER_SECOND (default 100: a tenth of one core) up to ten
 *   seconds' worth (a burst of 1 s of database time at the default), and a search is admitted
 *   only while it is positive and no other such search of the address is running, so over any
 *   interval T the address's searches hold the database for at most burst + T × rate plus the
 *   one search that was running when the balance ran out;
 * - otherwise 429 RATE_LIMITED with Retry-After: the seconds until the balance is positive again
 *   (1 while the address's other search runs).
 *
 * Searches the index narrows are neither timed nor gated: they keep their speed. Totals stay
 * exact: an admitted search runs as before. Memory: one small entry per address that searched
 * lately; once there are more than MAX_ENTRIES, the entries whose balance is full again (they
 * equal a fresh one) are dropped, so what stays is the addresses still paying back a search.
 */
import { nameIndexCanNarrow } from '@signal/db';
import { rateLimitKey, requestAddress } from '../wire/client-address.js';
import type { Context, Services } from './context.js';
import { rateLimited } from './rate-limit.js';

/** The burst, in seconds of refill: 1,000 ms of database time at the default rate. */
const BURST_SECONDS = 10;
/** Entries kept before the full ones are swept. */
const MAX_ENTRIES = 10_000;

interface Balance {
  /** Milliseconds of database time the address may still spend (negative: owed). */
  ms: number;
  /** When `ms` was last brought up to date (performance.now()). */
  at: number;
  running: boolean;
}

export class SearchBudget {
  private readonly balances = new Map<string, Balance>();
  private readonly burstMs: number;

  /** `msPerSecond` of database time per address; `clock` in milliseconds, monotonic. */
  constructor(
    private readonly msPerSecond: number,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.burstMs = msPerSecond * BURST_SECONDS;
  }

  /** The address's balance, refilled up to now. */
  private current(key: string, now: number): Balance {
    const found = this.balances.get(key);
    if (!found) return { ms: this.burstMs, at: now, running: false };
    found.ms = Math.min(this.burstMs, found.ms + ((now - found.at) * this.msPerSecond) / 1000);
    found.at = now;
    return found;
  }

  /**
   * Admits one search of `key` or throws the 429; the admitted search calls the returned
   * function when its database work ends, which charges the time it took.
   */
  admit(key: string): () => void {
    const now = this.clock();
    const balance = this.current(key, now);
    if (balance.running) throw this.refusal(1, 'another of its searches is still running');
    if (balance.ms <= 0) {
      const seconds = Math.max(1, Math.ceil(-balance.ms / this.msPerSecond));
      throw this.refusal(seconds, 'its database time for such searches is spent');
    }
    if (!this.balances.has(key)) {
      if (this.balances.size >= MAX_ENTRIES) this.sweep(now);
      this.balances.set(key, balance);
    }
    balance.running = true;
    return () => {
      const end = this.clock();
      const settled = this.current(key, end);
      settled.ms -= end - now;
      settled.running = false;
    };
  }

  /** Drops the entries that equal a fresh one (full, idle). */
  private sweep(now: number): void {
    for (const [key, balance] of this.balances) {
      if (!balance.running && this.current(key, now).ms >= this.burstMs) this.balances.delete(key);
    }
  }

  private refusal(seconds: number, why: string) {
    return rateLimited(
      `Too many searches that the name index cannot narrow from this address (${why}: at most ` +
        `${this.msPerSecond} ms of database time a second; a search with a word of three letters or digits is not limited)`,
      seconds,
      { name: 'search', limit: this.msPerSecond },
      1000,
    );
  }

  /** Entries held (for the tests of its memory bound). */
  get size(): number {
    return this.balances.size;
  }
}

const budgets = new WeakMap<Services, SearchBudget>();

/**
 * Runs `read` (the listing's database work) for a search `q`: at once when there is no `q`, the
 * index narrows it or the budget is off; else admitted by the address's budget and charged the
 * time it took, failure or not.
 */
export async function withSearchBudget<T>(
  ctx: Pick<Context, 'services' | 'req'>,
  q: string | undefined,
  read: () => Promise<T>,
): Promise<T> {
  const rate = ctx.services.config.searchDbMsPerSecond;
  if (q === undefined || rate === 0 || nameIndexCanNarrow(q)) return read();
  let budget = budgets.get(ctx.services);
  if (!budget) {
    budget = new SearchBudget(rate);
    budgets.set(ctx.services, budget);
  }
  const done = budget.admit(rateLimitKey(requestAddress(ctx)));
  try {
    return await read();
  } finally {
    done();
  }
}
