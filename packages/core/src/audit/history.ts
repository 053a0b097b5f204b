/**
 * A provider's history rebuilt from the log alone: its publisher wallets and delegated keys
 * (each key statement checked: canonical, naming this log and provider, signed by its signer,
 * who was allowed then), and every signal statement's entry by signal. Rights are then judged
 * as the server judged them, with `signerRightAt` on the rows, twice: with what the log held
 * before the entry (an entry cannot be made valid by one appended later) and with the whole
 * history (nor by hiding a removal that was in force).
 */

import {
  type DelegatedKeyRow,
  delegationRightAt,
  type ProviderSigners,
  type PublisherRow,
  revocationRightAt,
  type SignerRight,
  signerRightAt,
} from '../statements/authorization.js';
import { canonicalJson, type JsonValue } from '../statements/canonical-json.js';
import type { LogView } from './log-view.js';
import { type AuditFailure, failure } from './report.js';
import { canonicalSignerKind, checkSignature, type EvmChainCheck } from './signatures.js';

/** A signal statement as the log holds it. */
export interface LoggedStatement {
  logIndex: number;
  commitment: string;
  receivedAt: string;
  type: string;
  signal: string;
}

interface Timed<T> {
  row: T;
  /** Log index of the entry that made the row, and of the one that ended it. */
  from: number;
  until: number | null;
}

export interface ProviderHistory {
  provider: number;
  origin: string;
  signals: Map<string, LoggedStatement[]>;
  /** Statements by log index. */
  statements: Map<number, LoggedStatement>;
  failures: AuditFailure[];
  publishers: number;
  keys: number;
  /** May `signer` sign a signal statement at `at`, the statement being log entry `logIndex`? */
  rightAt(signer: string, at: string, logIndex: number): SignerRight;
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const HEX_SHA256 = /^[0-9a-f]{64}$/;
const SIGNAL_TYPES = new Set(['signal.open', 'signal.update', 'signal.close', 'signal.cancel']);
const ED25519_KEY = /^ed25519:[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/;

function isInstant(value: unknown, pattern = ISO_MS): value is string {
  return typeof value === 'string' && pattern.test(value) && Number.isFinite(Date.parse(value));
}

function sameKeys(entry: Record<string, unknown>, keys: string[]): boolean {
  const own = Object.keys(entry).sort();
  return own.length === keys.length && own.every((key, i) => key === keys[i]);
}

/** The rows as the log held them before entry `index` (or all of them). */
function signersBefore(
  publishers: Timed<PublisherRow>[],
  keys: Timed<DelegatedKeyRow>[],
  index = Number.POSITIVE_INFINITY,
): ProviderSigners {
  return {
    publishers: publishers
      .filter((t) => t.from < index)
      .map((t) => (t.until !== null && t.until < index ? t.row : { ...t.row, removedAt: null })),
    keys: keys
      .filter((t) => t.from < index)
      .map((t) => (t.until !== null && t.until < index ? t.row : { ...t.row, revokedAt: null })),
  };
}

/** The stricter of two verdicts: a right holds only when both allow it. */
function both(before: SignerRight, whole: SignerRight): SignerRight {
  return before.allowed ? whole : before;
}

/** Replays the provider's entries of the view (checked log) in order. */
export async function replayProvider(
  view: LogView,
  provider: number,
  evmChain?: EvmChainCheck,
): Promise<ProviderHistory> {
  const origin = view.checkpoint?.origin ?? '';
  const publishers: Timed<PublisherRow>[] = [];
  const keys: Timed<DelegatedKeyRow>[] = [];
  const signals = new Map<string, LoggedStatement[]>();
  const statements = new Map<number, LoggedStatement>();
  const failures: AuditFailure[] = [];
  const bad = (check: AuditFailure['check'], message: string, logIndex: number) =>
    failures.push(failure(check, message, { logIndex }));

  for (const { index, entry, text } of view.byProvider.get(provider) ?? []) {
    if (canonicalJson(entry as JsonValue) !== text || entry.v !== 1) {
      bad('entry-malformed', `entry ${index} is not canonical JSON of version 1`, index);
      continue;
    }
    const type = entry.type;
    if (typeof type === 'string' && SIGNAL_TYPES.has(type)) {
      const { commitment, receivedAt, signal } = entry;
      if (
        !sameKeys(entry, ['commitment', 'provider', 'receivedAt', 'signal', 'type', 'v']) ||
        typeof commitment !== 'string' ||
        !HEX_SHA256.test(commitment) ||
        !isInstant(receivedAt) ||
        typeof signal !== 'string' ||
        signal === ''
      ) {
        bad('entry-malformed', `entry ${index} is not a well-formed signal statement entry`, index);
        continue;
      }
      const logged: LoggedStatement = { logIndex: index, commitment, receivedAt, type, signal };
      statements.set(index, logged);
      const list = signals.get(signal) ?? [];
      signals.set(signal, list);
      list.push(logged);
      continue;
    }
    if (type === 'publisher.added' || type === 'publisher.removed') {
      const { at, wallet } = entry;
      if (
        !sameKeys(entry, ['at', 'provider', 'type', 'v', 'wallet']) ||
        !isInstant(at) ||
        typeof wallet !== 'string' ||
        !canonicalSignerKind(wallet) ||
        wallet.startsWith('ed25519:')
      ) {
        bad('entry-malformed', `entry ${index} is not a well-formed publisher entry`, index);
        continue;
      }
      const current = publishers.find((t) => t.row.wallet === wallet && t.until === null);
      if (type === 'publisher.added') {
        if (current)
          bad(
            'publisher-entry',
            `entry ${index} adds ${wallet}, already a publisher since entry ${current.from}`,
            index,
          );
        else publishers.push({ row: { wallet, addedAt: at, removedAt: null }, from: index, until: null });
      } else if (!current) {
        bad('publisher-entry', `entry ${index} removes ${wallet}, which is not a publisher then`, index);
      } else if (Date.parse(at) < Date.parse(String(current.row.addedAt))) {
        bad('publisher-entry', `entry ${index} removes ${wallet} before it was added`, index);
      } else {
        current.row = { ...current.row, removedAt: at };
        current.until = index;
      }
      continue;
    }
    if (type === 'key.delegate' || type === 'key.revoke') {
      await replayKeyStatement(index, entry, type);
      continue;
    }
    bad('entry-malformed', `entry ${index} has an unknown type ${JSON.stringify(type)}`, index);
  }

  async function replayKeyStatement(
    index: number,
    entry: Record<string, unknown>,
    type: 'key.delegate' | 'key.revoke',
  ) {
    const { receivedAt, signature, signer, statement } = entry;
    if (
      !sameKeys(entry, ['provider', 'receivedAt', 'signature', 'signer', 'statement', 'type', 'v']) ||
      !isInstant(receivedAt) ||
      typeof signature !== 'string' ||
      typeof signer !== 'string' ||
      typeof statement !== 'string'
    ) {
      bad('entry-malformed', `entry ${index} is not a well-formed key statement entry`, index);
      return;
    }
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(statement);
    } catch {
      bad('key-statement', `the key statement of entry ${index} is not JSON`, index);
      return;
    }
    const expected =
      type === 'key.delegate'
        ? ['expiresAt', 'issuedAt', 'key', 'log', 'provider', 'type', 'v']
        : ['issuedAt', 'key', 'log', 'provider', 'type', 'v'];
    if (
      typeof parsed !== 'object' ||
      parsed === null ||
      canonicalJson(parsed as JsonValue) !== statement ||
      !sameKeys(parsed, expected) ||
      parsed.v !== 1 ||
      parsed.log !== origin ||
      parsed.provider !== provider ||
      parsed.type !== type ||
      typeof parsed.key !== 'string' ||
      !ED25519_KEY.test(parsed.key) ||
      !isInstant(parsed.issuedAt, INSTANT) ||
      (type === 'key.delegate' && !isInstant(parsed.expiresAt, INSTANT))
    ) {
      bad(
        'key-statement',
        `the key statement of entry ${index} is not a ${type} of log ${origin} for provider ${provider}`,
        index,
      );
      return;
    }
    const key = parsed.key as string;
    const verdict = await checkSignature(signer, statement, signature, evmChain);
    if (verdict !== 'valid') {
      bad(
        verdict === 'unchecked' ? 'signature-unchecked' : 'key-signature',
        `the ${type} of entry ${index} is not signed by ${signer}${verdict === 'unchecked' ? ' (a contract wallet: give a chain to check it)' : ''}`,
        index,
      );
      return;
    }
    const before = signersBefore(publishers, keys, index);
    const whole = signersBefore(publishers, keys);
    const right =
      type === 'key.delegate'
        ? both(delegationRightAt(before, signer, receivedAt), delegationRightAt(whole, signer, receivedAt))
        : both(revocationRightAt(before, signer, key, receivedAt), revocationRightAt(whole, signer, key, receivedAt));
    if (!right.allowed) {
      bad(
        'key-not-allowed',
        `${signer} may not ${type === 'key.delegate' ? 'delegate' : 'revoke'} a key at ${receivedAt} (entry ${index}): ${right.reason}`,
        index,
      );
      return;
    }
    const known = keys.find((t) => t.row.key === key);
    if (type === 'key.delegate') {
      if (known) {
        bad('key-statement', `entry ${index} delegates ${key} again (first at entry ${known.from})`, index);
        return;
      }
      keys.push({
        row: {
          key,
          wallet: signer,
          delegatedAt: receivedAt,
          issuedAt: parsed.issuedAt as string,
          expiresAt: parsed.expiresAt as string,
          revokedAt: null,
        },
        from: index,
        until: null,
      });
    } else if (!known) {
      bad('key-statement', `entry ${index} revokes ${key}, never delegated`, index);
    } else if (known.until !== null) {
      bad('key-statement', `entry ${index} revokes ${key} again (revoked at entry ${known.until})`, index);
    } else {
      known.row = { ...known.row, revokedAt: receivedAt };
      known.until = index;
    }
  }

  return {
    provider,
    origin,
    signals,
    statements,
    failures,
    publishers: publishers.length,
    keys: keys.length,
    rightAt: (signer, at, logIndex) =>
      both(
        signerRightAt(signersBefore(publishers, keys, logIndex), signer, at),
        signerRightAt(signersBefore(publishers, keys), signer, at),
      ),
  };
}
