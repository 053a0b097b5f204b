/**
 * `service.events.stream()` against the real API: events after the id passed as `after`, in
 * feed order, as the feed (GET /events) has them; across a restart of the server the loop
 * reconnects by itself with the last id and nothing is lost or repeated; a refusal (a key
 * without `events:read`, an unknown `after`) ends the loop with a SignalApiError.
 */
import { randomBytes } from 'node:crypto';
import { feedState } from '@signal/db';
import { createClient, createServiceClient, SignalApiError, type SignalEvent } from '@signal/sdk';
import { evmSigner } from '@signal/sdk/evm';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { useApi } from './support/api.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
const api = useApi('postgres', { env: { ADMIN_KEY } });

const signIn = () =>
  createClient({ baseUrl: api.url, signer: evmSigner(privateKeyToAccount(generatePrivateKey())) }).signIn();

/**
 * The whole feed, as GET /events gives it, once the server's feed pump has numbered what
 * committed (a feed read shows an event within about one pump interval: docs/events.md).
 */
async function feed(key: string): Promise<SignalEvent[]> {
  while ((await feedState(api.db.db)).unnumbered) await new Promise((resolve) => setTimeout(resolve, 50));
  const items: SignalEvent[] = [];
  let cursor: string | undefined;
  for (;;) {
    const response = await fetch(`${api.url}/events?limit=1000${cursor ? `&after=${cursor}` : ''}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const page = (await response.json()) as { items: SignalEvent[]; nextCursor: string };
    items.push(...page.items);
    if (page.nextCursor === cursor) return items;
    cursor = page.nextCursor;
  }
}

describe('service.events.stream', () => {
  it('reads after an event id, in feed order, and reconnects across a server restart', async () => {
    const admin = createServiceClient({ baseUrl: api.url, key: ADMIN_KEY });
    const { key } = await admin.createKey({ name: 'stream', scopes: ['events:read'] });
    const service = createServiceClient({ baseUrl: api.url, key });
    await signIn();
    const before = await feed(key);
    const start = before.at(-1)!;

    const controller = new AbortController();
    const received: SignalEvent[] = [];
    const consumer = (async () => {
      for await (const event of service.events.stream({ after: start.id, signal: controller.signal })) {
        received.push(event);
      }
    })();
    await signIn();
    while (received.length < 2) await new Promise((resolve) => setTimeout(resolve, 50));
    // The server stops (closing the stream) and starts again; meanwhile and after, more events.
    await api.restart();
    await signIn();
    await signIn();
    while (received.length < 6) await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    await consumer;

    const after = (await feed(key)).slice(before.length);
    expect(after.map((e) => e.type)).toEqual([
      'user.created',
      'session.created',
      'user.created',
      'session.created',
      'user.created',
      'session.created',
    ]);
    expect(received).toEqual(after);
  }, 60_000);

  it('a break leaves the loop; resuming after the last id handled goes on from there', async () => {
    const service = createServiceClient({ baseUrl: api.url, key: ADMIN_KEY });
    await signIn();
    const all = await feed(ADMIN_KEY);
    const from = all.at(-3)!;
    const first: SignalEvent[] = [];
    for await (const event of service.events.stream({ after: from.id, types: ['session.created', 'user.created'] })) {
      first.push(event);
      if (first.length === 1) break;
    }
    const rest: SignalEvent[] = [];
    for await (const event of service.events.stream({ after: first[0]!.id })) {
      rest.push(event);
      break;
    }
    expect([...first, ...rest]).toEqual(all.slice(-2));
  });

  it('a refusal ends the loop with a SignalApiError', async () => {
    const admin = createServiceClient({ baseUrl: api.url, key: ADMIN_KEY });
    const { key } = await admin.createKey({ name: 'no events', scopes: ['followers:read'] });
    const refused = async (options: Parameters<typeof admin.events.stream>[0], as = key) => {
      try {
        for await (const _ of createServiceClient({ baseUrl: api.url, key: as }).events.stream(options)) {
          throw new Error('expected no event');
        }
      } catch (error) {
        if (error instanceof SignalApiError) return error.code;
        throw error;
      }
      throw new Error('expected the stream to fail');
    };
    expect(await refused({})).toBe('FORBIDDEN');
    expect(await refused({}, 'sgk_unknown')).toBe('UNAUTHORIZED');
    expect(await refused({ after: 'evt_00000000000000000000000000000000' }, ADMIN_KEY)).toBe('VALIDATION_ERROR');
  });
});
