import { sql } from 'kysely';
import { statementsMigration } from './statements.js';

/**
 * The public log of record (docs/log.md, "Sequencing"): an RFC 6962 Merkle tree served as C2SP
 * tlog-tiles, with signed checkpoints.
 *
 * - `log_pending`: entries accepted and not yet in the tree, written in the transaction of the
 *   change they record (appendLogEntry), numbered by acceptance (`id`).
 * - `log_entries`: the tree's leaves by index, with the acceptance id each came from (the
 *   appender learns its index by it: log-watch in the API).
 * - `log_tiles`: the hash tiles (C2SP, height 8) by (level, index): `hashes` is width × 32
 *   bytes; the right-edge partial tile of each level is rewritten in place (only ever longer,
 *   its prefix unchanged) until it holds 256 hashes, then never again.
 * - `log_state`: one row, the tree's size, root and the checkpoint signed over them. Its row
 *   lock is the sequencer's: one transaction at a time holds it (FOR UPDATE SKIP LOCKED),
 *   reads pending entries, extends the tree from exactly this row, signs, updates the row and
 *   deletes the pending rows it took, and commits all of it or nothing. A row lock, not an
 *   advisory lock or LISTEN: both are lost behind a transaction-mode pooler.
 */
export const { up } = statementsMigration([
  sql`
    create table log_pending (
      id bigint generated always as identity primary key,
      entry bytea not null,
      accepted_at timestamptz not null default now()
    )
  `,
  sql`
    create table log_entries (
      idx bigint primary key,
      entry bytea not null,
      accepted_id bigint not null
    )
  `,
  sql`
    create table log_tiles (
      level smallint not null,
      idx bigint not null,
      hashes bytea not null,
      primary key (level, idx)
    )
  `,
  sql`
    create table log_state (
      id boolean primary key default true check (id),
      size bigint not null default 0,
      -- The root of the empty tree: SHA-256 of nothing (RFC 6962).
      root bytea not null default decode('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'hex'),
      -- The signed note over (origin, size, root); null until the first sequencer run signs one.
      checkpoint text,
      -- The verifier key (note format) that signed it: a server with another key refuses to start.
      verifier_key text,
      signed_at timestamptz
    )
  `,
  sql`insert into log_state (id) values (true)`,
]);
