/** Shared by the endpoint and delivery queries (not exported by the package). */
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

/** Fails the pending deliveries of endpoints being disabled, keeping an earlier error. */
export async function failPendingDeliveries(trx: Kysely<Database>, endpointIds: readonly string[], reason: string) {
  await sql`
    update webhook_deliveries set status = 'failed', finished_at = now(), last_error = coalesce(last_error, ${reason})
    where endpoint_id = any(${[...endpointIds]}::text[]) and status = 'pending'
  `.execute(trx);
}
