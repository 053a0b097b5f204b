/**
 * The operator's writes to the catalogue: create, edit, archive and restore providers. Each runs
 * in the caller's transaction (where the caller also records its events) and says what kind of
 * change it made, so that a write which changes nothing announces nothing.
 */
import type { ProviderWrite } from '@signal/core';
import { type Kysely, sql, type Transaction } from 'kysely';
import { providerColumns, providerOfRow } from './provider.queries.js';
import type { Database } from './schema.js';

/** The kinds of change a provider write makes (the provider.* event types, without the prefix). */
export type ProviderChange = 'created' | 'updated' | 'archived' | 'restored';

export interface ProviderFields {
  name?: string;
  description?: string | null;
  avatarUrl?: string | null;
  revealDelaySeconds?: number;
}

export interface ProviderWriteOutcome {
  provider: ProviderWrite;
  changes: ProviderChange[];
}

/** The wire Provider's columns (provider.queries.ts), then whether it is archived. */
const WRITE_COLUMNS = [...providerColumns(''), sql<boolean>`archived_at is not null`.as('archived')] as const;

const toProviderWrite = (row: { archived: boolean }): ProviderWrite => ({
  ...providerOfRow(row),
  archived: row.archived,
});

/** Only the columns given (undefined means "leave it"). */
function columnsOf(fields: ProviderFields) {
  return {
    ...(fields.name !== undefined && { name: fields.name }),
    ...(fields.description !== undefined && { description: fields.description }),
    ...(fields.avatarUrl !== undefined && { avatar_url: fields.avatarUrl }),
    ...(fields.revealDelaySeconds !== undefined && { reveal_delay_seconds: fields.revealDelaySeconds }),
  };
}

export async function createProvider(
  db: Kysely<Database>,
  fields: ProviderFields & { name: string; now: Date },
): Promise<ProviderWriteOutcome> {
  const row = await db
    .insertInto('providers')
    .values({ description: null, avatar_url: null, ...columnsOf(fields), name: fields.name, created_at: fields.now })
    .returning(WRITE_COLUMNS)
    .executeTakeFirstOrThrow();
  return { provider: toProviderWrite(row), changes: ['created'] };
}

/**
 * Edits fields and/or archives or restores (`archived` absent: left as it is). The row is locked
 * first, so the changes reported are those this transaction really made.
 */
export async function updateProvider(
  trx: Transaction<Database>,
  id: number,
  patch: ProviderFields & { archived?: boolean },
  now: Date,
): Promise<ProviderWriteOutcome | 'provider-not-found'> {
  const before = await trx
    .selectFrom('providers')
    .select([
      'name',
      'description',
      'avatar_url',
      'reveal_delay_seconds',
      sql<boolean>`archived_at is not null`.as('archived'),
    ])
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  if (!before) return 'provider-not-found';
  const columns = columnsOf(patch);
  const changes: ProviderChange[] = [];
  const edited = Object.entries(columns).some(([column, value]) => before[column as keyof typeof before] !== value);
  if (edited) changes.push('updated');
  const archiving = patch.archived !== undefined && patch.archived !== before.archived;
  if (archiving) changes.push(patch.archived ? 'archived' : 'restored');
  const query = trx.updateTable('providers').where('id', '=', id);
  const set = {
    ...(edited ? columns : {}),
    ...(archiving && { archived_at: patch.archived ? now : null }),
  };
  const row =
    changes.length > 0
      ? await query.set(set).returning(WRITE_COLUMNS).executeTakeFirstOrThrow()
      : await trx.selectFrom('providers').select(WRITE_COLUMNS).where('id', '=', id).executeTakeFirstOrThrow();
  return { provider: toProviderWrite(row), changes };
}
