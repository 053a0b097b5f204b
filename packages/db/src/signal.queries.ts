/**
 * Signals (migration 0019; CONTRACT.md, Version 4, "Signals"; docs/signals.md).
 *
 * Writes: a statement route records, in its transaction with the provider locked, the statement
 * (`signal_statements`), the signal's write-side state (`signals`), its log entry and its retry
 * record (publisher-key.queries.ts's `recordStatement`), all or nothing. No event yet: its
 * `data.logIndex` is the entry's place in the tree, which only the sequencer knows. So the log's
 * sequencer calls `placeSignalStatements` in the transaction that puts entries into the tree: it
 * stamps each signal statement's `log_index` (and the open's on its signal) and writes its
 * event, exactly once, in log order (docs/events.md).
 *
 * Reads (signal-read.queries.ts) show what the tree holds: a signal once its open is in the
 * tree, each statement once it is.
 */

import type { SignalStatementType } from '@signal/core/statements';
import { type Kysely, sql } from 'kysely';
import type { LogAcceptance } from './log.queries.js';
import { recordStatement, type StatementRecording } from './publisher-key.queries.js';
import type { Database } from './schema.js';

/** The write-side state of a signal, read under the provider's lock. */
export interface SignalState {
  status: 'open' | 'closed' | 'cancelled';
  openPct: string;
  expiresAt: Date | null;
}

/** A signal's state for an update in `trx` (the provider locked); undefined when it has no such signal. */
export async function readSignalState(
  trx: Kysely<Database>,
  providerId: number,
  signalId: string,
): Promise<SignalState | undefined> {
  const result = await sql<{ status: SignalState['status']; open_pct: string; expires_at: Date | null }>`
    select status, open_pct, expires_at from signals where provider_id = ${providerId} and id = ${signalId}
  `.execute(trx);
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    status: row.status,
    openPct: row.open_pct,
    expiresAt: row.expires_at === null ? null : new Date(row.expires_at),
  };
}

/** Whether a signal statement of the provider already has this id (opens and updates share them). */
export async function signalStatementIdUsed(trx: Kysely<Database>, providerId: number, id: string): Promise<boolean> {
  const result = await sql`select 1 from signal_statements where provider_id = ${providerId} and id = ${id}`.execute(
    trx,
  );
  return result.rows.length > 0;
}

/** The provider's reveal delay now (read under its lock: what a new signal's `revealAt` is fixed with). */
export async function readRevealDelaySeconds(trx: Kysely<Database>, providerId: number): Promise<number> {
  const result = await sql<{ delay: number }>`
    select reveal_delay_seconds as delay from providers where id = ${providerId}
  `.execute(trx);
  return Number(result.rows[0]?.delay ?? 0);
}

export interface SignalStatementDraft {
  providerId: number;
  /** The statement's own id. */
  id: string;
  signalId: string;
  type: SignalStatementType;
  statement: string;
  signer: string;
  signature: string;
  commitment: string;
}

/** What the statement does to its signal: a new one (an open), or its new state (the others). */
export type SignalChange =
  | { kind: 'open'; publishedAt: Date; revealAt: Date; expiresAt: Date | null }
  | { kind: 'change'; status?: SignalState['status']; openPct?: string };

/** Records an accepted signal statement in `trx` (see the file's comment). */
export async function recordSignalStatement(
  trx: Kysely<Database>,
  draft: SignalStatementDraft,
  change: SignalChange,
  recording: Omit<StatementRecording, 'event'>,
): Promise<LogAcceptance> {
  const acceptance = await recordStatement(trx, recording);
  if (change.kind === 'open') {
    await sql`
      insert into signals (provider_id, id, published_at, reveal_at, expires_at, open_acceptance_id)
      values (${draft.providerId}, ${draft.signalId}, ${change.publishedAt}, ${change.revealAt}, ${change.expiresAt},
        ${acceptance.id})
    `.execute(trx);
  } else if (change.status !== undefined || change.openPct !== undefined) {
    await sql`
      update signals set status = coalesce(${change.status ?? null}, status),
        open_pct = coalesce(${change.openPct ?? null}, open_pct)
      where provider_id = ${draft.providerId} and id = ${draft.signalId}
    `.execute(trx);
  }
  await sql`
    insert into signal_statements (provider_id, id, signal_id, type, statement, signer, signature, commitment,
      received_at, acceptance_id, min_index)
    values (${draft.providerId}, ${draft.id}, ${draft.signalId}, ${draft.type}, ${draft.statement}, ${draft.signer},
      ${draft.signature}, ${draft.commitment}, ${recording.receivedAt}, ${acceptance.id}, ${acceptance.minIndex})
  `.execute(trx);
  return acceptance;
}

/**
 * Called by the log's sequencer in its transaction, once the entries from index `from` on are in
 * `log_entries`: stamps the signal statements among them with their index (and each open's
 * signal), and writes one event per statement, in log order. The transaction commits the tree,
 * the indexes and the events together, so each event is written once and carries its index.
 */
export async function placeSignalStatements(trx: Kysely<Database>, from: number): Promise<void> {
  await sql`
    with placed as (
      update signal_statements s set log_index = e.idx
      from log_entries e
      where e.idx >= ${from} and s.acceptance_id = e.accepted_id
      returning s.provider_id, s.signal_id, s.type, s.log_index
    ), opened as (
      update signals g set open_log_index = p.log_index
      from placed p
      where p.type = 'signal.open' and g.provider_id = p.provider_id and g.id = p.signal_id
      returning 1
    )
    insert into events (type, data)
    select case p.type when 'signal.open' then 'signal.opened' when 'signal.update' then 'signal.updated'
        when 'signal.close' then 'signal.closed' else 'signal.cancelled' end,
      jsonb_build_object('providerId', p.provider_id, 'signalId', p.signal_id, 'logIndex', p.log_index)
    from placed p
    order by p.log_index
  `.execute(trx);
}
