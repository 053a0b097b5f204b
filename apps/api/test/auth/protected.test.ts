/**
 * Every protected procedure (enumerated from the router's meta by support/protected-procedures.ts,
 * so none is left out) refuses a request without a credential, with a garbage one, with an expired
 * token and with a signed-out session's token, on REST and on tRPC, with the contract's 401 codes
 * (CONTRACT.md, errors) and `WWW-Authenticate: Bearer`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, evmWallet, type Reply, signIn, startApi, type TestApi } from '../harness.js';
import { protectedProcedures, transportsOf } from '../support/protected-procedures.js';

const THIRTY_DAYS_MS = 2_592_000 * 1000;
const procedures = protectedProcedures();

/** The contract's code of a REST or a tRPC error answer. */
function codeOf(reply: Reply): string | undefined {
  return reply.body?.code ?? reply.body?.error?.data?.code;
}

describe('protected procedures, from the router meta', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startApi('postgres');
  });
  afterAll(async () => {
    await api?.stop();
  });

  async function refusals(authorization: string | undefined) {
    const found: string[] = [];
    for (const procedure of procedures) {
      for (const way of transportsOf(procedure)) {
        const reply = await call(
          api,
          way.method as never,
          way.path,
          authorization ? { headers: { authorization } } : {},
        );
        found.push(
          `${way.name} ${procedure.path}: ${reply.status} ${codeOf(reply)} ${/^Bearer\b/.test(reply.headers.get('www-authenticate') ?? '') ? 'Bearer' : '-'}`,
        );
      }
    }
    return found;
  }

  const expected = (walletCode: string) =>
    procedures.flatMap((procedure) =>
      transportsOf(procedure).map(
        // A service key's route has one 401: UNAUTHORIZED (procedures/service-auth.ts).
        (way) => `${way.name} ${procedure.path}: 401 ${procedure.scope ? 'UNAUTHORIZED' : walletCode} Bearer`,
      ),
    );

  it('finds the wallet-token and the service-key procedures', () => {
    expect(procedures.filter((p) => p.scope === undefined).length).toBeGreaterThanOrEqual(7);
    expect(procedures.filter((p) => p.scope !== undefined).length).toBeGreaterThan(0);
  });

  it('no credential → 401 UNAUTHORIZED', async () => {
    expect(await refusals(undefined)).toEqual(expected('UNAUTHORIZED'));
  });

  it('a garbage credential → 401 UNAUTHORIZED', async () => {
    expect(await refusals('Bearer not.a.token')).toEqual(expected('UNAUTHORIZED'));
  });

  it("a signed-out session's token → 401 SESSION_REVOKED (wallet routes)", async () => {
    const { token } = await signIn(api, evmWallet());
    expect((await call(api, 'POST', '/auth/logout', { token })).status).toBe(200);
    const found = await refusals(`Bearer ${token}`);
    const wallet = (line: string) => !procedures.find((p) => line.includes(` ${p.path}:`))?.scope;
    expect(found.filter(wallet)).toEqual(expected('SESSION_REVOKED').filter(wallet));
  });

  // Last: it moves the server clock past every token's lifetime.
  it('an expired token → 401 TOKEN_EXPIRED (wallet routes), UNAUTHORIZED (service-key routes)', async () => {
    const { token } = await signIn(api, evmWallet());
    api.advanceClock(THIRTY_DAYS_MS + 60_000);
    expect(await refusals(`Bearer ${token}`)).toEqual(expected('TOKEN_EXPIRED'));
  });
});
