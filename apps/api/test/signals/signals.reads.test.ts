/**
 * Signal reads (CONTRACT.md, Version 4, "Signals" and its precise readings), on both backends:
 * who sees a signal's content before its `revealAt` (anonymous, a user who does not follow, a
 * follower, a `signals:read` key, a key without it, ADMIN_KEY) and after it; every answer
 * `no-store`, never one reader's view for another; after the reveal each statement hashes
 * (node:crypto) to the commitment in its served log entry; an unrevealed signal's content in no
 * public answer, event, log entry or log line of the server at trace level; `status` filters
 * and their cursors; cursor walks newest first while signals are published, of a provider's
 * list and of `GET /me/signals`.
 */
import { randomBytes } from 'node:crypto';
import { describeBackends } from '@signal/test-support/vitest';
import { beforeAll, expect, it } from 'vitest';
import { readWholeFeed } from '../events-support.js';
import { call, createServiceKey, evmWallet, expectError, signIn, useApi } from '../harness.js';
import { checkpointOfSize, fetchVerifierKey } from '../log/log-support.js';
import { logCapture } from '../log-capture.js';
import { expectEachOnce } from '../paging.js';
import { changeSignal, newDesk, openSignal, type SignalDesk, signalsPath } from './signal-support.js';
import { commitmentOf, servedEntry, walletSigner } from './statement-support.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
const ORIGIN = 'reads.test/signals';
const REVEAL_SECONDS = 2;

interface WireSignal {
  providerId: number;
  id: string;
  publishedAt: string;
  revealAt: string;
  status: string;
  content: Record<string, unknown> | null;
  statements: {
    logIndex: number;
    commitment: string;
    statement: string | null;
    signer: string | null;
    signature: string | null;
  }[];
}

describeBackends('signal reads on %s', (backend) => {
  const log = logCapture();
  const api = useApi(backend, { env: { ADMIN_KEY, LOG_ORIGIN: ORIGIN }, logger: log.logger });
  const wallet = walletSigner(evmWallet());
  let writer: string;
  let events: string;
  let reader: string;
  let plainKey: string;
  let follower: string;
  let stranger: string;
  let verifierKey: string;
  let delayed: SignalDesk;
  let open: SignalDesk;

  beforeAll(async () => {
    writer = await createServiceKey(api, ADMIN_KEY, 'writer', ['providers:write']);
    events = await createServiceKey(api, ADMIN_KEY, 'events', ['events:read']);
    reader = await createServiceKey(api, ADMIN_KEY, 'reader', ['signals:read']);
    plainKey = await createServiceKey(api, ADMIN_KEY, 'plain', ['followers:read']);
    delayed = await newDesk(api, ORIGIN, writer, [wallet.signer], REVEAL_SECONDS);
    open = await newDesk(api, ORIGIN, writer, [wallet.signer]);
    follower = (await signIn(api, evmWallet())).token;
    stranger = (await signIn(api, evmWallet())).token;
    for (const desk of [delayed, open]) {
      expect((await call(api, 'POST', `/providers/${desk.providerId}/follow`, { token: follower })).status).toBe(200);
    }
    verifierKey = await fetchVerifierKey(api.url);
  });

  const detail = (desk: SignalDesk, id: string, token?: string) =>
    call<WireSignal>(api, 'GET', `${signalsPath(desk.providerId)}/${id}`, token ? { token } : {});

  it('shows content before revealAt only to followers and signals:read keys, to everyone after; no-store always', async () => {
    const marker = `SECRET${randomBytes(6).toString('hex').toUpperCase()}`;
    const opened = await openSignal(delayed, wallet, { instrument: marker, note: `note ${marker}` });
    expect(opened.reply.status).toBe(201);
    const id = opened.reply.body.signal.id as string;
    expect(opened.reply.body.signal.content.instrument).toBe(marker);
    const closed = await changeSignal(delayed, wallet, id, 'signal.close', { closePct: '10' });
    expect(closed.reply.status).toBe(201);
    const revealAt = Date.parse(opened.reply.body.signal.revealAt);
    expect(revealAt - Date.parse(opened.reply.body.signal.publishedAt)).toBe(REVEAL_SECONDS * 1000);

    const publicViews: unknown[] = [];
    const views = {
      anonymous: undefined,
      stranger,
      plainKey,
      follower,
      reader,
      admin: ADMIN_KEY,
    } as Record<string, string | undefined>;
    const full = new Set(['follower', 'reader', 'admin']);
    for (const [who, token] of Object.entries(views)) {
      const one = await detail(delayed, id, token);
      const list = await call(api, 'GET', signalsPath(delayed.providerId), token ? { token } : {});
      for (const reply of [one, list]) {
        expect(reply.status, who).toBe(200);
        expect(reply.headers.get('cache-control'), who).toBe('no-store');
        expect(reply.headers.get('etag'), who).toBeNull();
      }
      const listed = list.body.items.find((s: WireSignal) => s.id === id);
      expect(listed, who).toEqual(one.body);
      if (full.has(who)) {
        expect(one.body.content, who).toMatchObject({ instrument: marker, openPct: '90' });
        expect(
          one.body.statements.map((s) => s.statement),
          who,
        ).toEqual([opened.body.statement, closed.body.statement]);
      } else {
        publicViews.push(one.body, list.body);
        expect(one.body.content, who).toBeNull();
        expect(one.body.status, who).toBe('open');
        for (const s of one.body.statements) {
          expect([s.statement, s.signer, s.signature], who).toEqual([null, null, null]);
          expect(s.commitment).toMatch(/^[0-9a-f]{64}$/);
        }
      }
    }
    // /me/signals: the follower's feed has it with content; a stranger's is empty; a service key is refused
    const mine = await call(api, 'GET', '/me/signals', { token: follower });
    expect(mine.headers.get('cache-control')).toBe('no-store');
    expect(mine.body.items.find((s: WireSignal) => s.id === id).content.instrument).toBe(marker);
    expect((await call(api, 'GET', '/me/signals', { token: stranger })).body).toEqual({ items: [], nextCursor: null });
    expectError(await call(api, 'GET', '/me/signals', { token: reader }), 403, 'FORBIDDEN');
    expectError(await call(api, 'GET', '/me/signals'), 401, 'UNAUTHORIZED');
    // a credential that is none is refused, not served the public view
    expectError(await detail(delayed, id, 'sgk_not-a-live-key-at-all-0000000000000000000000'), 401, 'UNAUTHORIZED');

    // before the reveal: the content is in no public answer, event, log entry or log line
    const entries = await Promise.all(
      opened.reply.body.signal.statements
        .concat(closed.reply.body.signal.statements.slice(1))
        .map((s: { logIndex: number }) => servedEntry(api.url, verifierKey, s.logIndex)),
    );
    const feed = await readWholeFeed(api, events);
    const signalEvents = feed.filter((event) => (event.data as { signalId?: string }).signalId === id);
    expect(signalEvents.map((event) => Object.keys(event.data as object).sort())).toEqual([
      ['logIndex', 'providerId', 'signalId'],
      ['logIndex', 'providerId', 'signalId'],
    ]);
    for (const text of [JSON.stringify(publicViews), JSON.stringify(feed), ...entries, log.text()]) {
      expect(text).not.toContain(marker);
    }
    expect(log.text().length).toBeGreaterThan(0);

    // after revealAt everyone sees it, and each statement hashes to the commitment of its served entry
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, revealAt - Date.now()) + 20));
    const revealed = await detail(delayed, id);
    expect(revealed.body.content).toMatchObject({ instrument: marker, openPct: '90' });
    await checkpointOfSize(api.url, verifierKey, revealed.body.statements.at(-1)!.logIndex + 1);
    for (const s of revealed.body.statements) {
      const entry = JSON.parse(await servedEntry(api.url, verifierKey, s.logIndex));
      expect(commitmentOf(s.statement!)).toBe(entry.commitment);
      expect(s.commitment).toBe(entry.commitment);
      expect(entry.signal).toBe(id);
    }
  });

  it('filters by status (expiry judged now), refuses a bad status, and a cursor keeps its status', async () => {
    const desk = await newDesk(api, ORIGIN, writer, [wallet.signer]);
    const ids: Record<string, string> = {};
    for (const status of ['open', 'closed', 'cancelled', 'expired']) {
      const extra = status === 'expired' ? { expiresAt: new Date(Date.now() + 600).toISOString() } : {};
      const { reply } = await openSignal(desk, wallet, extra);
      ids[status] = reply.body.signal.id;
    }
    await changeSignal(desk, wallet, ids.closed!, 'signal.close', { closePct: '100' });
    await changeSignal(desk, wallet, ids.cancelled!, 'signal.cancel');
    await new Promise((resolve) => setTimeout(resolve, 650));
    const listed = async (query: string) =>
      (await call(api, 'GET', `${signalsPath(desk.providerId)}?${query}`)).body.items.map((s: WireSignal) => [
        s.id,
        s.status,
      ]);
    expect(await listed('status=open')).toEqual([[ids.open, 'open']]);
    expect(await listed('status=expired')).toEqual([[ids.expired, 'expired']]);
    expect(await listed('status=closed,cancelled')).toEqual([
      [ids.cancelled, 'cancelled'],
      [ids.closed, 'closed'],
    ]);
    expect((await listed('')).length).toBe(4);
    for (const bad of ['status=', 'status=open,done', 'status=OPEN', 'limit=0', 'limit=101']) {
      const reply = await call(api, 'GET', `${signalsPath(desk.providerId)}?${bad}`);
      expect(expectError(reply, 400, 'VALIDATION_ERROR').issues?.[0]?.path, bad).toEqual([bad.split('=')[0]]);
    }
    const first = await call(api, 'GET', `${signalsPath(desk.providerId)}?status=open,expired&limit=1`);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const next = await call(api, 'GET', `${signalsPath(desk.providerId)}?cursor=${first.body.nextCursor}`);
    expect(next.body.items.map((s: WireSignal) => s.status)).toEqual(['open']);
    expect(next.body.nextCursor).toBeNull();
    const mixed = await call(
      api,
      'GET',
      `${signalsPath(desk.providerId)}?cursor=${first.body.nextCursor}&status=closed`,
    );
    expect(expectError(mixed, 400, 'VALIDATION_ERROR').issues?.[0]?.path).toEqual(['cursor']);
    // a cursor of one listing is refused by another
    const elsewhere = await call(api, 'GET', `${signalsPath(open.providerId)}?cursor=${first.body.nextCursor}`);
    expectError(elsewhere, 400, 'VALIDATION_ERROR');
    expectError(
      await call(api, 'GET', `/me/signals?cursor=${first.body.nextCursor}`, { token: follower }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('walks newest first by cursor while signals are published: a provider’s list and the follower’s feed', async () => {
    const before: WireSignal[] = [];
    for (let i = 0; i < 6; i++) before.push((await openSignal(i % 2 ? open : delayed, wallet)).reply.body.signal);
    const publishing = (async () => {
      for (let i = 0; i < 4; i++) await openSignal(i % 2 ? open : delayed, wallet);
    })();
    const walk = async (path: string, token?: string) => {
      const seen: WireSignal[] = [];
      let cursor: string | null = null;
      do {
        const reply: { status: number; body: { items: WireSignal[]; nextCursor: string | null } } = await call(
          api,
          'GET',
          `${path}${path.includes('?') ? '&' : '?'}limit=2${cursor ? `&cursor=${cursor}` : ''}`,
          token ? { token } : {},
        );
        expect(reply.status).toBe(200);
        expect(reply.body).not.toHaveProperty('total');
        seen.push(...reply.body.items);
        cursor = reply.body.nextCursor;
      } while (cursor);
      return seen;
    };
    const [mine, list] = await Promise.all([walk('/me/signals', follower), walk(signalsPath(open.providerId))]);
    await publishing;
    const order = (s: WireSignal) => [Date.parse(s.publishedAt), s.statements[0]!.logIndex] as const;
    for (const seen of [mine, list]) {
      for (let i = 1; i < seen.length; i++) {
        const [t0, l0] = order(seen[i - 1]!);
        const [t1, l1] = order(seen[i]!);
        expect(t0 > t1 || (t0 === t1 && l0 > l1)).toBe(true);
      }
    }
    expectEachOnce(mine, before, (s) => s.id);
    expectEachOnce(
      list,
      before.filter((s) => s.providerId === open.providerId),
      (s) => s.id,
    );
    expect(list.every((s) => s.providerId === open.providerId)).toBe(true);
    // the feed holds content (the user follows both); unfollowing drops a provider from it at once
    expect(mine.every((s) => s.content !== null)).toBe(true);
    expect((await call(api, 'DELETE', `/providers/${open.providerId}/follow`, { token: follower })).status).toBe(200);
    const after = await walk('/me/signals', follower);
    expect(after.every((s) => s.providerId === delayed.providerId)).toBe(true);
    expect(after.length).toBeGreaterThan(0);
  });
});
