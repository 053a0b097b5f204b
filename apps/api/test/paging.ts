/**
 * Walking the catalogue the two ways a client can: page by page, and by cursor. Shared by the
 * cursor tests (on one database) and the replica tests (public walks against the primary's).
 */
import { sql } from 'kysely';
import { expect } from 'vitest';
import { call, type TestApi } from './harness.js';

export const SORTS = ['followerCount', 'createdAt', 'name', 'id'] as const;
export const ORDERS = ['asc', 'desc'] as const;

/** Providers that tie with each other on every sort key but id. */
export async function addTies(api: TestApi, count = 5): Promise<void> {
  await sql`
    insert into providers (name, follower_count, created_at)
    select 'Tied Name', 0, timestamptz '2026-01-02 03:04:05.123456+00' from generate_series(1, ${count})
  `.execute(api.db.db);
}

export interface PageItem {
  id: number;
  followerCount: number;
}

export interface Page<T = PageItem> {
  items: T[];
  page: number | null;
  nextCursor: string | null;
  total: number;
  totalPages: number;
  limit: number;
}

/** Each of `expected` stands exactly once (by id) in what a walk saw; `label` names it in a failure. */
export function expectEachOnce<T extends { id: number | string }>(
  seen: readonly { id: number | string }[],
  expected: readonly T[],
  label: (item: T) => string,
): void {
  for (const item of expected)
    expect(
      seen.filter((s) => s.id === item.id),
      label(item),
    ).toHaveLength(1);
}

/** Every item of `GET /providers?<query>` by page number, up to the first empty page. */
export async function walkByPage<T = PageItem>(
  api: { url: string },
  query: string,
  limit: number,
  token?: string,
): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page += 1) {
    const reply = await call(api, 'GET', `/providers?${query}&limit=${limit}&page=${page}`, { token });
    expect(reply.status).toBe(200);
    if (reply.body.items.length === 0) return items;
    items.push(...reply.body.items);
  }
}

/** Walks by cursor from the first page; `between` runs before each further page. */
export async function walkByCursor<T = PageItem>(
  get: (cursor: string | null) => Promise<Page<T>>,
  between?: () => Promise<void>,
): Promise<T[][]> {
  const pages: T[][] = [];
  let cursor: string | null = null;
  for (;;) {
    const page: Page<T> = await get(cursor);
    if (cursor === null) expect(page.page).toBe(1);
    else expect(page.page).toBeNull();
    expect(page.total).toBeGreaterThan(0);
    expect(page.totalPages).toBe(Math.ceil(page.total / page.limit));
    pages.push(page.items);
    if (page.nextCursor === null) return pages;
    expect(page.items).toHaveLength(page.limit);
    cursor = page.nextCursor;
    await between?.();
  }
}
