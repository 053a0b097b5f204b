/**
 * Webhook endpoints (migration 0016; docs/events.md, "Webhooks"): create, list, read, change,
 * delete. Their deliveries are in webhook-delivery.queries.ts.
 *
 * Every statement here is short (one statement, or a few in one transaction, never across an
 * HTTP call) and takes row locks only, so it works behind a transaction-mode pooler.
 */
import type { WebhookEndpoint } from '@signal/core';
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';
import { failPendingDeliveries } from './webhook-pending.js';

interface EndpointRow {
  id: string;
  url: string;
  types: string[];
  description: string | null;
  enabled: boolean;
  created_at: Date;
}

/** The one place a stored endpoint becomes its wire form (never with its secret). */
function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    types: row.types,
    description: row.description,
    enabled: row.enabled,
    createdAt: row.created_at.toISOString(),
  };
}

const ENDPOINT_COLUMNS = ['id', 'url', 'types', 'description', 'enabled', 'created_at'] as const;

export async function insertWebhookEndpoint(
  db: Kysely<Database>,
  endpoint: { id: string; url: string; types: readonly string[]; description: string | null; secret: string },
): Promise<WebhookEndpoint> {
  const row = await db
    .insertInto('webhook_endpoints')
    .values({ ...endpoint, types: [...endpoint.types] })
    .returning(ENDPOINT_COLUMNS)
    .executeTakeFirstOrThrow();
  return toEndpoint(row);
}

/** Every endpoint, oldest first (a service keeps a handful, not thousands: no paging). */
export async function listWebhookEndpoints(db: Kysely<Database>): Promise<WebhookEndpoint[]> {
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select(ENDPOINT_COLUMNS)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toEndpoint);
}

export async function getWebhookEndpoint(db: Kysely<Database>, id: string): Promise<WebhookEndpoint | undefined> {
  const row = await db.selectFrom('webhook_endpoints').select(ENDPOINT_COLUMNS).where('id', '=', id).executeTakeFirst();
  return row && toEndpoint(row);
}

export interface WebhookEndpointPatch {
  url?: string;
  types?: readonly string[];
  description?: string | null;
  enabled?: boolean;
}

/**
 * Applies `patch`; undefined when there is no such endpoint. Enabling a disabled endpoint
 * delivers the events from then on (not those it missed); disabling fails its pending deliveries.
 */
export async function updateWebhookEndpoint(
  db: Kysely<Database>,
  id: string,
  patch: WebhookEndpointPatch,
): Promise<WebhookEndpoint | undefined> {
  return db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('webhook_endpoints')
      .select(['enabled'])
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (!current) return undefined;
    const enabling = patch.enabled === true && !current.enabled;
    const disabling = patch.enabled === false && current.enabled;
    const row = await trx
      .updateTable('webhook_endpoints')
      .set({
        ...(patch.url !== undefined ? { url: patch.url } : {}),
        ...(patch.types !== undefined ? { types: [...patch.types] } : {}),
        ...(patch.description !== undefined ? { description: patch.description } : {}),
        ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
        ...(enabling ? { enabled_since: sql<Date>`now()`, failing_since: null, disabled_reason: null } : {}),
        ...(disabling ? { disabled_reason: 'disabled by PATCH' } : {}),
      })
      .where('id', '=', id)
      .returning(ENDPOINT_COLUMNS)
      .executeTakeFirstOrThrow();
    if (disabling) await failPendingDeliveries(trx, [id], 'endpoint disabled');
    return toEndpoint(row);
  });
}

/** Deletes the endpoint with its deliveries and their log; false when there was none. */
export async function deleteWebhookEndpoint(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db.deleteFrom('webhook_endpoints').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
