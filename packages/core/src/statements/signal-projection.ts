/**
 * The Signal resource from its statements (CONTRACT.md, Version 4, "Signals"): the one place
 * that turns a signal's accepted statements, in log order, into its terms, `openPct` and status,
 * and hides what a reader may not see yet. The server's reads and statement answers use it
 * (through @signal/db's `readSignals`), and so can an auditor replaying revealed statements: the
 * same statements give the same Signal.
 *
 * - `signal.open` sets the terms; `signal.update` replaces each field it names (`targets: []`
 *   and `stop: null` clear); `signal.close` takes its `closePct` off `openPct` (exact decimals);
 *   `signal.cancel` cancels.
 * - status: `cancelled` after a cancel, `closed` once `openPct` is 0, `expired` once `expiresAt`
 *   has passed (at `now`, the read's clock) while open, else `open`.
 * - a reader who may not see the content (not `full`, and `now` before `revealAt`) gets
 *   `content: null` and each statement's `statement`, `signer` and `signature` null.
 */
import type { Signal, SignalContent, SignalStatementView, SignalStatus } from '../signal.schemas.js';
import { openPct } from './decimal.js';
import { instantMs } from './instants.js';
import type { SignalStatementType } from './statement.schemas.js';

/** One accepted statement of a signal, as stored. */
export interface SignalStatementRecord {
  logIndex: number;
  type: SignalStatementType;
  /** ISO with milliseconds. */
  receivedAt: string;
  commitment: string;
  statement: string;
  signer: string;
  signature: string;
}

export interface SignalRecord {
  id: string;
  providerId: number;
  /** ISO with milliseconds. */
  publishedAt: string;
  revealAt: string;
  /** Every statement in log order (an open first). */
  statements: readonly SignalStatementRecord[];
}

/** Who reads: `full` sees the content before `revealAt` (a follower, a `signals:read` key, a statement's answer). */
export interface SignalReader {
  full: boolean;
  /** The read's clock (milliseconds): the reveal and the expiry are judged at it. */
  now: number;
}

const iso = (instant: string) => new Date(instantMs(instant)).toISOString();

interface Terms extends Omit<SignalContent, 'openPct'> {
  closes: string[];
  cancelled: boolean;
}

/** The terms after every statement; throws on a list that does not start with its open. */
function replay(statements: readonly SignalStatementRecord[]): Terms {
  let terms: Terms | undefined;
  for (const record of statements) {
    const fields = JSON.parse(record.statement) as Record<string, unknown>;
    if (record.type === 'signal.open') {
      terms = {
        instrument: fields.instrument as string,
        side: fields.side as 'long' | 'short',
        entry: fields.entry as SignalContent['entry'],
        stop: fields.stop as string | null,
        targets: fields.targets as string[],
        sizePct: fields.sizePct as string,
        expiresAt: fields.expiresAt === null ? null : iso(fields.expiresAt as string),
        note: (fields.note as string | undefined) ?? null,
        closes: [],
        cancelled: false,
      };
      continue;
    }
    if (!terms) throw new Error(`signal statement ${record.logIndex} comes before its open`);
    if (record.type === 'signal.update') {
      if (fields.stop !== undefined) terms.stop = fields.stop as string | null;
      if (fields.targets !== undefined) terms.targets = fields.targets as string[];
      if (fields.note !== undefined) terms.note = fields.note as string;
    } else if (record.type === 'signal.close') {
      terms.closes.push(fields.closePct as string);
    } else {
      terms.cancelled = true;
    }
  }
  if (!terms) throw new Error('a signal has its open among its statements');
  return terms;
}

/** The status of terms at `now`. */
function statusOf(terms: Terms, open: string, now: number): SignalStatus {
  if (terms.cancelled) return 'cancelled';
  if (open === '0') return 'closed';
  if (terms.expiresAt !== null && Date.parse(terms.expiresAt) <= now) return 'expired';
  return 'open';
}

/** The wire Signal of `record` for `reader` (see the file's comment). */
export function projectSignal(record: SignalRecord, reader: SignalReader): Signal {
  const terms = replay(record.statements);
  const open = openPct(terms.closes);
  const visible = reader.full || Date.parse(record.revealAt) <= reader.now;
  const { closes: _closes, cancelled: _cancelled, ...content } = terms;
  return {
    id: record.id,
    providerId: record.providerId,
    status: statusOf(terms, open, reader.now),
    publishedAt: record.publishedAt,
    revealAt: record.revealAt,
    content: visible ? { ...content, openPct: open } : null,
    statements: record.statements.map(
      (s): SignalStatementView => ({
        logIndex: s.logIndex,
        type: s.type,
        receivedAt: s.receivedAt,
        commitment: s.commitment,
        statement: visible ? s.statement : null,
        signer: visible ? s.signer : null,
        signature: visible ? s.signature : null,
      }),
    ),
  };
}
