/**
 * Publisher wallets of a provider (migration 0017b; CONTRACT.md, Version 4, "Publishers and their
 * keys"). Each effective add or remove, in the caller's transaction, writes its row change, one
 * `publisher.*` log entry (log.queries.ts) and one `publisher.*` event (events.queries.ts), so
 * the three commit together or not at all; a repeat writes nothing.
 */
import type { Chain } from '@signal/core';
import { type Kysely, sql } from 'kysely';
import { appendEvents } from './events.queries.js';
import { appendLogEntry, checkLogEntry, type LogAcceptance } from './log.queries.js';
import type { Database } from './schema.js';

export interface PublisherRow {
  providerId: number;
  wallet: string;
  chain: Chain;
  addedAt: string;
  removedAt: string | null;
}

interface StoredPublisher {
  provider_id: number;
  wallet: string;
  chain: Chain;
  added_at: Date;
  removed_at: Date | null;
}

const toPublisher = (row: StoredPublisher): PublisherRow => ({
  providerId: Number(row.provider_id),
  wallet: row.wallet,
  chain: row.chain,
  addedAt: new Date(row.added_at).toISOString(),
  removedAt: row.removed_at === null ? null : new Date(row.removed_at).toISOString(),
});

/**
 * The log entry of a publisher change (CONTRACT.md, "The log"): RFC 8785 canonical JSON, keys
 * sorted (written in that order here; the values are strings and integers, which JSON.stringify
 * writes as RFC 8785 does).
 */
export function publisherLogEntry(change: {
  type: 'publisher.added' | 'publisher.removed';
  at: string;
  providerId: number;
  wallet: string;
}): Uint8Array {
  const entry = { at: change.at, provider: change.providerId, type: change.type, v: 1, wallet: change.wallet };
  return new TextEncoder().encode(JSON.stringify(entry));
}

/** The provider exists (archived or not); locks it against a concurrent change of it. */
async function providerExists(trx: Kysely<Database>, providerId: number): Promise<boolean> {
  const result = await sql`select 1 from providers where id = ${providerId} for key share`.execute(trx);
  return result.rows.length > 0;
}

export type AddPublisherOutcome =
  | { kind: 'added'; publisher: PublisherRow; acceptance: LogAcceptance }
  | { kind: 'already'; publisher: PublisherRow }
  | { kind: 'provider-not-found' };

/**
 * Makes `wallet` a publisher of the provider, in `trx`; a current publisher already → 'already'.
 * One statement in the common case (the log's bench, issue 38: each statement is a round trip
 * and most of an add's CPU): it locks the provider, inserts the row and, only if it did, the log
 * entry and the event. The entry's fields are the row's (`at` is `now`, stored to the microsecond
 * and so read back as the same millisecond), so it is made before the statement.
 */
export async function addPublisher(
  trx: Kysely<Database>,
  change: { providerId: number; wallet: string; chain: Chain; now: Date },
): Promise<AddPublisherOutcome> {
  const entry = publisherLogEntry({
    type: 'publisher.added',
    at: change.now.toISOString(),
    providerId: change.providerId,
    wallet: change.wallet,
  });
  checkLogEntry(entry);
  // Concurrent adds meet at the unique index of current rows: one inserts, the others wait for it
  // and then find its row (below).
  const result = await sql<StoredPublisher & { found: boolean; log_id: number | null; min_index: number | null }>`
    with provider as (
      select id from providers where id = ${change.providerId} for key share
    ), inserted as (
      insert into provider_publishers (provider_id, wallet, chain, added_at)
      select id, ${change.wallet}::text, ${change.chain}::text, ${change.now}::timestamptz from provider
      on conflict (provider_id, wallet) where removed_at is null do nothing
      returning provider_id, wallet, chain, added_at, removed_at
    ), logged as (
      insert into log_pending (entry) select decode(${Buffer.from(entry).toString('hex')}, 'hex') from inserted
      returning id
    ), announced as (
      insert into events (type, data)
      select 'publisher.added', jsonb_build_object('wallet', wallet, 'providerId', provider_id) from inserted
    )
    select exists (select 1 from provider) as found, i.provider_id, i.wallet, i.chain, i.added_at, i.removed_at,
      l.id as log_id, (select size from log_state) as min_index
    from (select 1) as one left join inserted i on true left join logged l on true
  `.execute(trx);
  const row = result.rows[0]!;
  if (!row.found) return { kind: 'provider-not-found' };
  if (row.log_id === null || row.provider_id === null) {
    const current = await sql<StoredPublisher>`
      select provider_id, wallet, chain, added_at, removed_at from provider_publishers
      where provider_id = ${change.providerId} and wallet = ${change.wallet} and removed_at is null
    `.execute(trx);
    return { kind: 'already', publisher: toPublisher(current.rows[0]!) };
  }
  return {
    kind: 'added',
    publisher: toPublisher(row),
    acceptance: { id: Number(row.log_id), minIndex: Number(row.min_index) },
  };
}

export type RemovePublisherOutcome =
  | { kind: 'removed'; acceptance: LogAcceptance }
  | { kind: 'already' }
  | { kind: 'never' }
  | { kind: 'provider-not-found' };

/**
 * Removes the current publisher `wallet` of the provider, in `trx` (see the outcomes). The time
 * of the removal is read once the provider is locked, so that it orders with the provider's
 * statements as its entry does: a statement the wallet signed either committed before it, and
 * was received earlier, or waits for it and is refused. Read before the lock (as it once was),
 * it could precede a statement accepted while the removal waited, whose signer the log then
 * shows removed at its `receivedAt` (a black-box audit found 15 in 40 races). And strictly
 * later: a statement that committed just before the lock may have been received in the same
 * millisecond, so the removal is stamped a millisecond past the lock and waits for the clock
 * to pass it (a statement after the removal is received at or after it, and refused).
 */
export async function removePublisher(
  trx: Kysely<Database>,
  change: { providerId: number; wallet: string; now: () => Date },
): Promise<RemovePublisherOutcome> {
  if (!(await providerExists(trx, change.providerId))) return { kind: 'provider-not-found' };
  const locked = change.now().getTime();
  await new Promise((resolve) => setTimeout(resolve, 2));
  const removedAt = new Date(Math.max(change.now().getTime(), locked + 1));
  const removed = await sql<{ removed_at: Date }>`
    update provider_publishers set removed_at = ${removedAt}
    where provider_id = ${change.providerId} and wallet = ${change.wallet} and removed_at is null
    returning removed_at
  `.execute(trx);
  const row = removed.rows[0];
  if (!row) {
    const ever = await sql`
      select 1 from provider_publishers where provider_id = ${change.providerId} and wallet = ${change.wallet} limit 1
    `.execute(trx);
    return { kind: ever.rows.length > 0 ? 'already' : 'never' };
  }
  const at = new Date(row.removed_at).toISOString();
  const acceptance = await appendLogEntry(
    trx,
    publisherLogEntry({ type: 'publisher.removed', at, providerId: change.providerId, wallet: change.wallet }),
  );
  await appendEvents(trx, [
    { type: 'publisher.removed', data: { wallet: change.wallet, providerId: change.providerId } },
  ]);
  return { kind: 'removed', acceptance };
}

/**
 * Every publisher row of a live provider, oldest first (removed ones included); null when the
 * provider is unknown or archived (a public read, as the provider's own).
 */
export async function listPublishers(db: Kysely<Database>, providerId: number): Promise<PublisherRow[] | null> {
  const result = await sql<StoredPublisher>`
    select p.provider_id, p.wallet, p.chain, p.added_at, p.removed_at
    from providers v left join provider_publishers p on p.provider_id = v.id
    where v.id = ${providerId} and v.archived_at is null
    order by p.id
  `.execute(db);
  if (result.rows.length === 0) return null;
  return result.rows.filter((row) => row.wallet !== null).map(toPublisher);
}
