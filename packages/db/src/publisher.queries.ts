/**
 * Publisher wallets of a provider (migration 0017b; CONTRACT.md, Version 4, "Publishers and their
 * keys"). Each effective add or remove, in the caller's transaction, writes its row change, one
 * `publisher.*` log entry (log.queries.ts) and one `publisher.*` event (events.queries.ts), so
 * the three commit together or not at all; a repeat writes nothing.
 */
import type { Chain } from '@signal/core';
import { type Kysely, sql } from 'kysely';
import { appendEvents } from './events.queries.js';
import { appendLogEntry, type LogAcceptance } from './log.queries.js';
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

/** Makes `wallet` a publisher of the provider, in `trx`; a current publisher already → 'already'. */
export async function addPublisher(
  trx: Kysely<Database>,
  change: { providerId: number; wallet: string; chain: Chain; now: Date },
): Promise<AddPublisherOutcome> {
  if (!(await providerExists(trx, change.providerId))) return { kind: 'provider-not-found' };
  // Concurrent adds meet at the unique index of current rows: one inserts, the others wait for it
  // and then find its row.
  const inserted = await sql<StoredPublisher>`
    insert into provider_publishers (provider_id, wallet, chain, added_at)
    values (${change.providerId}, ${change.wallet}, ${change.chain}, ${change.now})
    on conflict (provider_id, wallet) where removed_at is null do nothing
    returning provider_id, wallet, chain, added_at, removed_at
  `.execute(trx);
  const row = inserted.rows[0];
  if (!row) {
    const current = await sql<StoredPublisher>`
      select provider_id, wallet, chain, added_at, removed_at from provider_publishers
      where provider_id = ${change.providerId} and wallet = ${change.wallet} and removed_at is null
    `.execute(trx);
    return { kind: 'already', publisher: toPublisher(current.rows[0]!) };
  }
  const publisher = toPublisher(row);
  const acceptance = await appendLogEntry(
    trx,
    publisherLogEntry({
      type: 'publisher.added',
      at: publisher.addedAt,
      providerId: publisher.providerId,
      wallet: publisher.wallet,
    }),
  );
  await appendEvents(trx, [
    { type: 'publisher.added', data: { wallet: publisher.wallet, providerId: publisher.providerId } },
  ]);
  return { kind: 'added', publisher, acceptance };
}

export type RemovePublisherOutcome =
  | { kind: 'removed'; acceptance: LogAcceptance }
  | { kind: 'already' }
  | { kind: 'never' }
  | { kind: 'provider-not-found' };

/** Removes the current publisher `wallet` of the provider, in `trx` (see the outcomes). */
export async function removePublisher(
  trx: Kysely<Database>,
  change: { providerId: number; wallet: string; now: Date },
): Promise<RemovePublisherOutcome> {
  if (!(await providerExists(trx, change.providerId))) return { kind: 'provider-not-found' };
  const removed = await sql<{ removed_at: Date }>`
    update provider_publishers set removed_at = ${change.now}
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
