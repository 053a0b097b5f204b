/**
 * The service client against the real API, as an internal service uses it: the operator's
 * ADMIN_KEY creates a fan-out key, which walks a provider's followers; a revoked key and a key
 * without the scope fail with the typed error.
 */
import { randomBytes } from 'node:crypto';
import { createClient, createServiceClient, type Follower, SignalApiError } from '@signal/sdk';
import { evmSigner } from '@signal/sdk/evm';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { useApi } from './support/api.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;

const api = useApi('postgres', { env: { ADMIN_KEY } });

async function failure(promise: Promise<unknown>): Promise<SignalApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SignalApiError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('createServiceClient', () => {
  it('manages keys with ADMIN_KEY: create (secret once), list (no secret), revoke', async () => {
    const admin = createServiceClient({ baseUrl: api.url, key: ADMIN_KEY });
    const created = await admin.createKey({ name: 'fan-out', scopes: ['followers:read'] });
    expect(created.key).toMatch(/^sgk_[A-Za-z0-9_-]{43}$/);
    expect(created.start).toBe(created.key.slice(0, 12));
    const listed = await admin.listKeys({ limit: 100 });
    expect(listed.items.find((item) => item.id === created.id)).toEqual({
      id: created.id,
      name: 'fan-out',
      scopes: ['followers:read'],
      createdAt: created.createdAt,
      createdBy: 'admin',
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
      start: created.start,
    });
    expect(JSON.stringify(listed)).not.toContain(created.key);
    expect(await admin.revokeKey(created.id)).toEqual({ id: created.id, revoked: true });
    expect(await admin.revokeKey(created.id)).toEqual({ id: created.id, revoked: true });
    const missing = await failure(admin.revokeKey('key_missing'));
    expect(missing.code).toBe('NOT_FOUND');
  });

  it("walks a provider's followers page by page, each once, the new ones included", async () => {
    const admin = createServiceClient({ baseUrl: api.url, key: ADMIN_KEY });
    const { key } = await admin.createKey({ name: 'fan-out', scopes: ['followers:read'] });
    const service = createServiceClient({ baseUrl: `${api.url}/`, key });
    // Three users follow provider 1 through the user SDK.
    const users = await Promise.all(
      [0, 1, 2].map(async () => {
        const user = createClient({ baseUrl: api.url, signer: evmSigner(privateKeyToAccount(generatePrivateKey())) });
        await user.providers.follow(1);
        return (await user.me.get()).id;
      }),
    );
    const first = await service.followersPage(1, { limit: 2 });
    expect(first.items).toHaveLength(2);
    const walked: Follower[] = [];
    for await (const follower of service.followers(1, { limit: 2 })) walked.push(follower);
    expect(walked).toHaveLength(first.total);
    expect(walked.slice(0, 2)).toEqual(first.items);
    const ids = walked.map((follower) => follower.userId);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of users) expect(ids).toContain(id);
    const all: Follower[] = [];
    for await (const follower of service.followers(1)) all.push(follower);
    expect(all).toEqual(walked);
  });

  it('fails with the typed error: a key without the scope, a revoked key, an unknown provider', async () => {
    const admin = createServiceClient({ baseUrl: api.url, key: ADMIN_KEY });
    const narrow = await admin.createKey({ name: 'writer', scopes: ['stats:write'] });
    const forbidden = await failure(createServiceClient({ baseUrl: api.url, key: narrow.key }).followersPage(1));
    expect([forbidden.code, forbidden.status]).toEqual(['FORBIDDEN', 403]);
    await admin.revokeKey(narrow.id);
    const revoked = await failure(createServiceClient({ baseUrl: api.url, key: narrow.key }).listKeys());
    expect([revoked.code, revoked.status]).toEqual(['UNAUTHORIZED', 401]);
    const unknownProvider = await failure(admin.followersPage(999_999));
    expect(unknownProvider.code).toBe('PROVIDER_NOT_FOUND');
  });
});
