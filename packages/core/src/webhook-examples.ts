/** OpenAPI examples of the webhook routes (made-up ids and secret, in the real formats). */
import type { CreatedWebhookEndpoint, CreateWebhookBody, DeliveryPage, WebhookEndpoint, WebhookList } from './index.js';

export const createWebhookRequest = {
  url: 'https://hooks.example.com/signal',
  types: ['follow.created', 'follow.deleted'],
  description: 'fan-out service (production)',
} satisfies CreateWebhookBody;

export const webhookEndpoint = {
  id: 'wh_5nQk2Vd8Lr0Tz7Xc3Bm1',
  ...createWebhookRequest,
  enabled: true,
  createdAt: '2026-11-23T10:00:00.000Z',
} satisfies WebhookEndpoint;

export const createdWebhookEndpoint = {
  ...webhookEndpoint,
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
} satisfies CreatedWebhookEndpoint;

export const webhookList = { items: [webhookEndpoint] } satisfies WebhookList;

export const deliveryPage = {
  items: [
    {
      eventId: 'evt_7a3d5e1f9b2c4a6e8d0f1b3c5e7a9d2f',
      attempt: 2,
      status: 'pending',
      responseStatus: null,
      at: '2026-11-23T10:42:06.000Z',
      nextAttemptAt: '2026-11-23T10:47:06.000Z',
    },
    {
      eventId: 'evt_7a3d5e1f9b2c4a6e8d0f1b3c5e7a9d2f',
      attempt: 1,
      status: 'failed',
      responseStatus: 503,
      at: '2026-11-23T10:42:06.000Z',
      nextAttemptAt: null,
    },
    {
      eventId: 'evt_0b6f9c2e4d1a4f7e9c3b5a8d2e6f1c04',
      attempt: 1,
      status: 'succeeded',
      responseStatus: 200,
      at: '2026-11-23T10:42:00.000Z',
      nextAttemptAt: null,
    },
  ],
  nextCursor: null,
} satisfies DeliveryPage;
