/**
 * Who may sign for a provider at time t, as a pure function of the provider's publisher rows
 * and delegated keys, so that the server (at `receivedAt`) and the auditor (replaying the log)
 * decide the same way:
 * - a publisher wallet at t: a row of it with `addedAt ≤ t < removedAt` (or not removed);
 * - a delegated key with `issuedAt ≤ t < expiresAt`, not revoked at or before t, whose wallet
 *   has been a publisher without a break from the key's delegation to t: the row that was in
 *   force when the key was delegated must still be, so removing the wallet ends its keys for
 *   good, even once the wallet is added again (a new row).
 * Every interval is half-open: at the very millisecond of a removal, an expiry or a revocation
 * the right is gone (a statement received in the same millisecond as the revocation, after it,
 * is refused by the server and by the auditor alike).
 */

/** A point in time: a Date, an ISO string, or milliseconds since the epoch. */
export type Instant = Date | string | number;

export interface PublisherRow {
  /** Canonical wallet. */
  wallet: string;
  addedAt: Instant;
  removedAt: Instant | null;
}

export interface DelegatedKeyRow {
  /** `ed25519:<base58>`. */
  key: string;
  /** The publisher wallet that delegated it (canonical). */
  wallet: string;
  /** When the server accepted the `key.delegate` statement (its `receivedAt`). */
  delegatedAt: Instant;
  /** The statement's `issuedAt` and `expiresAt`. */
  issuedAt: Instant;
  expiresAt: Instant;
  revokedAt: Instant | null;
}

export interface ProviderSigners {
  publishers: readonly PublisherRow[];
  keys: readonly DelegatedKeyRow[];
}

/** Why a signer may sign, or why not (the server's FORBIDDEN message says it). */
export type SignerRight =
  | { allowed: true; via: 'wallet'; wallet: string }
  | { allowed: true; via: 'key'; wallet: string }
  | {
      allowed: false;
      reason:
        | 'not a publisher'
        | 'unknown key'
        | 'key not yet valid'
        | 'key expired'
        | 'key revoked'
        | 'key wallet removed'
        | 'keys cannot delegate';
    };

function ms(at: Instant): number {
  const value = at instanceof Date ? at.getTime() : typeof at === 'string' ? Date.parse(at) : at;
  if (!Number.isFinite(value)) throw new RangeError(`not an instant: ${String(at)}`);
  return value;
}

function covers(row: PublisherRow, t: number): boolean {
  return ms(row.addedAt) <= t && (row.removedAt === null || t < ms(row.removedAt));
}

/** The publisher row of `wallet` in force at `t`, if any (a wallet's rows never overlap). */
export function publisherRowAt(signers: ProviderSigners, wallet: string, at: Instant): PublisherRow | undefined {
  const t = ms(at);
  return signers.publishers.find((row) => row.wallet === wallet && covers(row, t));
}

/** May `signer` (a canonical wallet or `ed25519:` key) sign a signal statement, or revoke a key, at `at`? */
export function signerRightAt(signers: ProviderSigners, signer: string, at: Instant): SignerRight {
  const t = ms(at);
  const key = signers.keys.find((row) => row.key === signer);
  if (!key) {
    return publisherRowAt(signers, signer, t)
      ? { allowed: true, via: 'wallet', wallet: signer }
      : { allowed: false, reason: signer.startsWith('ed25519:') ? 'unknown key' : 'not a publisher' };
  }
  if (t < ms(key.issuedAt) || t < ms(key.delegatedAt)) return { allowed: false, reason: 'key not yet valid' };
  if (key.revokedAt !== null && ms(key.revokedAt) <= t) return { allowed: false, reason: 'key revoked' };
  if (ms(key.expiresAt) <= t) return { allowed: false, reason: 'key expired' };
  const row = publisherRowAt(signers, key.wallet, key.delegatedAt);
  if (!row || !covers(row, t)) return { allowed: false, reason: 'key wallet removed' };
  return { allowed: true, via: 'key', wallet: key.wallet };
}

/** May `signer` delegate a key at `at`? Only a publisher wallet may: a key cannot make keys. */
export function delegationRightAt(signers: ProviderSigners, signer: string, at: Instant): SignerRight {
  if (signer.startsWith('ed25519:')) return { allowed: false, reason: 'keys cannot delegate' };
  return signerRightAt(signers, signer, at);
}

/**
 * May `signer` revoke `key` at `at`? A publisher wallet of the provider at that time, or the key
 * itself while it may still sign (a leaked key can be ended by whoever holds it).
 */
export function revocationRightAt(signers: ProviderSigners, signer: string, key: string, at: Instant): SignerRight {
  if (signer.startsWith('ed25519:') && signer !== key) return { allowed: false, reason: 'not a publisher' };
  return signerRightAt(signers, signer, at);
}
