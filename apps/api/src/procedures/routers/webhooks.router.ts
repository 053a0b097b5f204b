/**
 * Webhook endpoints (`webhooks:manage`; CONTRACT.md, "Events" → "Webhooks"): create (the
 * `whsec_` secret is in that answer only), list, read, edit, delete, and each endpoint's
 * deliveries log. The URL is checked against procedures/webhook-ssrf.ts's rules at creation and at every edit of
 * it (and again at every delivery, ops/webhook-send.ts). Delivery itself: ops/webhook-worker.ts.
 */
import { randomBytes } from 'node:crypto';
import {
  CreatedWebhookEndpointSchema,
  CreateWebhookBodySchema,
  DeletedWebhookSchema,
  DeliveriesQuerySchema,
  DeliveryPageSchema,
  DomainError,
  WEBHOOK_SECRET_PREFIX,
  WebhookEndpointSchema,
  WebhookIdParamsSchema,
  WebhookListSchema,
  WebhookPatchInputSchema,
} from '@signal/core';
import * as examples from '@signal/core/webhook-examples';
import {
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  insertWebhookEndpoint,
  listWebhookEndpoints,
  readDeliveryLog,
  updateWebhookEndpoint,
} from '@signal/db';
import { z } from 'zod';
import type { Context } from '../context.js';
import { resolvePaging } from '../paging.js';
import { scopedProcedure } from '../service-auth.js';
import { router } from '../trpc.js';
import { createHostResolver, resolveWebhookTarget, WebhookTargetError } from '../webhook-ssrf.js';

const manageProcedure = scopedProcedure('webhooks:manage');

const notFound = (id: string) => new DomainError('NOT_FOUND', `No webhook endpoint ${id}`);

/** The URL checked as a delivery would check it (form, scheme, every address of the host); 400 if refused. */
async function checkUrl(ctx: Context, url: string): Promise<void> {
  const { allowHttp, allowPrivate, dnsServers } = ctx.services.config.webhooks;
  try {
    await resolveWebhookTarget(url, { allowHttp, allowPrivate, resolve: createHostResolver(dnsServers) });
  } catch (error) {
    if (!(error instanceof WebhookTargetError)) throw error;
    throw new DomainError('VALIDATION_ERROR', `Invalid request: url: ${error.message}`, {
      issues: [{ path: ['url'], message: error.message }],
    });
  }
}

const URL_RULES =
  'The URL must be https (http only with WEBHOOK_ALLOW_HTTP) and its host must be, and resolve only to, public ' +
  'addresses: loopback, private, link-local, unique-local, CGNAT, "this network", multicast, broadcast and ' +
  'cloud-metadata addresses are refused in any notation (400 `VALIDATION_ERROR`; WEBHOOK_ALLOW_PRIVATE allows ' +
  'them for development). ';

export const webhooksRouter = router({
  create: manageProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/webhooks',
        tags: ['webhooks'],
        summary: 'Create a webhook endpoint',
        description:
          'Events of the given `types` (`["*"]`: all) that occur from now on are POSTed to `url`, signed as ' +
          'Standard Webhooks specifies. `secret` (`whsec_…`) is in this answer only: give it to the receiver, which ' +
          `verifies every delivery with it (docs/events.md). ${URL_RULES}An unknown event type → 400. ` +
          'The Idempotency-Key header is ignored here (the answer reveals a secret once).',
        protect: true,
        successStatus: 201,
        example: { request: examples.createWebhookRequest, response: examples.createdWebhookEndpoint },
      },
      errors: ['FORBIDDEN'],
    })
    .input(CreateWebhookBodySchema)
    .output(CreatedWebhookEndpointSchema)
    .mutation(async ({ input, ctx }) => {
      await checkUrl(ctx, input.url);
      const secret = `${WEBHOOK_SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
      const endpoint = await insertWebhookEndpoint(ctx.services.database.db, {
        id: `wh_${randomBytes(15).toString('base64url')}`,
        url: input.url,
        types: input.types,
        description: input.description ?? null,
        secret,
      });
      return { ...endpoint, secret };
    }),

  list: manageProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/webhooks',
        tags: ['webhooks'],
        summary: 'List webhook endpoints',
        description: 'Every endpoint, oldest first, disabled ones included. Secrets are never shown again.',
        protect: true,
        example: { response: examples.webhookList },
      },
      errors: ['FORBIDDEN'],
    })
    .input(z.void())
    .output(WebhookListSchema)
    .query(async ({ ctx }) => ({ items: await listWebhookEndpoints(ctx.services.database.db) })),

  get: manageProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/webhooks/{id}',
        tags: ['webhooks'],
        summary: 'A webhook endpoint',
        description:
          '`enabled` is false once it was disabled: by PATCH, by a 410 answer, or after WEBHOOK_DISABLE_AFTER of failures.',
        protect: true,
        example: { request: { id: examples.webhookEndpoint.id }, response: examples.webhookEndpoint },
      },
      errors: ['FORBIDDEN', 'NOT_FOUND'],
    })
    .input(WebhookIdParamsSchema)
    .output(WebhookEndpointSchema)
    .query(async ({ input, ctx }) => {
      const endpoint = await getWebhookEndpoint(ctx.services.database.db, input.id);
      if (!endpoint) throw notFound(input.id);
      return endpoint;
    }),

  update: manageProcedure
    .meta({
      openapi: {
        method: 'PATCH',
        path: '/webhooks/{id}',
        tags: ['webhooks'],
        summary: 'Edit, disable or enable a webhook endpoint',
        description:
          `Changes any non-empty subset of \`url\` (checked as at creation: ${URL_RULES}), \`types\`, ` +
          '`description` and `enabled`. `enabled: false` disables the endpoint: its pending deliveries fail, and ' +
          'events that occur while it is disabled are never delivered to it. `enabled: true` delivers the events ' +
          'that occur from then on.',
        protect: true,
        example: {
          request: { id: examples.webhookEndpoint.id, enabled: false },
          response: { ...examples.webhookEndpoint, enabled: false },
        },
      },
      errors: ['FORBIDDEN', 'NOT_FOUND'],
    })
    .input(WebhookPatchInputSchema)
    .output(WebhookEndpointSchema)
    .mutation(async ({ input, ctx }) => {
      const { id, ...patch } = input;
      if (patch.url !== undefined) await checkUrl(ctx, patch.url);
      const endpoint = await updateWebhookEndpoint(ctx.services.database.db, id, patch);
      if (!endpoint) throw notFound(id);
      return endpoint;
    }),

  delete: manageProcedure
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/webhooks/{id}',
        tags: ['webhooks'],
        summary: 'Delete a webhook endpoint',
        description: 'Deletes the endpoint with its pending deliveries and its deliveries log. Unknown id → 404.',
        protect: true,
        example: {
          request: { id: examples.webhookEndpoint.id },
          response: { id: examples.webhookEndpoint.id, deleted: true },
        },
      },
      errors: ['FORBIDDEN', 'NOT_FOUND'],
    })
    .input(WebhookIdParamsSchema)
    .output(DeletedWebhookSchema)
    .mutation(async ({ input, ctx }) => {
      if (!(await deleteWebhookEndpoint(ctx.services.database.db, input.id))) throw notFound(input.id);
      return { id: input.id, deleted: true as const };
    }),

  deliveries: manageProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/webhooks/{id}/deliveries',
        tags: ['webhooks'],
        summary: "A webhook endpoint's deliveries log",
        description:
          'Every attempt, newest first: `succeeded` (a 2xx within 15 s), `failed` (with the receiver’s status, or ' +
          'null when none came: refused address, timeout, connection error), and `pending` rows for the attempts ' +
          'waiting to run at `nextAttemptAt`. Pass `nextCursor` as `cursor` for the next page; null at the end. ' +
          'Kept as long as events (EVENT_RETENTION_DAYS).',
        protect: true,
        example: { request: { id: examples.webhookEndpoint.id, limit: 3 }, response: examples.deliveryPage },
      },
      errors: ['FORBIDDEN', 'NOT_FOUND'],
    })
    .input(DeliveriesQuerySchema)
    .output(DeliveryPageSchema)
    .query(async ({ input, ctx }) => {
      const { db } = ctx.services.database;
      // Bound to the endpoint: another endpoint's cursor is refused like a forged one.
      const paging = resolvePaging(
        ctx.services.cursors,
        `webhook-deliveries:${input.id}`,
        { limit: input.limit, cursor: input.cursor },
        { sortBy: 'at', order: 'desc' },
        () => 'string',
      );
      const before = paging.after && openLogKey(paging.after);
      if (!(await getWebhookEndpoint(db, input.id))) throw notFound(input.id);
      const rows = await readDeliveryLog(db, { endpointId: input.id, before, limit: input.limit });
      const last = rows.at(-1);
      const nextCursor =
        rows.length === input.limit && last && paging.seal
          ? paging.seal({ key: `${last.position.atMicros}:${last.position.kind}`, id: Number(last.position.id) })
          : null;
      return { items: rows.map(({ position: _, ...attempt }) => attempt), nextCursor };
    }),
});

const LOG_KEY = /^(-?[0-9]{1,19}):([01])$/;

/** A sealed log position back (the MAC vouches for it; the shape is checked all the same). */
function openLogKey(at: { key: string | number | null; id: number }) {
  const match = typeof at.key === 'string' ? LOG_KEY.exec(at.key) : null;
  if (!match || !Number.isSafeInteger(at.id)) {
    throw new DomainError('VALIDATION_ERROR', 'Invalid request: cursor: malformed', {
      issues: [{ path: ['cursor'], message: 'malformed' }],
    });
  }
  return { atMicros: match[1] as string, kind: Number(match[2]) as 0 | 1, id: String(at.id) };
}
