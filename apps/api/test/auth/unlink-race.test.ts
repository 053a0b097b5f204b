/**
 * Unlink and sign-in take their locks in one order (CONTRACT.md: no request answers 500; issue
 * 42, item 7): eight sign-ins of a wallet race its unlink on two servers sharing one PostgreSQL
 * database, ten rounds. Before, the sign-in locked the wallet's row then the user's and the
 * unlink the user's then the wallet's, so PostgreSQL broke the cycle by failing one of them
 * ("deadlock detected", a 500 on either side: 5 deadlocks in 3 rounds). PostgreSQL's own count
 * of deadlocks in the database is read before and after. PostgreSQL only: PGlite has one
 * connection, so nothing there can wait for anything.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { call, evmWallet, signIn, type TestApi, type TestWallet, useServerPair } from '../harness.js';

const ROUNDS = 10;
const SIGN_INS = 8;

/** PostgreSQL's count of deadlocks detected in this database so far. */
async function deadlocks(api: TestApi): Promise<number> {
  // A backend's statistics reach the shared counters some time after its transactions (this
  // flush is this connection's own): the count is a second witness, the 500s the first.
  await sql`select pg_stat_force_next_flush()`.execute(api.db.db);
  const { rows } = await sql<{ deadlocks: string }>`
    select deadlocks from pg_stat_database where datname = current_database()
  `.execute(api.db.db);
  return Number(rows[0]?.deadlocks ?? 0);
}

describe('sign-ins racing an unlink of their wallet on two servers (postgres)', () => {
  const { a, b } = useServerPair('postgres');

  /** A signed sign-in body for `wallet`, its nonce issued by `api`. */
  const signedSignIn = async (api: TestApi, wallet: TestWallet) => {
    const nonce = await call(api, 'GET', `/auth/nonce?wallet=${wallet.address}`);
    return { wallet: wallet.address, nonce: nonce.body.nonce, signature: await wallet.sign(nonce.body.message) };
  };

  it('answers every request (no 500, no deadlock) over ten rounds', async () => {
    const before = await deadlocks(a);
    const statuses: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const primary = evmWallet();
      const raced = evmWallet();
      const user = await signIn(a, primary);
      const linkNonce = await call(a, 'GET', `/auth/nonce?wallet=${raced.address}&purpose=link`, { token: user.token });
      const linked = await call(a, 'POST', '/me/wallets', {
        token: user.token,
        body: {
          wallet: raced.address,
          nonce: linkNonce.body.nonce,
          signature: await raced.sign(linkNonce.body.message),
        },
      });
      expect(linked.status).toBe(201);
      const bodies = await Promise.all(Array.from({ length: SIGN_INS }, (_, i) => signedSignIn(i % 2 ? b : a, raced)));
      const replies = await Promise.all([
        call(a, 'DELETE', `/me/wallets/${raced.address}`, { token: user.token }),
        ...bodies.map((body, i) => call(i % 2 ? a : b, 'POST', '/auth/verify', { body })),
      ]);
      statuses.push(...replies.map((reply) => reply.status));
    }
    // Every unlink and every sign-in succeeds (a sign-in after the unlink signs a new user in).
    const detected = (await deadlocks(a)) - before;
    expect({ failed: statuses.filter((status) => status !== 200).length, detected }).toEqual({
      failed: 0,
      detected: 0,
    });
    expect(statuses).toHaveLength(ROUNDS * (SIGN_INS + 1));
  });
});
