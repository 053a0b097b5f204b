/**
 * The log's entries for statements, built in one place so that the server that appends them
 * and the auditor that replays them write the same bytes: canonical JSON (RFC 8785), its UTF-8
 * the entry. A signal statement is in the log by its commitment only (the content stays for
 * followers until the reveal); a key statement is in it whole (public at once).
 */
import { canonicalJson } from './canonical-json.js';
import type { KeyStatementType, SignalStatement, SignalStatementType } from './statement.schemas.js';

export interface SignalLogEntryFields {
  /** `statementCommitment(statement)`: hex SHA-256 of the statement's UTF-8 bytes. */
  commitment: string;
  provider: number;
  /** The server's clock at acceptance. */
  receivedAt: Date;
  /** The signal's id: the open's `id`, an update's `signal`. */
  signal: string;
  type: SignalStatementType;
}

export interface KeyLogEntryFields {
  provider: number;
  receivedAt: Date;
  /** The body's fields as accepted: the statement's text, the canonical signer, the signature. */
  statement: string;
  signer: string;
  signature: string;
  type: KeyStatementType;
}

const HEX_SHA256 = /^[0-9a-f]{64}$/;

/** The signal a signal statement belongs to: an open's own `id`, the `signal` of the others. */
export function signalIdOf(statement: SignalStatement): string {
  return statement.type === 'signal.open' ? statement.id : statement.signal;
}

/** The entry of a signal statement: `{"commitment","provider","receivedAt","signal","type","v":1}`. */
export function signalLogEntry(fields: SignalLogEntryFields): string {
  if (!HEX_SHA256.test(fields.commitment)) throw new TypeError('commitment must be 64 lowercase hex digits');
  return canonicalJson({
    commitment: fields.commitment,
    provider: fields.provider,
    receivedAt: fields.receivedAt.toISOString(),
    signal: fields.signal,
    type: fields.type,
    v: 1,
  });
}

/** The entry of a key statement: `{"provider","receivedAt","signature","signer","statement","type","v":1}`. */
export function keyLogEntry(fields: KeyLogEntryFields): string {
  return canonicalJson({
    provider: fields.provider,
    receivedAt: fields.receivedAt.toISOString(),
    signature: fields.signature,
    signer: fields.signer,
    statement: fields.statement,
    type: fields.type,
    v: 1,
  });
}
