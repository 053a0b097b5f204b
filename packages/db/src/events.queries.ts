/**
 * The outbox (migration 0012): events written in the transaction of the change they announce.
 *
 * Writers call `appendEvents` with the transaction that makes the change (never with the
 * handle's own `db` on its own: the event must commit or roll back with its change). A hot
 * single statement may instead insert into `events` from one of its CTEs, as sign-in does.
 *
 * Ordering: an event's feed position is its transaction's id (then its order within the
 * transaction). A transaction gets its id at its first write, so two transactions that change
 * the same row get ids in the order they commit when that row's write (or `select … for update`
 * of it) is the transaction's first write: the second one takes its id while waiting for the
 * first one's lock, after the first one took its own. Make the changed entity's row the first
 * thing a transaction that announces it writes or locks.
 */
import type { EventDraft } from '@signal/core';
import type { Kysely } from 'kysely';
import { runCompiled } from './compiled-query.js';
import type { Database } from './schema.js';

/**
 * Writes `events` in the transaction `trx`, in this order. Nothing for an empty list (a change
 * that changed nothing announces nothing).
 */
export async function appendEvents(trx: Kysely<Database>, events: readonly EventDraft[]): Promise<void> {
  if (events.length === 0) return;
  // One compiled shape per list length: a change writes one or a few events.
  const values = events.flatMap((event) => [event.type, JSON.stringify(event.data)]);
  await runCompiled(trx, `appendEvents:${events.length}`, values, (...list) =>
    trx
      .insertInto('events')
      .values(events.map((_, i) => ({ type: list[2 * i] as string, data: list[2 * i + 1] as string }))),
  );
}
