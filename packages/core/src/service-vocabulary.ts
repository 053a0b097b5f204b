/**
 * The fixed vocabularies of the Version 3 contract that several packages share: the scopes a
 * service key can hold and the event types the service announces. Wire schemas build on these.
 */
import { z } from 'zod';

/** What a service key may do (CONTRACT.md, "Service keys"). `ADMIN_KEY` holds all of them. */
export const SCOPES = [
  'keys:manage',
  'providers:write',
  'stats:write',
  'followers:read',
  'events:read',
  'webhooks:manage',
] as const;
export const ScopeSchema = z.enum(SCOPES).describe('A service key scope');
export type Scope = z.infer<typeof ScopeSchema>;

/** Every change the service announces (CONTRACT.md, "Events"). */
export const EVENT_TYPES = [
  'user.created',
  'session.created',
  'session.revoked',
  'follow.created',
  'follow.deleted',
  'provider.created',
  'provider.updated',
  'provider.archived',
  'provider.restored',
  'provider.stats.updated',
  'wallet.linked',
  'wallet.unlinked',
  'publisher.added',
  'publisher.removed',
  'publisher_key.delegated',
  'publisher_key.revoked',
] as const;
export const EventTypeSchema = z.enum(EVENT_TYPES).describe('An event type');
export type EventType = z.infer<typeof EventTypeSchema>;
