/**
 * Service keys: created, listed and revoked by operators (/admin/keys), and looked up by the
 * digest of their secret on every request that presents one (apps/api/src/procedures/service-credential.ts).
 */
import type { Scope, ServiceKey } from '@signal/core';
import { type Kysely, sql } from 'kysely';
import { runCompiled } from './compiled-query.js';
import { type PageResult, pageResult } from './paging.js';
import type { Database } from './schema.js';

/** What a request's credential check needs of a key. */
export interface ServiceKeyRecord {
  id: string;
  name: string;
  scopes: Scope[];
  secretHash: string;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** The key whose secret has this digest, revoked or expired ones included; one indexed read. */
export async function findServiceKeyByHash(
  db: Kysely<Database>,
  secretHash: string,
): Promise<ServiceKeyRecord | undefined> {
  const [row] = await runCompiled(db, 'findServiceKeyByHash', [secretHash], (hash) =>
    db
      .selectFrom('service_keys')
      .select(['id', 'name', 'scopes', 'secret_hash', 'expires_at', 'revoked_at'])
      .where('secret_hash', '=', hash),
  );
  if (!row) return undefined;
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes as Scope[],
    secretHash: row.secret_hash,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}

interface ServiceKeyRow {
  id: string;
  name: string;
  scopes: string[];
  start: string;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  created_by: string | null;
}

const iso = (at: Date | null) => (at ? at.toISOString() : null);

/** The one place a key row becomes a wire ServiceKey; the digest never leaves. */
function toServiceKey(row: ServiceKeyRow): ServiceKey {
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes as Scope[],
    createdAt: row.created_at.toISOString(),
    expiresAt: iso(row.expires_at),
    lastUsedAt: iso(row.last_used_at),
    revokedAt: iso(row.revoked_at),
    start: row.start,
    createdBy: row.created_by ?? 'admin',
  };
}

const KEY_COLUMNS = [
  'id',
  'name',
  'scopes',
  'start',
  'created_at',
  'expires_at',
  'last_used_at',
  'revoked_at',
  'created_by',
] as const;

/**
 * Inserts a key. Made by a key (`createdBy`): in one transaction that holds the maker's row
 * (FOR SHARE, so a revoke of the maker waits for it, and its walk down the tree then sees the
 * new key), the maker must still be live, and the new key's expiry is capped at the maker's (an
 * omitted or later one becomes the maker's). Undefined when the maker is revoked or expired.
 */
export async function insertServiceKey(
  db: Kysely<Database>,
  input: {
    id: string;
    name: string;
    scopes: Scope[];
    secretHash: string;
    start: string;
    createdAt: Date;
    expiresAt: Date | null;
    /** The making key's id; null for ADMIN_KEY. */
    createdBy: string | null;
  },
): Promise<ServiceKey | undefined> {
  return db.transaction().execute(async (trx) => {
    let expiresAt = input.expiresAt;
    if (input.createdBy !== null) {
      const maker = await trx
        .selectFrom('service_keys')
        .select(['revoked_at', 'expires_at'])
        .where('id', '=', input.createdBy)
        .forShare()
        .executeTakeFirst();
      if (!maker || maker.revoked_at !== null) return undefined;
      if (maker.expires_at !== null) {
        if (maker.expires_at <= input.createdAt) return undefined;
        if (expiresAt === null || expiresAt > maker.expires_at) expiresAt = maker.expires_at;
      }
    }
    const row = await trx
      .insertInto('service_keys')
      .values({
        id: input.id,
        name: input.name,
        scopes: input.scopes,
        secret_hash: input.secretHash,
        start: input.start,
        created_at: input.createdAt,
        expires_at: expiresAt,
        created_by: input.createdBy,
      })
      .returning(KEY_COLUMNS)
      .executeTakeFirstOrThrow();
    return toServiceKey(row);
  });
}

/**
 * Which keys a caller may see and revoke: every one (ADMIN_KEY: `within` undefined), or only
 * those whose scopes are all among `within` (a `keys:manage` key's own scopes).
 */
type Within = readonly Scope[] | undefined;

const withinScopes = (within: Within) =>
  within === undefined ? sql<boolean>`true` : sql<boolean>`scopes <@ ${[...within]}::text[]`;

/** The keys the caller may see (`within`), revoked ones included (they are never deleted), newest first. */
export async function listServiceKeys(
  db: Kysely<Database>,
  request: { page: number; limit: number; within?: Within },
): Promise<PageResult<ServiceKey>> {
  const counted = await db
    .selectFrom('service_keys')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where(withinScopes(request.within))
    .executeTakeFirst();
  const total = Number(counted?.total ?? 0);
  const offset = (request.page - 1) * request.limit;
  if (offset >= total) return pageResult([], request, total);
  const rows = await db
    .selectFrom('service_keys')
    .select(KEY_COLUMNS)
    .where(withinScopes(request.within))
    .orderBy('created_at', 'desc')
    .orderBy('seq', 'desc')
    .limit(request.limit)
    .offset(offset)
    .execute();
  return pageResult(rows.map(toServiceKey), { page: request.page, limit: request.limit }, total);
}

/**
 * Revokes a key the caller may see (`within`) and every key made by it, by those, and so on;
 * idempotent (a revoked key keeps the time it was revoked). Two statements in one transaction:
 * the first takes the key's row lock, so a child being made (insertServiceKey holds the maker
 * FOR SHARE) is committed before the second walks the tree with a fresh snapshot. False when
 * the caller may see no key with this id.
 */
export async function revokeServiceKey(
  db: Kysely<Database>,
  input: { id: string; now: Date; within?: Within },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('service_keys')
      .set({ revoked_at: sql`coalesce(revoked_at, ${input.now}::timestamptz)` })
      .where('id', '=', input.id)
      .where(withinScopes(input.within))
      .returning('id')
      .executeTakeFirst();
    if (!row) return false;
    await sql`
      with recursive made as (
        select id from service_keys where created_by = ${input.id}
        union
        select k.id from service_keys k join made m on k.created_by = m.id
      )
      update service_keys set revoked_at = coalesce(revoked_at, ${input.now}::timestamptz)
      where id in (select id from made)
    `.execute(trx);
    return true;
  });
}

/**
 * Moves each key's last_used_at forward to the time given (never back: another server may
 * have written a later one). Called with a batch gathered in memory, not per request.
 */
export async function recordServiceKeysUsed(db: Kysely<Database>, uses: { id: string; at: Date }[]): Promise<void> {
  for (const use of uses) {
    await db
      .updateTable('service_keys')
      .set({ last_used_at: sql`greatest(coalesce(last_used_at, ${use.at}::timestamptz), ${use.at}::timestamptz)` })
      .where('id', '=', use.id)
      .execute();
  }
}
