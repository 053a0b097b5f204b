/**
 * The fixed vocabulary of the Version 3 contract that several packages share: the scopes a
 * service key can hold. (The event types are the keys of their data schemas: event-schemas.ts.)
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
  'signals:read',
] as const;
export const ScopeSchema = z.enum(SCOPES).describe('A service key scope');
export type Scope = z.infer<typeof ScopeSchema>;
