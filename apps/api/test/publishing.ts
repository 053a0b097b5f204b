/**
 * A server with a provider-writing ADMIN_KEY and a `stats:write` key for the performance tests:
 * new providers, publications, and today's date on the server's clock.
 */
import { randomBytes } from 'node:crypto';
import type { Backend } from '@signal/db';
import { beforeAll } from 'vitest';
import { call, createProvider, createServiceKey, useApi } from './harness.js';

export function usePublishing(backend: Backend) {
  const adminKey = `admin-${randomBytes(24).toString('base64url')}`;
  const api = useApi(backend, { env: { ADMIN_KEY: adminKey } });
  const state = { publisher: '', today: 0 };
  beforeAll(async () => {
    state.publisher = await createServiceKey(api, adminKey, 'pipeline', ['stats:write']);
    const now = api.now();
    state.today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  });
  return {
    api,
    adminKey,
    /** The `stats:write` key (after the block's first beforeAll). */
    publisher: () => state.publisher,
    /** Midnight UTC of the server's today, in milliseconds. */
    today: () => state.today,
    /** A new provider's id. */
    newProvider: (name: string) => createProvider(api, adminKey, name),
    publish: (id: number, body: unknown, token = state.publisher) =>
      call(api, 'POST', `/providers/${id}/performance`, { token, body }),
  };
}
