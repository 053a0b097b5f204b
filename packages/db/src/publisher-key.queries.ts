/**
 * Signed statements and delegated keys (migration 0021; CONTRACT.md, Version 4, "Publishers and
 * their keys", "Signed statements"). Every accepted statement writes, in the caller's transaction,
 * its row change, one log entry (log.queries.ts), one event (events.queries.ts) and its
 * `signed_statements` row (the first answer, for a byte-identical retry), so all of them commit
 * together or not at all.
 */
import type { EventDraft } from '@signal/core';
import { type Kysely, sql } from 'kysely';
import { appendEvents } from './events.queries.js';
import { appendLogEntry, type LogAcceptance } from './log.queries.js';
import type { Database } from './schema.js';

/** A statement accepted before: its provider, type, first answer and log acceptance. */
export interface SignedStatementRecord {
  providerId: number;
  type: string;
  answer: unknown;
  acceptance: LogAcceptance;
}

/** The statement accepted with this body digest, if any. */
export async function findSignedStatement(
  db: Kysely<Database>,
  digest: string,
): Promise<SignedStatementRecord | undefined> {
  const result = await sql<{
    provider_id: number;
    type: string;
    answer: unknown;
    acceptance_id: number;
    min_index: number;
  }>`
    select provider_id, type, answer, acceptance_id, min_index from signed_statements where digest = ${digest}
  `.execute(db);
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    providerId: Number(row.provider_id),
    type: row.type,
    answer: typeof row.answer === 'string' ? JSON.parse(row.answer) : row.answer,
    acceptance: { id: Number(row.acceptance_id), minIndex: Number(row.min_index) },
  };
}

/**
 * What a signal statement's retry repeats of its first answer (CONTRACT.md: "the first
 * answer's body"): its receipt (the checkpoint and the proof) and the instant it was answered
 * at (its signal's expiry is judged then). Kept in the statement's `signed_statements.answer`.
 */
export interface FirstAnswer {
  receipt: unknown;
  at: string;
}

/**
 * Keeps `first` as the statement's first answer unless one is kept already, and returns the one
 * kept: this one, or the earlier one (a retry that answered first, or a first answer that was
 * never received, whose retry is then the answer the client first sees).
 */
export async function keepFirstAnswer(db: Kysely<Database>, digest: string, first: FirstAnswer): Promise<FirstAnswer> {
  const kept = await sql`
    update signed_statements set answer = answer || jsonb_build_object('first', ${JSON.stringify(first)}::jsonb)
    where digest = ${digest} and jsonb_typeof(answer) = 'object' and not (answer ? 'first')
    returning 1
  `.execute(db);
  if (kept.rows.length > 0) return first;
  // Kept already (by a concurrent answer too: this statement then waited for its row and changed nothing).
  const earlier = await sql<{ first: unknown }>`
    select answer -> 'first' as first from signed_statements where digest = ${digest}
  `.execute(db);
  const value = earlier.rows[0]?.first;
  // None kept, nor keepable (an answer that is no object): this one stands, unkept.
  if (value === null || value === undefined) return first;
  return (typeof value === 'string' ? JSON.parse(value) : value) as FirstAnswer;
}

/**
 * Locks a live (not archived) provider for a statement: FOR UPDATE, which waits for a publisher
 * change of it (those take FOR KEY SHARE) and for another statement of it, so "who may sign now"
 * is read and acted on with nothing changing in between. False when unknown or archived.
 */
export async function lockProviderForStatement(trx: Kysely<Database>, providerId: number): Promise<boolean> {
  const result = await sql`
    select 1 from providers where id = ${providerId} and archived_at is null for update
  `.execute(trx);
  return result.rows.length > 0;
}

export interface SignerRows {
  publishers: { wallet: string; addedAt: Date; removedAt: Date | null }[];
  keys: {
    key: string;
    wallet: string;
    delegatedAt: Date;
    issuedAt: Date;
    expiresAt: Date;
    revokedAt: Date | null;
  }[];
}

/** Every publisher row and delegated key of the provider: the input of "who may sign at t". */
export async function readProviderSigners(db: Kysely<Database>, providerId: number): Promise<SignerRows> {
  const [publishers, keys] = await Promise.all([
    sql<{ wallet: string; added_at: Date; removed_at: Date | null }>`
      select wallet, added_at, removed_at from provider_publishers where provider_id = ${providerId} order by id
    `.execute(db),
    sql<{
      key: string;
      wallet: string;
      delegated_at: Date;
      issued_at: Date;
      expires_at: Date;
      revoked_at: Date | null;
    }>`
      select key, wallet, delegated_at, issued_at, expires_at, revoked_at
      from publisher_keys where provider_id = ${providerId} order by id
    `.execute(db),
  ]);
  const date = (value: Date | string) => new Date(value);
  return {
    publishers: publishers.rows.map((row) => ({
      wallet: row.wallet,
      addedAt: date(row.added_at),
      removedAt: row.removed_at === null ? null : date(row.removed_at),
    })),
    keys: keys.rows.map((row) => ({
      key: row.key,
      wallet: row.wallet,
      delegatedAt: date(row.delegated_at),
      issuedAt: date(row.issued_at),
      expiresAt: date(row.expires_at),
      revokedAt: row.revoked_at === null ? null : date(row.revoked_at),
    })),
  };
}

/** What every accepted statement writes besides its own row: the log entry, the event, the record. */
export interface StatementRecording {
  digest: string;
  providerId: number;
  type: string;
  /** The first answer, without its log index (read back from the log on a retry). */
  answer: unknown;
  receivedAt: Date;
  entry: Uint8Array;
  /** The event, written with the change; none for a signal statement (its event waits for the log index: signal.queries.ts). */
  event?: EventDraft;
}

/** The log entry, the event and the retry record of an accepted statement, in `trx`. */
export async function recordStatement(trx: Kysely<Database>, recording: StatementRecording): Promise<LogAcceptance> {
  const acceptance = await appendLogEntry(trx, recording.entry);
  if (recording.event) await appendEvents(trx, [recording.event]);
  await sql`
    insert into signed_statements (digest, provider_id, type, answer, acceptance_id, min_index, received_at)
    values (${recording.digest}, ${recording.providerId}, ${recording.type}, ${JSON.stringify(recording.answer)}::jsonb,
      ${acceptance.id}, ${acceptance.minIndex}, ${recording.receivedAt})
  `.execute(trx);
  return acceptance;
}

export type DelegateKeyOutcome = { kind: 'delegated'; acceptance: LogAcceptance } | { kind: 'key-used' };

/** Records a `key.delegate` statement in `trx`; a key already delegated for the provider → 'key-used'. */
export async function delegatePublisherKey(
  trx: Kysely<Database>,
  delegation: { key: string; wallet: string; issuedAt: Date; expiresAt: Date },
  recording: StatementRecording,
): Promise<DelegateKeyOutcome> {
  const inserted = await sql<{ id: string }>`
    insert into publisher_keys (provider_id, key, wallet, delegated_at, issued_at, expires_at,
      delegate_acceptance_id, delegate_min_index)
    values (${recording.providerId}, ${delegation.key}, ${delegation.wallet}, ${recording.receivedAt},
      ${delegation.issuedAt}, ${delegation.expiresAt}, 0, 0)
    on conflict (provider_id, key) do nothing
    returning id
  `.execute(trx);
  const row = inserted.rows[0];
  if (!row) return { kind: 'key-used' };
  const acceptance = await recordStatement(trx, recording);
  await sql`
    update publisher_keys set delegate_acceptance_id = ${acceptance.id}, delegate_min_index = ${acceptance.minIndex}
    where id = ${row.id}
  `.execute(trx);
  return { kind: 'delegated', acceptance };
}

/** A delegated key as the routes answer it, with the log indexes of its statements once sequenced. */
export interface PublisherKeyRow {
  key: string;
  providerId: number;
  wallet: string;
  issuedAt: string;
  expiresAt: string;
  revokedAt: string | null;
  logIndex: number | null;
  revokeAcceptance: LogAcceptance | null;
}

interface StoredKey {
  key: string;
  provider_id: number;
  wallet: string;
  issued_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  log_index: number | null;
  revoke_acceptance_id: number | null;
  revoke_min_index: number | null;
}

const iso = (value: Date | string) => new Date(value).toISOString();

const toKey = (row: StoredKey): PublisherKeyRow => ({
  key: row.key,
  providerId: Number(row.provider_id),
  wallet: row.wallet,
  issuedAt: iso(row.issued_at),
  expiresAt: iso(row.expires_at),
  revokedAt: row.revoked_at === null ? null : iso(row.revoked_at),
  logIndex: row.log_index === null ? null : Number(row.log_index),
  revokeAcceptance:
    row.revoke_acceptance_id === null
      ? null
      : { id: Number(row.revoke_acceptance_id), minIndex: Number(row.revoke_min_index) },
});

// The delegation's index: the first entry at or after its acceptance's minIndex that is its own
// (an entry lands a few places after minIndex at most: as many as were pending then).
const KEY_COLUMNS = sql`
  k.key, k.provider_id, k.wallet, k.issued_at, k.expires_at, k.revoked_at, k.revoke_acceptance_id, k.revoke_min_index,
  (select e.idx from log_entries e where e.idx >= k.delegate_min_index and e.accepted_id = k.delegate_acceptance_id
    order by e.idx limit 1) as log_index
`;

/** The provider's delegated key `key`, locked for a revoke in `trx`. */
export async function readPublisherKeyForUpdate(
  trx: Kysely<Database>,
  providerId: number,
  key: string,
): Promise<PublisherKeyRow | undefined> {
  const result = await sql<StoredKey>`
    select ${KEY_COLUMNS} from publisher_keys k where k.provider_id = ${providerId} and k.key = ${key} for update
  `.execute(trx);
  const row = result.rows[0];
  return row ? toKey(row) : undefined;
}

/** Records the first `key.revoke` of a key in `trx`: stamps `revoked_at` at the statement's receipt. */
export async function revokePublisherKey(
  trx: Kysely<Database>,
  key: string,
  recording: StatementRecording,
): Promise<LogAcceptance> {
  const acceptance = await recordStatement(trx, recording);
  await sql`
    update publisher_keys set revoked_at = ${recording.receivedAt}, revoke_acceptance_id = ${acceptance.id},
      revoke_min_index = ${acceptance.minIndex}
    where provider_id = ${recording.providerId} and key = ${key}
  `.execute(trx);
  return acceptance;
}

/** Every key delegated for a live provider, oldest first; null when the provider is unknown or archived. */
export async function listPublisherKeys(db: Kysely<Database>, providerId: number): Promise<PublisherKeyRow[] | null> {
  const provider = await sql`select 1 from providers where id = ${providerId} and archived_at is null`.execute(db);
  if (provider.rows.length === 0) return null;
  const result = await sql<StoredKey>`
    select ${KEY_COLUMNS} from publisher_keys k where k.provider_id = ${providerId} order by k.id
  `.execute(db);
  return result.rows.map(toKey);
}
