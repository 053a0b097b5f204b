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
] as const;

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
  },
): Promise<ServiceKey> {
  const row = await db
    .insertInto('service_keys')
    .values({
      id: input.id,
      name: input.name,
      scopes: input.scopes,
      secret_hash: input.secretHash,
      start: input.start,
      created_at: input.createdAt,
      expires_at: input.expiresAt,
    })
    .returning(KEY_COLUMNS)
    .executeTakeFirstOrThrow();
  return toServiceKey(row);
}

/** Every key, revoked ones included (they are never deleted), newest first. */
export async function listServiceKeys(
  db: Kysely<Database>,
  request: { page: number; limit: number },
): Promise<PageResult<ServiceKey>> {
  const counted = await db
    .selectFrom('service_keys')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirst();
  const total = Number(counted?.total ?? 0);
  const offset = (request.page - 1) * request.limit;
  if (offset >= total) return pageResult([], request, total);
  const rows = await db
    .selectFrom('service_keys')
    .select(KEY_COLUMNS)
    .orderBy('created_at', 'desc')
    .orderBy('seq', 'desc')
    .limit(request.limit)
    .offset(offset)
    .execute();
  return pageResult(rows.map(toServiceKey), request, total);
}

/**
 * Revokes a key; idempotent (a revoked key keeps the time it was revoked). False when no key
 * has this id.
 */
export async function revokeServiceKey(db: Kysely<Database>, input: { id: string; now: Date }): Promise<boolean> {
  const row = await db
    .updateTable('service_keys')
    .set({ revoked_at: sql`coalesce(revoked_at, ${input.now}::timestamptz)` })
    .where('id', '=', input.id)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
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
