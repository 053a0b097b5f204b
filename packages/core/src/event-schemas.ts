/**
 * The events the service announces (CONTRACT.md, "Events"): each type's `data`, documented once
 * here and in docs/events.md. Payloads are thin on purpose: ids and the figure a consumer would
 * otherwise have to read back at once (a follow's count after it); the rest is one read away.
 */
import { z } from 'zod';
import { boundedText, serviceLimitParam, subscriptionInput } from './schema-shapes.js';
import { ChainSchema, MAX_CURSOR_LENGTH } from './schemas.js';

const id = z.number().int().positive();
const userId = id.describe('The user');
const providerId = id.describe('The provider');

// Fields in the order PostgreSQL's jsonb keeps them (shorter keys first), the order the feed
// reads them in.
const walletData = z.object({
  chain: ChainSchema,
  userId,
  wallet: z.string().describe('The wallet, in its canonical form'),
});
const sessionData = z.object({ userId, sessionId: z.string().describe('The session (the token’s `sid`)') });
const followData = z.object({
  userId,
  providerId,
  followerCount: z.number().int().nonnegative().describe('The provider’s follower count after this change'),
});
const providerData = z.object({ providerId });
const publisherData = z.object({
  wallet: z.string().describe('The publisher wallet, in its canonical form'),
  providerId,
});
const publisherKeyData = z.object({
  key: z.string().describe('The delegated key, `ed25519:<base58>`'),
  wallet: z.string().describe('The publisher wallet that delegated it, in its canonical form'),
  providerId,
});
const signalData = z.object({
  signalId: z.string().describe('The signal (its content is not in the event: read it with `signals:read`)'),
  logIndex: z.number().int().nonnegative().describe("The log index of the statement's entry"),
  providerId,
});

/**
 * The `data` of each event type, and so the types themselves: a new event type is one entry here
 * (then its writer's `appendEvents` call, and its row in docs/events.md).
 */
export const EVENT_DATA_SCHEMAS = {
  'user.created': walletData.describe('A user signed in for the first time: the user and the wallet that signed'),
  'session.created': sessionData.describe('A sign-in started a session'),
  'session.revoked': sessionData.describe('A session was signed out or revoked (once, when it ended)'),
  'follow.created': followData.describe('A user followed a provider'),
  'follow.deleted': followData.describe('A user unfollowed a provider'),
  'provider.created': providerData.describe('A provider was created'),
  'provider.updated': providerData.describe('A provider’s name, description, avatar or reveal delay changed'),
  'provider.archived': providerData.describe('A provider was archived'),
  'provider.restored': providerData.describe('An archived provider was restored'),
  'provider.stats.updated': providerData.describe('A provider’s published performance changed'),
  'wallet.linked': walletData.describe('A wallet was linked to a user'),
  'wallet.unlinked': walletData.describe('A wallet was unlinked from a user'),
  'publisher.added': publisherData.describe(
    'A wallet became a publisher of a provider (also a `publisher.added` log entry)',
  ),
  'publisher.removed': publisherData.describe(
    'A publisher wallet was removed from a provider (also a `publisher.removed` log entry)',
  ),
  'publisher_key.delegated': publisherKeyData.describe(
    'A publisher wallet delegated a key (also the `key.delegate` statement in the log)',
  ),
  'publisher_key.revoked': publisherKeyData.describe(
    'A delegated key was revoked, by a publisher wallet or by itself (also the `key.revoke` statement in the log)',
  ),
  'signal.opened': signalData.describe('A provider opened a signal (a `signal.open` statement)'),
  'signal.updated': signalData.describe("A signal's stop, targets or note changed (a `signal.update` statement)"),
  'signal.closed': signalData.describe('A share of a signal was closed (each `signal.close` statement)'),
  'signal.cancelled': signalData.describe('A signal was cancelled (a `signal.cancel` statement)'),
} as const;

/** Every change the service announces (CONTRACT.md, "Events"): the keys of EVENT_DATA_SCHEMAS, in its order. */
export type EventType = keyof typeof EVENT_DATA_SCHEMAS;
export const EVENT_TYPES = Object.keys(EVENT_DATA_SCHEMAS) as [EventType, ...EventType[]];
export const EventTypeSchema = z.enum(EVENT_TYPES).describe('An event type');

export type EventData<T extends EventType = EventType> = z.infer<(typeof EVENT_DATA_SCHEMAS)[T]>;

/** An event to write: its type and that type's data. */
export type EventDraft = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];

const eventFields = {
  id: z.string().describe('The event id, unique; the `webhook-id` of its deliveries and the `Nats-Msg-Id` on the bus'),
  occurredAt: z.iso.datetime().describe('When the change was made (its transaction’s time), ISO 8601, UTC'),
};

/** One event as the feed, the stream, the bus and webhooks carry it. */
export const EventSchema = z
  .discriminatedUnion(
    'type',
    EVENT_TYPES.map((type) =>
      z.object({
        id: eventFields.id,
        type: z.literal(type),
        occurredAt: eventFields.occurredAt,
        data: EVENT_DATA_SCHEMAS[type] as z.ZodObject,
      }),
    ) as unknown as [z.ZodObject, ...z.ZodObject[]],
  )
  .describe('An event: `data` depends on `type` (docs/events.md)') as unknown as z.ZodType<Event>;
export type Event = { [T in EventType]: { id: string; type: T; occurredAt: string; data: EventData<T> } }[EventType];

const KNOWN_TYPES = new Set<string>(EVENT_TYPES);

/** `types=a,b`: a comma-separated list of event types (the same string from a tRPC client). */
const eventTypesParam = z
  .string()
  .superRefine((value, ctx) => {
    for (const type of value.split(',')) {
      if (!KNOWN_TYPES.has(type))
        ctx.addIssue({ code: 'custom', message: `unknown event type ${JSON.stringify(type)}` });
    }
  })
  .transform((value) => value.split(',') as EventType[])
  .describe(`Only these event types, comma-separated: ${EVENT_TYPES.join(', ')}`);

export const EventFeedQuerySchema = z.object({
  after: boundedText(MAX_CURSOR_LENGTH)
    .describe('The `nextCursor` of the previous page; from the oldest retained event without it')
    .optional(),
  limit: serviceLimitParam('Events'),
  types: eventTypesParam.optional(),
});
export type EventFeedQuery = z.input<typeof EventFeedQuerySchema>;

export const EventPageSchema = z.object({
  items: z.array(EventSchema).describe('Events oldest first, in commit order'),
  nextCursor: z
    .string()
    .describe('Where to read on: pass it as `after` next time (unchanged when nothing new has committed)'),
});
export type EventPage = z.infer<typeof EventPageSchema>;

/**
 * The input of the tRPC subscription `events.stream`: from now on, or right after
 * `lastEventId` (an event id the stream, the feed, the bus or a webhook gave). tRPC's
 * `httpSubscriptionLink` sets `lastEventId` itself when it reconnects.
 */
export const EventStreamInputSchema = subscriptionInput({
  lastEventId: boundedText(64).describe('Resume right after this event (its id); from now on without it').nullish(),
  types: z.array(EventTypeSchema).min(1, 'must name at least one type').max(EVENT_TYPES.length).optional(),
});
export type EventStreamInput = z.input<typeof EventStreamInputSchema>;
