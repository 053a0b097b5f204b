/**
 * The retry schedule of webhook deliveries (docs/events.md, "Retries"): the delay after each
 * failed attempt, so 1 + its length attempts in all. The default is the one Standard Webhooks
 * suggests: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (8 attempts over about 28 hours).
 */

export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';
export const DEFAULT_DISABLE_AFTER = '5d';

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^([0-9]{1,9})(ms|s|m|h|d)$/;

/** `500ms`, `5s`, `5m`, `2h`, `5d` in milliseconds; undefined for anything else. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** `1s,2s,5s` → [1000, 2000, 5000]; undefined when any entry is not a duration. */
export function parseRetrySchedule(text: string): number[] | undefined {
  const delays = text.split(',').map(parseDuration);
  return delays.every((delay) => delay !== undefined) ? (delays as number[]) : undefined;
}

/** A cap on what Retry-After may ask for: a day, so a wild header cannot park a delivery. */
export const MAX_RETRY_AFTER_MS = 86_400_000;

/**
 * The delay before the next attempt after `attemptsMade` failed ones, or undefined when the
 * schedule is spent (the delivery fails). A `Retry-After` asking for longer is honoured (up to a
 * day); one asking for less does not bring the retry forward.
 */
export function nextRetryDelay(
  schedule: readonly number[],
  attemptsMade: number,
  retryAfterMs?: number,
): number | undefined {
  const delay = schedule[attemptsMade - 1];
  if (delay === undefined) return undefined;
  return retryAfterMs === undefined ? delay : Math.max(delay, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}

/** `Retry-After`: delay-seconds or an HTTP date (RFC 9110 §10.2.3), in ms from `now`. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^[0-9]{1,10}$/.test(text)) return Number(text) * 1_000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
