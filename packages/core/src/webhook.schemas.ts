/**
 * Wire schemas of the webhook routes (`webhooks:manage`; CONTRACT.md, "Events" → "Webhooks"):
 * endpoints (created with a `whsec_` secret shown once), and the deliveries log. One schema per
 * wire type: the router, the OpenAPI document and the SDK's types all come from these.
 */
import { z } from 'zod';
import { EVENT_TYPES, type EventType } from './event-schemas.js';
import {
  boundedText,
  endedSchema,
  isoTimestamp,
  patchSchema,
  serviceLimitParam,
  withSecretShownOnce,
} from './schema-shapes.js';
import { cursorParam } from './schemas.js';

/**
 * Standard Webhooks secrets: `whsec_` and the base64 of the HMAC key (24 random bytes, 192
 * bits, as Svix makes them). Receivers pass the whole string to a Standard Webhooks library.
 */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
export const WEBHOOK_SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]{32}$/;

export const MAX_WEBHOOK_URL_LENGTH = 2048;
export const MAX_WEBHOOK_DESCRIPTION_LENGTH = 500;
export const MAX_WEBHOOK_ID_LENGTH = 64;

const KNOWN_TYPES = new Set<string>(EVENT_TYPES);

/** `["*"]` (every type, present and future) or a non-empty list of known types. */
export const WebhookTypesSchema = z
  .array(z.string())
  .min(1, 'must name at least one event type, or "*"')
  .max(EVENT_TYPES.length + 1, `must name at most ${EVENT_TYPES.length} event types`)
  .superRefine((types, ctx) => {
    if (types.includes('*') && types.length > 1)
      ctx.addIssue({ code: 'custom', message: '"*" stands alone: it means every type' });
    for (const [index, type] of types.entries()) {
      if (type !== '*' && !KNOWN_TYPES.has(type))
        ctx.addIssue({ code: 'custom', path: [index], message: `unknown event type ${JSON.stringify(type)}` });
    }
  })
  .transform((types) => [...new Set(types)] as (EventType | '*')[])
  .describe(`The event types to deliver: ["*"] for all, or some of ${EVENT_TYPES.join(', ')}`);

const webhookUrl = boundedText(MAX_WEBHOOK_URL_LENGTH).describe(
  'Where to POST events: an absolute https URL whose host is, and resolves to, a public address (checked at ' +
    'creation and again at every delivery)',
);

const description = z
  .string()
  .max(MAX_WEBHOOK_DESCRIPTION_LENGTH, `must be at most ${MAX_WEBHOOK_DESCRIPTION_LENGTH} characters`)
  .describe('What the endpoint is for');

const webhookId = boundedText(MAX_WEBHOOK_ID_LENGTH).describe('Endpoint id, from POST or GET /webhooks');

export const WebhookEndpointSchema = z.object({
  id: z.string().describe('Endpoint id'),
  url: z.string().describe('Where events are POSTed'),
  types: z.array(z.string()).describe('The event types delivered: ["*"] for all'),
  description: z.string().nullable().describe('What the endpoint is for, or null'),
  enabled: z
    .boolean()
    .describe(
      'False once disabled (by PATCH, by a 410 answer, or after failing every attempt for WEBHOOK_DISABLE_AFTER); ' +
        'events that occur while disabled are not delivered to it',
    ),
  createdAt: isoTimestamp,
});
export type WebhookEndpoint = z.infer<typeof WebhookEndpointSchema>;

export const CreatedWebhookEndpointSchema = withSecretShownOnce(
  WebhookEndpointSchema,
  'secret',
  'The signing secret (`whsec_…`)',
  'give it to the receiver, which verifies `webhook-signature` with it (any Standard Webhooks library)',
);
export type CreatedWebhookEndpoint = z.infer<typeof CreatedWebhookEndpointSchema>;

/** `POST /webhooks`; unknown fields are refused. */
export const CreateWebhookBodySchema = z.strictObject({
  url: webhookUrl,
  types: WebhookTypesSchema,
  description: description.nullable().optional(),
});
export type CreateWebhookBody = z.input<typeof CreateWebhookBodySchema>;

export const WebhookIdParamsSchema = z.object({ id: webhookId });
export type WebhookIdParams = z.input<typeof WebhookIdParamsSchema>;

/** `PATCH /webhooks/{id}`: the path's id and a non-empty subset of the fields. */
export const WebhookPatchInputSchema = patchSchema({
  id: webhookId,
  url: webhookUrl.optional(),
  types: WebhookTypesSchema.optional(),
  description: description.nullable().optional(),
  enabled: z
    .boolean()
    .optional()
    .describe('false disables the endpoint (its pending deliveries fail); true enables it again'),
});
export type WebhookPatchInput = z.input<typeof WebhookPatchInputSchema>;

export const WebhookListSchema = z.object({ items: z.array(WebhookEndpointSchema).describe('Oldest first') });
export type WebhookList = z.infer<typeof WebhookListSchema>;

export const DeletedWebhookSchema = endedSchema('deleted', 'The endpoint deleted');
export type DeletedWebhook = z.infer<typeof DeletedWebhookSchema>;

export const DeliveriesQuerySchema = z.object({
  id: webhookId,
  cursor: cursorParam.optional(),
  limit: serviceLimitParam('Attempts'),
});
export type DeliveriesQuery = z.input<typeof DeliveriesQuerySchema>;

export const DELIVERY_STATUSES = ['succeeded', 'failed', 'pending'] as const;

export const DeliveryAttemptSchema = z.object({
  eventId: z.string().describe('The event delivered (its `webhook-id`)'),
  attempt: z.number().int().positive().describe('1 for the first attempt, 2 for the first retry, …'),
  status: z
    .enum(DELIVERY_STATUSES)
    .describe('succeeded (a 2xx within 15 s), failed, or pending: an attempt waiting to run at `nextAttemptAt`'),
  responseStatus: z
    .number()
    .int()
    .nullable()
    .describe('The receiver’s HTTP status, or null: no answer (refused address, timeout, connection error) or pending'),
  at: isoTimestamp.describe('When the attempt ended; for a pending one, when it was scheduled'),
  nextAttemptAt: isoTimestamp.nullable().describe('When a pending attempt runs; null otherwise'),
});
export type DeliveryAttempt = z.infer<typeof DeliveryAttemptSchema>;

export const DeliveryPageSchema = z.object({
  items: z.array(DeliveryAttemptSchema).describe('Attempts, newest first'),
  nextCursor: z.string().nullable().describe('Cursor of the next page (pass it as `cursor`), or null at the end'),
});
export type DeliveryPage = z.infer<typeof DeliveryPageSchema>;
