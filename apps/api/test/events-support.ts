/** What the event tests share: the whole feed as a consumer reads it, and a bounded wait. */
import { call } from './harness.js';

export interface WireEvent {
  id: string;
  type: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

/** Every event of the feed from its start, in feed order (GET /events, pages of 1,000). */
export async function readWholeFeed(api: { url: string }, token: string): Promise<WireEvent[]> {
  const items: WireEvent[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await call(api, 'GET', `/events?limit=1000${cursor ? `&after=${cursor}` : ''}`, { token });
    items.push(...page.body.items);
    if (page.body.nextCursor === cursor) return items;
    cursor = page.body.nextCursor;
  }
}

/** Waits until `check` holds, checking every 50 ms, `attempts` times at most; asserts no timing. */
export async function until(check: () => boolean | Promise<boolean>, what: string, attempts = 400): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}
