/**
 * `signals.live` refused before any stream, and its caps (issue 41 item 2), on PostgreSQL and
 * PGlite: no credential, an unknown key → 401; a key without `signals:read` → 403; a bad
 * `lastEventId` → 400; each as its HTTP status with tRPC's JSON error, never a 200 stream. The
 * caps beside the connection caps: STREAMS_PER_CREDENTIAL (429), STREAMS_PER_ADDRESS (429) and
 * STREAMS_MAX (503 with Retry-After), read from X-Forwarded-For behind TRUST_PROXY so that one
 * test machine can be several addresses; a closed stream's slots free again. A HEAD (of either
 * subscription) gets the stream's head at once and holds no slot (found by the subscription fuzz).
 */
import { randomBytes } from 'node:crypto';
import { describeBackends } from '@signal/test-support/vitest';
import { beforeAll, expect, it } from 'vitest';
import { until } from '../events-support.js';
import { createServiceKey, evmWallet, signIn, useApi } from '../harness.js';
import { httpCall } from '../raw-http.js';
import { rawLive } from './live-support.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;

describeBackends('signals.live refusals and caps on %s', (backend) => {
  const api = useApi(backend, {
    env: {
      ADMIN_KEY,
      TRUST_PROXY: '1',
      STREAMS_PER_CREDENTIAL: '2',
      STREAMS_PER_ADDRESS: '3',
      STREAMS_MAX: '5',
    },
  });
  let reader: string;
  let otherScope: string;
  const users: string[] = [];
  beforeAll(async () => {
    reader = await createServiceKey(api, ADMIN_KEY, 'live reader', ['signals:read']);
    otherScope = await createServiceKey(api, ADMIN_KEY, 'events only', ['events:read']);
    for (let i = 0; i < 4; i++) users.push((await signIn(api, evmWallet())).token);
  });

  /** Opens a stream by hand and waits for its answer. */
  const open = async (token: string | undefined, input?: unknown, from?: string) => {
    const stream = rawLive(api.url, token, input, from);
    await stream.answered;
    if (stream.status === 200) await until(() => stream.body.includes('event: connected'), 'the stream to start');
    return stream;
  };

  it('answers 401, 403 and 400 with tRPC’s JSON before any stream', async () => {
    const cases = [
      { token: undefined, input: undefined, status: 401, code: 'UNAUTHORIZED' },
      { token: 'sgk_never-was-a-key-0123456789abcdef', input: undefined, status: 401, code: 'UNAUTHORIZED' },
      { token: otherScope, input: undefined, status: 403, code: 'FORBIDDEN' },
      { token: reader, input: { lastEventId: 'x1' }, status: 400, code: 'VALIDATION_ERROR' },
      { token: reader, input: { lastEventId: '99999999' }, status: 400, code: 'VALIDATION_ERROR' },
      { token: users[0], input: { providerIds: ['1'] }, status: 400, code: 'VALIDATION_ERROR' },
    ];
    for (const { token, input, status, code } of cases) {
      const stream = await open(token, input, '10.9.0.1');
      expect(stream.status, JSON.stringify({ input, code })).toBe(status);
      expect(stream.head).toMatch(/content-type: application\/json/i);
      expect(stream.body).not.toMatch(/^event: /m);
      const body = stream.json();
      expect(body.error.data).toMatchObject({ code, httpStatus: status, path: 'signals.live' });
      if (status === 400 && input && 'lastEventId' in input)
        expect(body.error.data.issues[0].path).toEqual(['lastEventId']);
      stream.close();
    }
  });

  it('answers a HEAD of either subscription with the stream’s head at once, holding no slot', async () => {
    const both = await createServiceKey(api, ADMIN_KEY, 'head reader', ['signals:read', 'events:read']);
    for (const path of ['/trpc/signals.live', '/trpc/events.stream']) {
      // More HEADs than the credential's two slots: each gives its slot back as it ends.
      for (let i = 0; i < 3; i++) {
        const head = await httpCall(api.url, {
          method: 'HEAD',
          path,
          headers: { authorization: `Bearer ${both}`, 'x-forwarded-for': `10.7.0.${i}` },
        });
        expect(head.status, `${path}, HEAD ${i + 1}`).toBe(200);
        expect(head.headers['content-type']).toMatch(/^text\/event-stream/);
        expect(head.text).toBe('');
      }
      // Refused the same as its GET, before any stream.
      const refused = await httpCall(api.url, { method: 'HEAD', path, headers: { authorization: 'Bearer a.b.c' } });
      expect(refused.status).toBe(401);
      expect(refused.headers['content-type']).toMatch(/^application\/json/);
    }
    // And the slots are free: both streams of the credential open.
    const streams = [await open(both, undefined, '10.7.1.1'), await open(both, undefined, '10.7.1.2')];
    expect(streams.map((stream) => stream.status)).toEqual([200, 200]);
    for (const stream of streams) stream.close();
  });

  it('caps streams per credential (429), per address (429) and in the process (503), and frees them', async () => {
    const held: ReturnType<typeof rawLive>[] = [];
    const expectOpen = async (token: string, from: string) => {
      const stream = await open(token, undefined, from);
      expect(stream.status).toBe(200);
      expect(stream.head).toMatch(/content-type: text\/event-stream/i);
      held.push(stream);
    };
    const expectRefused = async (token: string, from: string, status: number, message: RegExp) => {
      const stream = await open(token, undefined, from);
      expect(stream.status).toBe(status);
      const body = stream.json();
      expect(body.error.data.code).toBe(status === 503 ? 'SERVICE_UNAVAILABLE' : 'RATE_LIMITED');
      expect(body.error.message).toMatch(message);
      expect(Number(/retry-after: (\d+)/i.exec(stream.head)?.[1])).toBeGreaterThan(0);
      stream.close();
    };
    // A user's two streams, then its third: the credential's cap, from another address too.
    await expectOpen(users[0]!, '10.1.0.1');
    await expectOpen(users[0]!, '10.1.0.1');
    await expectRefused(users[0]!, '10.1.0.2', 429, /STREAMS_PER_CREDENTIAL/);
    // A third stream from 10.1.0.1 (another credential), then a fourth: the address's cap.
    await expectOpen(reader, '10.1.0.1');
    await expectRefused(users[1]!, '10.1.0.1', 429, /STREAMS_PER_ADDRESS/);
    // Two more elsewhere make five: the process's cap, whoever asks from wherever.
    await expectOpen(users[1]!, '10.2.0.1');
    await expectOpen(users[2]!, '10.3.0.1');
    await expectRefused(users[3]!, '10.4.0.1', 503, /STREAMS_MAX/);
    // A closed stream gives its slots back (credential, address and process).
    held.shift()!.close();
    await until(async () => {
      const again = await open(users[3]!, undefined, '10.1.0.1');
      again.close();
      return again.status === 200;
    }, 'the freed slot');
    for (const stream of held) stream.close();
  });
});
