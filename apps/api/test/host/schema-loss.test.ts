/**
 * The database's tables vanish under a running server (dropped, or a database recreated without
 * them): every request that needs them is 503 SERVICE_UNAVAILABLE with Retry-After, not a 500;
 * /ready is 503 because the schema is not migrated; /health stays 200. Once the migrations run
 * again, the same server recovers without a restart.
 */
import { type Backend, migrateToLatest } from '@signal/db';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { call, evmWallet, expectError, signIn, useApi } from '../harness.js';

function schemaLossTests(backend: Backend) {
  describe(`tables dropped under a running server on ${backend}`, () => {
    const api = useApi(backend, { env: { SEED_PROVIDERS: '3' } });

    it('answers 503 while they are gone, /ready 503, and recovers once migrations run again', async () => {
      const { token } = await signIn(api, evmWallet());
      expect((await call(api, 'GET', '/ready')).status).toBe(200);

      await sql`drop schema public cascade`.execute(api.db.db);
      await sql`create schema public`.execute(api.db.db);

      for (const [method, path] of [
        ['GET', '/providers'],
        ['GET', '/providers/1'],
        ['GET', '/me'],
        ['POST', '/providers/1/follow'],
      ] as const) {
        const reply = await call(api, method, path, { token });
        expectError(reply, 503, 'SERVICE_UNAVAILABLE');
        expect(reply.headers.get('retry-after')).toBe('1');
      }
      const overTrpc = await call(api, 'GET', `/trpc/providers.get?input=${encodeURIComponent('{"id":1}')}`);
      expect(overTrpc.status).toBe(503);
      expect(overTrpc.body.error.data).toMatchObject({ code: 'SERVICE_UNAVAILABLE', httpStatus: 503 });
      const ready = expectError(await call(api, 'GET', '/ready'), 503, 'SERVICE_UNAVAILABLE');
      expect(ready.message).toMatch(/not migrated/);
      expect((await call(api, 'GET', '/health')).status).toBe(200);

      // An operator re-runs the migrations; the running server needs nothing else.
      await migrateToLatest(api.db.db);
      expect((await call(api, 'GET', '/ready')).body).toEqual({ status: 'ready' });
      const page = await call(api, 'GET', '/providers');
      expect(page.status).toBe(200);
      expect(page.body.total).toBe(0);
      const fresh = await signIn(api, evmWallet());
      expect((await call(api, 'GET', '/me', { token: fresh.token })).status).toBe(200);
    });
  });
}

schemaLossTests('postgres');
schemaLossTests('pglite');
