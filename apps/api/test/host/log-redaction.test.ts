/**
 * Credentials never logged (CONTRACT.md, Version 4, "Changes to earlier versions"; issue 42,
 * item 8): a key or token a client puts in a query string (a service key, a JWT, the ADMIN_KEY,
 * or any value of a `token`/`key`-like parameter) is absent from every line the server writes,
 * at trace level, raw or percent-escaped anywhere in the URL, while the rest of the URL still
 * shows what was asked.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { call, createServiceKey, evmWallet, signIn, useApi } from '../harness.js';
import { logCapture } from '../log-capture.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;

describe.each(['postgres', 'pglite'] as const)('credentials in logged URLs on %s', (backend) => {
  const log = logCapture();
  const api = useApi(backend, { env: { ADMIN_KEY, SEED_PROVIDERS: '1' }, logger: log.logger });

  it('redacts a service key, a JWT, the ADMIN_KEY and token parameters from the access log', async () => {
    const key = await createServiceKey(api, ADMIN_KEY, 'in a query', ['followers:read']);
    const { token } = await signIn(api, evmWallet());
    const opaque = `opaque-${randomBytes(12).toString('hex')}`;
    const marker = randomBytes(6).toString('hex');
    const asked = [
      `/providers?marker=${marker}&api_key=${key}`,
      `/me?marker=${marker}&jwt=${token}`,
      `/providers?marker=${marker}&x=${encodeURIComponent(ADMIN_KEY)}`,
      `/providers?marker=${marker}&access_token=${opaque}`,
      `/trpc/providers.list?input=${encodeURIComponent(JSON.stringify({ q: key, marker }))}`,
      // Escaped where no client needs to: each still reads as the credential once decoded (the
      // audit's three, and an escape escaped again).
      `/providers?marker=${marker}&a=${ADMIN_KEY.replaceAll('-', '%2D')}`,
      `/providers?marker=${marker}&q=sgk%5F${key.slice(4)}`,
      `/providers?marker=${marker}&q=${token.replaceAll('.', '%2E')}`,
      `/providers?marker=${marker}&q=sgk%255F${key.slice(4)}`,
      `/providers/${key}/stats?marker=${marker}`,
      // A URL inside a value, its own query holding a token (the review's).
      `/providers?marker=${marker}&next=/login?token=${opaque}x`,
    ];
    for (const path of asked) await call(api, 'GET', path);
    const text = log.text();
    // Every request was logged (the marker is there), the credentials are not.
    expect(text.split(marker).length - 1).toBeGreaterThanOrEqual(asked.length);
    for (const secret of [
      key,
      key.slice(4),
      token,
      token.split('.')[1] as string,
      ADMIN_KEY,
      ADMIN_KEY.slice(6),
      opaque,
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('api_key=[redacted]');
    expect(text).toContain('access_token=[redacted]');
  });
});
