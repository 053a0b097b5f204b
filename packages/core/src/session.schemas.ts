/** Wire schemas of sessions and sign-out (`/me/sessions`, `/auth/logout`). */
import { z } from 'zod';
import { boundedText, endedSchema, isoTimestamp } from './schema-shapes.js';
import { CursorPageQuerySchema, pageSchema } from './schemas.js';

export const SessionSchema = z.object({
  id: z.string().describe('Session id'),
  createdAt: isoTimestamp.describe('Sign-in that started the session, ISO 8601 UTC'),
  lastUsedAt: isoTimestamp.describe('Latest request with its token, ISO 8601 UTC; written at most once a minute'),
  expiresAt: isoTimestamp.describe("When the session's token expires, ISO 8601 UTC"),
  userAgent: z.string().nullable().describe('User-Agent of the sign-in request (first 256 characters), or null'),
  ip: z.string().nullable().describe('Client address of the sign-in request, as the rate limits see it'),
  current: z.boolean().describe('True for the session of the token making this request'),
});
export type Session = z.infer<typeof SessionSchema>;

export const SessionPageSchema = pageSchema(SessionSchema);
export type SessionPage = z.infer<typeof SessionPageSchema>;

/** Sessions are listed newest first, by page number or by cursor like the other listings. */
export const SessionListQuerySchema = CursorPageQuerySchema;
export type SessionListQuery = z.input<typeof SessionListQuerySchema>;

export const MAX_SESSION_ID_LENGTH = 64;

export const SessionIdParamsSchema = z.object({
  id: boundedText(MAX_SESSION_ID_LENGTH).describe('Session id, from GET /me/sessions or the sign-in response'),
});
export type SessionIdParams = z.input<typeof SessionIdParamsSchema>;

export const RevokedSessionSchema = endedSchema('revoked', 'The session ended');
export type RevokedSession = z.infer<typeof RevokedSessionSchema>;

export const SIGN_OUT_SCOPES = ['current', 'others', 'all'] as const;
export type SignOutScope = (typeof SIGN_OUT_SCOPES)[number];

export const LogoutBodySchema = z
  .object({
    scope: z
      .enum(SIGN_OUT_SCOPES)
      .default('current')
      .describe(
        "Which sessions to end: `current` (this token's, the default), `others` (every other live session of the " +
          'user: "sign out everywhere else") or `all`',
      ),
  })
  // prefault, not default: an absent body is parsed as `{}`, so `scope` gets its own default.
  .prefault({});
export type LogoutBody = z.input<typeof LogoutBodySchema>;

export const LogoutResultSchema = z.object({
  revoked: z.number().int().nonnegative().describe('How many live sessions this request ended'),
});
export type LogoutResult = z.infer<typeof LogoutResultSchema>;
