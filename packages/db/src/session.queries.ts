/**
 * Sessions: one per sign-in (started in the statement that logs the user in, see
 * auth.queries.ts), checked on every authenticated request, listed and ended by their user.
 */
import type { Session } from '@signal/core';
import { type Kysely, type QueryCreator, sql } from 'kysely';
import { runCompiled } from './compiled-query.js';
import { eventRow } from './events.queries.js';
import { exactTimestamp, newestFirstPage, type PageResult, type Paging } from './paging.js';
import type { Database } from './schema.js';

/** How often a session's lastUsedAt is written at most: a busy client does not write per request. */
const SESSION_TOUCH_INTERVAL_MS = 60_000;

export type SessionState = 'live' | 'revoked' | 'user-not-found';

/**
 * Whether the session a token names may still be used, in one indexed lookup by its key, and
 * its lastUsedAt moved to `now` when it is older than a minute, in the same statement (the
 * update matches no row, and writes nothing, the rest of the time). A session that is not there
 * was purged after it ended, or went with its user: the caller's token is refused either way.
 * Expiry is the token's own `exp`, checked before this.
 */
export async function touchAndCheckSession(
  db: Kysely<Database>,
  input: { sessionId: string; userId: number; now: Date },
): Promise<SessionState> {
  const staleBefore = new Date(input.now.getTime() - SESSION_TOUCH_INTERVAL_MS);
  const values = [input.sessionId, input.userId, input.now, staleBefore] as const;
  const [row] = await runCompiled(db, 'touchAndCheckSession', values, (id, userId, at, before) =>
    db
      .with('touched', (qb) =>
        qb
          .updateTable('sessions')
          .set({ last_used_at: at })
          .where('id', '=', id)
          .where('user_id', '=', userId)
          .where('revoked_at', 'is', null)
          .where('last_used_at', '<', before)
          .returning('id'),
      )
      .selectFrom('sessions')
      .select('revoked_at')
      .where('id', '=', id)
      .where('user_id', '=', userId),
  );
  if (row) return row.revoked_at === null ? 'live' : 'revoked';
  const [user] = await runCompiled(db, 'userExists', [input.userId], (userId) =>
    db.selectFrom('users').select('id').where('id', '=', userId),
  );
  return user ? 'revoked' : 'user-not-found';
}

interface SessionRow {
  id: string;
  created_at: Date;
  last_used_at: Date;
  expires_at: Date;
  user_agent: string | null;
  ip: string | null;
}

/** The one place a session row becomes a wire Session. */
function toSession(row: SessionRow, currentId: string): Session {
  return {
    id: row.id,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    userAgent: row.user_agent,
    ip: row.ip,
    current: row.id === currentId,
  };
}

/**
 * The user's live sessions (not signed out, not expired), newest first; ties by the session's
 * sequence number, which is also the cursor's id.
 */
export async function listSessions(
  db: Kysely<Database>,
  request: Paging & { userId: number; currentId: string; now: Date },
): Promise<PageResult<Session>> {
  const live = db
    .selectFrom('sessions as s')
    .where('s.user_id', '=', request.userId)
    .where('s.revoked_at', 'is', null)
    .where('s.expires_at', '>', request.now);
  const counted = await live.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirst();
  const query = live.select([
    's.id',
    's.seq',
    's.created_at',
    's.last_used_at',
    's.expires_at',
    's.user_agent',
    's.ip',
    exactTimestamp('s.created_at').as('cursor_key'),
  ]);
  return newestFirstPage(
    query,
    request,
    Number(counted?.total ?? 0),
    { created: 's.created_at', id: 's.seq', idOf: (row) => Number(row.seq) },
    (row) => toSession(row, request.currentId),
  );
}

/**
 * Ends one of the user's sessions. Idempotent: an ended one keeps the time it ended and still
 * answers true. False when the user has no session with this id (another user's included).
 * Announces session.revoked in the same statement, only when this call ended it.
 */
export async function revokeSession(
  db: Kysely<Database>,
  input: { sessionId: string; userId: number; now: Date },
): Promise<boolean> {
  const row = await db
    .with('ended', (qb) =>
      qb
        .updateTable('sessions')
        .set({ revoked_at: input.now })
        .where('id', '=', input.sessionId)
        .where('user_id', '=', input.userId)
        .where('revoked_at', 'is', null)
        .returning(['id', 'user_id']),
    )
    .with('announced', (qb) => announceRevoked(qb))
    .selectFrom('sessions')
    .select('id')
    .where('id', '=', input.sessionId)
    .where('user_id', '=', input.userId)
    .executeTakeFirst();
  return row !== undefined;
}

export type SignOutScope = 'current' | 'others' | 'all';

/**
 * Ends the caller's session, the user's other live sessions, or all of them; how many ended.
 * Announces session.revoked for each, in the same statement.
 */
export async function revokeSessions(
  db: Kysely<Database>,
  input: { scope: SignOutScope; sessionId: string; userId: number; now: Date },
): Promise<number> {
  const row = await db
    .with('ended', (qb) => {
      let query = qb
        .updateTable('sessions')
        .set({ revoked_at: input.now })
        .where('user_id', '=', input.userId)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', input.now);
      if (input.scope === 'current') query = query.where('id', '=', input.sessionId);
      if (input.scope === 'others') query = query.where('id', '<>', input.sessionId);
      return query.returning(['id', 'user_id']);
    })
    .with('announced', (qb) => announceRevoked(qb))
    .selectFrom('ended')
    .select((eb) => eb.fn.countAll<string>().as('ended'))
    .executeTakeFirstOrThrow();
  return Number(row.ended);
}

/** session.revoked for each row of the `ended` CTE (the sessions this statement ended). */
function announceRevoked(qb: QueryCreator<Database & { ended: { id: string; user_id: number } }>) {
  return qb
    .insertInto('events')
    .columns(['type', 'data'])
    .expression((eb) =>
      eb
        .selectFrom('ended')
        .select(eventRow('session.revoked', { userId: sql.ref('ended.user_id'), sessionId: sql.ref('ended.id') })),
    );
}
