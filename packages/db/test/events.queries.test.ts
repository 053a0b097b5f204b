/**
 * The outbox's writes (migration 0012): each event this package announces from its real
 * trigger, with its data, in the change's statement; nothing from a change that changed nothing.
 * The feed, webhooks and the bus read these rows (apps/api/test/events.*.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { describeBackends } from '@signal/test-support/vitest';
import { expect, it } from 'vitest';
import {
  appendEvents,
  followProvider,
  readFeed,
  recordNonceUseAndLogin,
  revokeSession,
  revokeSessions,
  seedDemoCatalogue,
  sequenceEvents,
  unfollowProvider,
} from '../src/index.js';
import { freshNonce, useTestDatabase } from './support.js';

describeBackends('events written on %s', (backend) => {
  const t = useTestDatabase(backend);

  /** The events written since `after` (a seq), oldest first: what the change wrote. */
  let seen = 0;
  async function newEvents() {
    const rows = await t.db
      .selectFrom('events')
      .select(['seq', 'type', 'data', 'id'])
      .where('seq', '>', String(seen))
      .orderBy('seq')
      .execute();
    if (rows.length > 0) seen = Number(rows.at(-1)!.seq);
    return rows;
  }
  const eventsOf = async () => (await newEvents()).map(({ type, data }) => ({ type, data }));

  let wallet = 0;
  const signIn = (w = `0x${(++wallet).toString(16).padStart(40, '0')}`, sessionId: string = randomUUID()) => {
    const now = new Date();
    return recordNonceUseAndLogin(t.db, {
      nonce: freshNonce(),
      wallet: w,
      chain: 'evm',
      expiresAt: new Date(now.getTime() + 60_000),
      now,
      session: { id: sessionId, expiresAt: new Date(now.getTime() + 86_400_000), userAgent: null, ip: null },
    });
  };

  const newProvider = async (name: string) => {
    const row = await t.db
      .insertInto('providers')
      .values({ name, created_at: new Date() })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  };

  it('the demo seed emits none', async () => {
    await seedDemoCatalogue(t.db, { providers: 20 });
    expect(await eventsOf()).toEqual([]);
  });

  it('a first sign-in announces user.created and session.created; a later one only session.created', async () => {
    const w = `0x${'a'.repeat(40)}`;
    const first = await signIn(w, 's-first');
    const userId = first!.user.id;
    expect(await eventsOf()).toEqual([
      { type: 'user.created', data: { userId, wallet: w, chain: 'evm' } },
      { type: 'session.created', data: { userId, sessionId: 's-first' } },
    ]);
    await signIn(w, 's-second');
    expect(await eventsOf()).toEqual([{ type: 'session.created', data: { userId, sessionId: 's-second' } }]);
  });

  it('a used nonce announces nothing', async () => {
    const now = new Date();
    const input = {
      nonce: freshNonce(),
      wallet: `0x${'b'.repeat(40)}`,
      chain: 'evm' as const,
      expiresAt: new Date(now.getTime() + 60_000),
      now,
      session: { id: randomUUID(), expiresAt: new Date(now.getTime() + 86_400_000), userAgent: null, ip: null },
    };
    await recordNonceUseAndLogin(t.db, input);
    await newEvents();
    expect(
      await recordNonceUseAndLogin(t.db, { ...input, session: { ...input.session, id: randomUUID() } }),
    ).toBeNull();
    expect(await eventsOf()).toEqual([]);
  });

  it('session.revoked once per session that ended; none for a repeated revoke or sign-out', async () => {
    const a = await signIn(undefined, 'r-a');
    const userId = a!.user.id;
    const w = a!.user.wallet;
    await signIn(w, 'r-b');
    await signIn(w, 'r-c');
    await signIn(w, 'r-d');
    await newEvents();
    const now = new Date();
    expect(await revokeSession(t.db, { sessionId: 'r-a', userId, now })).toBe(true);
    expect(await eventsOf()).toEqual([{ type: 'session.revoked', data: { userId, sessionId: 'r-a' } }]);
    expect(await revokeSession(t.db, { sessionId: 'r-a', userId, now })).toBe(true);
    expect(await revokeSession(t.db, { sessionId: 'r-a', userId: userId + 1_000, now })).toBe(false);
    expect(await eventsOf()).toEqual([]);
    expect(await revokeSessions(t.db, { scope: 'others', sessionId: 'r-b', userId, now })).toBe(2);
    const others = await eventsOf();
    const ended = others.map((e) => e.data as { userId: number; sessionId: string });
    expect(ended.sort((x, y) => x.sessionId.localeCompare(y.sessionId))).toEqual([
      { userId, sessionId: 'r-c' },
      { userId, sessionId: 'r-d' },
    ]);
    expect(others.every((e) => e.type === 'session.revoked')).toBe(true);
    expect(await revokeSessions(t.db, { scope: 'others', sessionId: 'r-b', userId, now })).toBe(0);
    expect(await eventsOf()).toEqual([]);
    expect(await revokeSessions(t.db, { scope: 'current', sessionId: 'r-b', userId, now })).toBe(1);
    expect(await eventsOf()).toEqual([{ type: 'session.revoked', data: { userId, sessionId: 'r-b' } }]);
    expect(await revokeSessions(t.db, { scope: 'all', sessionId: 'r-b', userId, now })).toBe(0);
    expect(await eventsOf()).toEqual([]);
  });

  it('follow.created and follow.deleted with the count after the change; none for a repeat', async () => {
    const u1 = (await signIn())!.user.id;
    const u2 = (await signIn())!.user.id;
    const providerId = await newProvider('Events');
    await newEvents();
    const now = new Date();
    await followProvider(t.db, { userId: u1, providerId, now });
    await followProvider(t.db, { userId: u2, providerId, now });
    await followProvider(t.db, { userId: u2, providerId, now });
    expect(await eventsOf()).toEqual([
      { type: 'follow.created', data: { userId: u1, providerId, followerCount: 1 } },
      { type: 'follow.created', data: { userId: u2, providerId, followerCount: 2 } },
    ]);
    await unfollowProvider(t.db, { userId: u1, providerId });
    await unfollowProvider(t.db, { userId: u1, providerId });
    expect(await eventsOf()).toEqual([{ type: 'follow.deleted', data: { userId: u1, providerId, followerCount: 1 } }]);
    // Nothing for a follow of a provider that does not exist.
    await followProvider(t.db, { userId: u1, providerId: 999_999, now });
    expect(await eventsOf()).toEqual([]);
  });

  it('appendEvents writes in the caller’s transaction: a rollback leaves none, a commit all, in order', async () => {
    await t.db
      .transaction()
      .execute(async (trx) => {
        await appendEvents(trx, [{ type: 'provider.updated', data: { providerId: 1 } }]);
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    expect(await eventsOf()).toEqual([]);
    await t.db.transaction().execute(async (trx) => {
      await appendEvents(trx, []);
      await appendEvents(trx, [
        { type: 'provider.updated', data: { providerId: 1 } },
        { type: 'provider.archived', data: { providerId: 1 } },
      ]);
    });
    const rows = await newEvents();
    expect(rows.map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'provider.updated', data: { providerId: 1 } },
      { type: 'provider.archived', data: { providerId: 1 } },
    ]);
    // Ids unique and recognisable.
    expect(rows[0]!.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(rows[0]!.id).not.toBe(rows[1]!.id);
  });

  it('the feed keeps commit order where it shows: concurrent follows of one provider count 1, 2, 3… in feed order', async () => {
    const users = await Promise.all(Array.from({ length: 24 }, () => signIn().then((r) => r!.user.id)));
    const providerId = await newProvider('Contended');
    // Drain what came before, then write concurrently (many pool connections on PostgreSQL)
    // while sequencing runs alongside, as it does on a busy service.
    let after = '0';
    const drain = async () => {
      const seen = [];
      for (;;) {
        await sequenceEvents(t.db);
        const page = await readFeed(t.db, { after, limit: 1_000, types: ['follow.created', 'follow.deleted'] });
        seen.push(...page.items);
        after = page.last;
        if (page.items.length === 0) return seen;
      }
    };
    await drain();
    const now = new Date();
    let sequencing = true;
    const sequencer = (async () => {
      while (sequencing) await sequenceEvents(t.db);
    })();
    await Promise.all(users.map((userId) => followProvider(t.db, { userId, providerId, now })));
    await Promise.all(users.map((userId) => unfollowProvider(t.db, { userId, providerId })));
    sequencing = false;
    await sequencer;
    const seen = (await drain()).filter((e) => 'providerId' in e.data && e.data.providerId === providerId);
    const counts = seen.map((e) => ('followerCount' in e.data ? e.data.followerCount : -1));
    const n = users.length;
    expect(counts).toEqual([
      ...Array.from({ length: n }, (_, i) => i + 1),
      ...Array.from({ length: n }, (_, i) => n - 1 - i),
    ]);
    expect(new Set(seen.map((e) => e.id)).size).toBe(2 * n);
  });
});
