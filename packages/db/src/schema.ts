/** Kysely's view of the tables. Columns are snake_case; wire mappers turn them camelCase. */

import type { Chain } from '@signal/core';
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export interface UsersTable {
  id: Generated<number>;
  wallet: string;
  chain: Chain;
  created_at: Timestamp;
  last_login_at: Timestamp;
}

/** Nonces that signed someone in, until they expire (issued nonces are not stored at all). */
export interface UsedNoncesTable {
  nonce: string;
  wallet: string;
  expires_at: Timestamp;
  used_at: Timestamp;
}

/** One per sign-in; the token's `sid` names it. Ended by sign-out (revoked_at) or expiry. */
export interface SessionsTable {
  id: string;
  seq: ColumnType<number, never, never>;
  user_id: number;
  created_at: Timestamp;
  last_used_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: NullableTimestamp;
  user_agent: string | null;
  ip: string | null;
  /** The wallet that signed it in; null: signed before migration 0011, by the primary wallet. */
  wallet: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Fixed-window request counters of the auth rate limit (one row per bucket and window). */
export interface RateLimitHitsTable {
  bucket: string;
  window_start: Timestamp;
  hits: number;
}

export interface ProvidersTable {
  id: Generated<number>;
  name: string;
  description: string | null;
  avatar_url: string | null;
  /** Kept equal to the provider's follow rows by a trigger on follows. */
  follower_count: Generated<number>;
  created_at: Timestamp;
  /** New from a sequence on every change of the row (ETag of the provider). */
  version: Generated<string>;
  /** Set while archived: hidden from every public read (migration 0010). */
  archived_at: NullableTimestamp;
  reveal_delay_seconds: ColumnType<number, number | undefined, number>;
  // The figures (migration 0010: why they live on this row), derived from provider_nav by
  // core's deriveFigures when the pipeline publishes, and the signal counters it publishes.
  roi_7d_pct: number | null;
  roi_30d_pct: number | null;
  roi_90d_pct: number | null;
  roi_all_pct: number | null;
  max_drawdown_pct: Generated<number>;
  trading_days: Generated<number>;
  as_of: ColumnType<string | null, string | null | undefined, string | null>;
  total_signals: Generated<number>;
  winning_signals: Generated<number>;
  /** winning_signals / total_signals, 0 with none. */
  win_rate: Generated<number>;
  avg_return_pct: Generated<number>;
  last_signal_at: NullableTimestamp;
  /** Last publication (Stats.updatedAt); null: never. */
  stats_updated_at: NullableTimestamp;
}

/** A provider's published daily NAV series (migration 0010): one point per date. */
export interface ProviderNavTable {
  provider_id: number;
  /** A calendar day; read as text (to_char), never as a JS Date, which would shift it by time zone. */
  date: ColumnType<string, string, string>;
  nav: number;
}

export interface FollowsTable {
  user_id: number;
  provider_id: number;
  created_at: Timestamp;
}

/** The first answer per (credential, Idempotency-Key), kept 24 h (migration 0010b). */
export interface IdempotencyKeysTable {
  credential: string;
  key: string;
  route: string;
  request_hash: string;
  answer: string;
  created_at: Timestamp;
}

/** Single-row counters kept in step by triggers, so totals cost no scan. */
export interface CatalogueCountersTable {
  id: ColumnType<true, true | undefined, never>;
  provider_count: number;
}

/** The catalogue's version is the sum of these slots (see migration 0007). */
export interface CatalogueVersionsTable {
  slot: number;
  version: string;
}

/**
 * The wallets that sign a user in, one row each (a wallet belongs to one user at most). The
 * user's primary wallet is also `users.wallet` (see migration 0011).
 */
export interface UserWalletsTable {
  wallet: string;
  chain: Chain;
  user_id: number;
  linked_at: Timestamp;
  last_login_at: NullableTimestamp;
}

/**
 * The outbox (migration 0012): one row per event, written in the transaction of its change;
 * `position` (its place in the feed) is given by the sequencer once it committed.
 */
export interface EventsTable {
  seq: ColumnType<string, never, never>;
  id: ColumnType<string, never, never>;
  type: string;
  data: ColumnType<unknown, string, string>;
  occurred_at: ColumnType<Date, Date | string | undefined, never>;
  position: ColumnType<string | null, never, string>;
}

/** The sequencer's single row: its lock, and the last position it gave (migration 0012). */
export interface EventFeedStateTable {
  id: ColumnType<true, true | undefined, never>;
  last_position: ColumnType<string, string | undefined, string>;
}

/** Webhook endpoints (migration 0016); `secret` is the `whsec_…` signing secret. */
export interface WebhookEndpointsTable {
  id: string;
  url: string;
  types: string[];
  description: string | null;
  secret: string;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  enabled_since: ColumnType<Date, Date | string | undefined, Date | string>;
  failing_since: ColumnType<Date | null, never, Date | string | null>;
  disabled_reason: string | null;
  created_at: ColumnType<Date, Date | string | undefined, never>;
}

/** A relay of the feed to a bus: the last position it published (migration 0015, event-relay.queries.ts). */
export interface EventRelaysTable {
  name: string;
  last_position: ColumnType<string, string | undefined, string>;
  relayed_at: ColumnType<Date | null, never, Date | string>;
}

/** Credentials of internal services; the secret is stored only as its SHA-256 (migration 0009). */
export interface ServiceKeysTable {
  id: string;
  seq: ColumnType<number, never, never>;
  name: string;
  scopes: string[];
  secret_hash: string;
  start: string;
  created_at: Timestamp;
  expires_at: NullableTimestamp;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  /** The key that made it; null: ADMIN_KEY (or made before migration 0018). */
  created_by: ColumnType<string | null, string | null | undefined, never>;
}

/** Log entries accepted, not yet in the tree (migration 0017); `id` is the acceptance order. */
export interface LogPendingTable {
  id: ColumnType<string, never, never>;
  entry: Uint8Array;
  accepted_at: ColumnType<Date, never, never>;
}

/** The log's leaves by index, and the acceptance each came from (migration 0017). */
export interface LogEntriesTable {
  idx: number;
  entry: Uint8Array;
  accepted_id: number;
}

/** The log's hash tiles (C2SP tlog-tiles, height 8): width × 32 bytes (migration 0017). */
export interface LogTilesTable {
  level: number;
  idx: number;
  hashes: Uint8Array;
}

/** The log's single state row: its lock is the sequencer's (migration 0017, docs/log.md). */
export interface LogStateTable {
  id: ColumnType<true, true | undefined, never>;
  size: ColumnType<number, never, number>;
  root: Uint8Array;
  checkpoint: string | null;
  verifier_key: string | null;
  signed_at: NullableTimestamp;
}

/** A provider's publisher wallets, one row per addition (migration 0017b). */
export interface ProviderPublishersTable {
  id: ColumnType<string, never, never>;
  provider_id: number;
  wallet: string;
  chain: Chain;
  added_at: Timestamp;
  removed_at: NullableTimestamp;
}

/** Accepted signed statements by digest (migration 0021): a byte-identical retry's first answer. */
export interface SignedStatementsTable {
  digest: string;
  provider_id: number;
  type: string;
  answer: unknown;
  acceptance_id: number;
  min_index: number;
  received_at: Timestamp;
}

/** Ed25519 keys delegated by publisher wallets (migration 0021). */
export interface PublisherKeysTable {
  id: ColumnType<string, never, never>;
  provider_id: number;
  key: string;
  wallet: string;
  delegated_at: Timestamp;
  issued_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: NullableTimestamp;
  delegate_acceptance_id: number;
  delegate_min_index: number;
  revoke_acceptance_id: number | null;
  revoke_min_index: number | null;
}

/** Signals by (provider, the open's id) (migration 0019): the state the write checks need. */
export interface SignalsTable {
  provider_id: number;
  id: string;
  published_at: Timestamp;
  reveal_at: Timestamp;
  expires_at: NullableTimestamp;
  status: 'open' | 'closed' | 'cancelled';
  open_pct: string;
  open_acceptance_id: number;
  open_log_index: number | null;
}

/** Every accepted signal statement, whole (migration 0019). */
export interface SignalStatementsTable {
  provider_id: number;
  id: string;
  signal_id: string;
  type: string;
  statement: string;
  signer: string;
  signature: string;
  commitment: string;
  received_at: Timestamp;
  acceptance_id: number;
  min_index: number;
  log_index: number | null;
}

/** Tables the service cannot work without; readiness checks they exist. */
export const TABLES = [
  'users',
  'used_nonces',
  'sessions',
  'rate_limit_hits',
  'providers',
  'follows',
  'catalogue_counters',
  'catalogue_versions',
  'user_wallets',
  'events',
  'service_keys',
  'provider_nav',
  'event_feed_state',
  'idempotency_keys',
  'webhook_endpoints',
  'event_relays',
  'log_pending',
  'log_entries',
  'log_tiles',
  'log_state',
  'provider_publishers',
  'signed_statements',
  'publisher_keys',
  'signals',
  'signal_statements',
] as const satisfies readonly (keyof Database)[];

export interface Database {
  users: UsersTable;
  used_nonces: UsedNoncesTable;
  sessions: SessionsTable;
  rate_limit_hits: RateLimitHitsTable;
  providers: ProvidersTable;
  follows: FollowsTable;
  catalogue_counters: CatalogueCountersTable;
  catalogue_versions: CatalogueVersionsTable;
  user_wallets: UserWalletsTable;
  events: EventsTable;
  service_keys: ServiceKeysTable;
  provider_nav: ProviderNavTable;
  event_feed_state: EventFeedStateTable;
  idempotency_keys: IdempotencyKeysTable;
  webhook_endpoints: WebhookEndpointsTable;
  event_relays: EventRelaysTable;
  log_pending: LogPendingTable;
  log_entries: LogEntriesTable;
  log_tiles: LogTilesTable;
  log_state: LogStateTable;
  provider_publishers: ProviderPublishersTable;
  signed_statements: SignedStatementsTable;
  publisher_keys: PublisherKeysTable;
  signals: SignalsTable;
  signal_statements: SignalStatementsTable;
}
